"use client";

import { useRouter } from "next/navigation";
import { type ReactNode, useEffect, useState, useTransition } from "react";
import { cancelRun, resumeRun } from "@/app/actions/runs";
import type { RunStatus } from "@/db/schema";

type Props = {
  runId: string;
  status: RunStatus;
  total: number;
  done: number;
  errors: number;
  costUsd: number;
  startedAt: number | null;
};

/** Progress that refreshes itself while the run is live, with cancel and resume. */
export function LiveProgress({ runId, status, total, done, errors, costUsd, startedAt }: Props) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [message, setMessage] = useState<string | null>(null);
  const live = status === "running" || status === "queued";
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => router.refresh(), 1000);
    return () => clearInterval(t);
  }, [live, router]);

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
      <div className="h-2 w-full overflow-hidden rounded bg-zinc-200">
        <div className="h-full bg-indigo-600 transition-all" style={{ width: `${pct}%` }} />
      </div>
      <div className="flex flex-wrap items-center gap-4 text-sm tabular-nums">
        <span data-testid="progress-count">
          {finished} of {total} tasks
        </span>
        <span>{errors} failed</span>
        <span>${costUsd.toFixed(4)} so far</span>
        {left !== null && <span>~{left} s left</span>}
        {live && (
          <ActionButton testId="cancel-run" disabled={pending} onClick={() => act(cancelRun)}>
            Cancel
          </ActionButton>
        )}
        {/* interrupted runs can always resume: a kill after the last sample still needs its verdicts */}
        {(status === "interrupted" ||
          ((status === "cancelled" || status === "failed") && finished < total)) && (
          <ActionButton testId="resume-run" disabled={pending} onClick={() => act(resumeRun)}>
            Resume
          </ActionButton>
        )}
        {message && <span className="text-red-700">{message}</span>}
      </div>
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
