import type { RunStatus } from "@/lib/domain";

const styles: Record<RunStatus, string> = {
  queued: "bg-zinc-100 text-zinc-700",
  running: "bg-blue-100 text-blue-800",
  done: "bg-green-100 text-green-800",
  done_with_failures: "bg-orange-100 text-orange-900",
  failed: "bg-red-100 text-red-800",
  cancelled: "bg-zinc-200 text-zinc-700",
  interrupted: "bg-amber-100 text-amber-800",
};

/** A status as words: `done_with_failures` reads "done with failures". */
export function statusLabel(status: string): string {
  return status.replaceAll("_", " ");
}

export function StatusBadge({ status }: { status: RunStatus }) {
  return (
    <span
      data-testid="run-status"
      data-status={status}
      className={`rounded px-2 py-0.5 text-xs font-medium ${styles[status] ?? ""}`}
    >
      {statusLabel(status)}
    </span>
  );
}

const consensusStyles: Record<string, string> = {
  STRONG: "bg-green-100 text-green-800",
  GOOD: "bg-emerald-50 text-emerald-800",
  PARTIAL: "bg-amber-100 text-amber-800",
  LOW: "bg-red-100 text-red-800",
  "single judge": "bg-zinc-100 text-zinc-700",
  "no judge answered": "bg-red-600 text-white",
};

/**
 * A consensus level, or why there is none: "single judge" (one judge answered: nothing to agree
 * with), "no judge answered". Older results without an agreement field show their level or a dash.
 */
export function ConsensusBadge({ level, agreement }: { level: string | null; agreement?: string }) {
  const text = agreement ?? level;
  if (!text || text === "deterministic") return <span className="text-xs text-zinc-600">—</span>;
  return (
    <span
      data-testid="consensus"
      className={`rounded px-1.5 py-0.5 text-xs font-medium ${consensusStyles[text] ?? "bg-zinc-100 text-zinc-600"}`}
    >
      {text}
    </span>
  );
}
