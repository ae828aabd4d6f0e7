"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { cancelAgreementJob } from "@/app/actions/agreement";
import { useLiveProgress } from "@/components/jobs/use-live-progress";
import { isLive, type LiveProgress } from "@/lib/jobs/live";

/** One object for every render: a fresh default each render would reset the followed progress. */
const QUEUED: LiveProgress = {
  kind: "agreement",
  status: "queued",
  total: 0,
  done: 0,
  errors: 0,
  costUsd: 0,
  startedAt: null,
  latest: [],
  cursor: 0,
};

/**
 * An agreement import's or report's job, followed from /api/progress/<job id>: files read, then
 * judges computed, with a cancel. When it ends: `doneHref` opens (or the page refreshes); a failure
 * shows the job's error (an import's problems, each with its file, line and field).
 */
export function AgreementJobProgress({
  jobId,
  what,
  initial = QUEUED,
  doneHref,
}: {
  jobId: string;
  what: string;
  initial?: LiveProgress;
  doneHref?: string;
}) {
  const router = useRouter();
  const [cancelling, startCancel] = useTransition();
  const [cancelError, setCancelError] = useState<string | null>(null);
  const p = useLiveProgress(jobId, initial, (last) => {
    if (last.status === "done") {
      if (doneHref) router.push(doneHref);
      else router.refresh();
    }
  });
  const live = isLive(p.status);
  return (
    <div className="space-y-2 text-sm" data-testid="agreement-job" data-status={p.status}>
      <p aria-live="polite">
        {what}: <span className="font-medium">{p.status}</span>
        {p.total > 0 && (
          <>
            {" "}
            · {p.done} of {p.total} steps (files read, then one per judge)
          </>
        )}
      </p>
      {live && (
        <progress
          className="h-2 w-full"
          max={Math.max(p.total, 1)}
          value={p.done}
          aria-label={`${what}: ${p.done} of ${p.total} steps`}
        />
      )}
      {live && (
        <button
          type="button"
          disabled={cancelling}
          onClick={() =>
            startCancel(async () => {
              const r = await cancelAgreementJob(jobId);
              if (!r.ok) setCancelError(r.error);
            })
          }
          className="rounded border border-zinc-300 px-2 py-1 text-xs hover:bg-zinc-50 disabled:opacity-50"
        >
          {cancelling ? "Cancelling…" : "Cancel"}
        </button>
      )}
      {cancelError && <p className="text-xs text-red-700">{cancelError}</p>}
      {!live && p.status !== "done" && p.error && (
        <pre
          role="alert"
          className="whitespace-pre-wrap rounded bg-red-50 p-2 text-xs text-red-800"
          data-testid="import-error"
        >
          {p.error}
        </pre>
      )}
    </div>
  );
}
