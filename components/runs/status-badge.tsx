import type { RunStatus } from "@/lib/domain";

const styles: Record<RunStatus, string> = {
  queued: "bg-zinc-100 text-zinc-700",
  running: "bg-blue-100 text-blue-800",
  done: "bg-green-100 text-green-800",
  failed: "bg-red-100 text-red-800",
  cancelled: "bg-zinc-200 text-zinc-700",
  interrupted: "bg-amber-100 text-amber-800",
};

export function StatusBadge({ status }: { status: RunStatus }) {
  return (
    <span data-testid="run-status" className={`rounded px-2 py-0.5 text-xs font-medium ${styles[status]}`}>
      {status}
    </span>
  );
}

const consensusStyles: Record<string, string> = {
  STRONG: "bg-green-100 text-green-800",
  GOOD: "bg-emerald-50 text-emerald-800",
  PARTIAL: "bg-amber-100 text-amber-800",
  LOW: "bg-red-100 text-red-800",
};

export function ConsensusBadge({ level }: { level: string | null }) {
  if (!level) return <span className="text-xs text-zinc-400">—</span>;
  return (
    <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${consensusStyles[level] ?? ""}`}>
      {level}
    </span>
  );
}
