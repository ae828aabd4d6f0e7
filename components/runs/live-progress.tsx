"use client";

import { useRouter } from "next/navigation";
import { type ReactNode, useState, useTransition } from "react";
import { cancelRun, resumeRun } from "@/app/actions/runs";
import { isLive } from "@/lib/jobs/live";
import { sampleLabel } from "@/lib/runs/sample-number";
import { costSoFar } from "./cost-text";
import { useLiveRun } from "./live-run";

/** `unpriced`: a judge of the run has no price, so its cost is unknown (never shown as $0). */
type Props = {
  runId: string;
  unpriced?: boolean;
  /** every judge of the run is a mock: it costs nothing */
  free?: boolean;
  /** samples asked of each judge per prompt */
  n: number;
};

/**
 * Progress from the run's live snapshot (LiveRun: the same one the header counts from), the newest
 * samples as they land, cancel and resume.
 */
export function LiveProgress({ runId, unpriced = false, free = false, n }: Props) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [message, setMessage] = useState<string | null>(null);
  const p = useLiveRun();
  const { status, total, done, errors, costUsd, startedAt } = p;
  const live = isLive(status);
  const finished = done + errors;
  const pct = total ? Math.round((finished / total) * 100) : 100;
  const elapsed = startedAt ? (Date.now() - startedAt) / 1000 : 0;
  const left =
    live && finished > 0 && elapsed > 0 ? Math.ceil((elapsed / finished) * (total - finished)) : null;
  const act = (fn: (id: string) => Promise<{ ok: boolean; error?: string }>) =>
    start(async () => {
      const r = await fn(runId);
      setMessage(r.ok ? null : (r.error ?? "failed"));
      router.refresh();
    });

  return (
    <div className="space-y-2" data-testid="run-progress">
      <div
        className="h-2 w-full overflow-hidden rounded bg-zinc-200"
        role="progressbar"
        aria-label="Samples finished"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={finished}
      >
        <div className="h-full bg-indigo-600 transition-all" style={{ width: `${pct}%` }} />
      </div>
      <div className="flex flex-wrap items-center gap-4 text-sm tabular-nums">
        <span data-testid="progress-count" data-count={finished}>
          {finished} of {total} samples
        </span>
        <span data-testid="progress-failed">{errors} failed</span>
        <span data-testid="progress-cost">{costSoFar({ costUsd, unpriced, free })}</span>
        {left !== null && <span>~{left} s left</span>}
        {live && (
          <ActionButton testId="cancel-run" disabled={pending} onClick={() => act(cancelRun)}>
            Cancel
          </ActionButton>
        )}
        {/* interrupted runs can always resume: a kill after the last sample still needs its verdicts */}
        {/* done_with_failures has nothing pending: its failed samples are retried from the failures card */}
        {(status === "interrupted" ||
          ((status === "cancelled" || status === "failed") && finished < total)) && (
          <ActionButton testId="resume-run" disabled={pending} onClick={() => act(resumeRun)}>
            Resume
          </ActionButton>
        )}
        {message && <span className="text-red-700">{message}</span>}
      </div>
      {live && p.latest.length > 0 && (
        <ul className="max-h-40 overflow-y-auto text-xs text-zinc-600" data-testid="latest-samples">
          {p.latest.map((s) => (
            <li key={s.id} className="font-mono">
              {s.caseId} · {s.criterionId} · {s.judge} {sampleLabel(s.sampleIndex, n)}:{" "}
              {s.error ? <span className="text-red-700">failed</span> : (s.score ?? "—")}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function ActionButton({
  testId,
  disabled,
  onClick,
  children,
}: {
  testId: string;
  disabled: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      disabled={disabled}
      data-testid={testId}
      onClick={onClick}
      className="rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-50"
    >
      {children}
    </button>
  );
}
