"use client";

import { useActionState, useMemo } from "react";
import { type StartReviewState, startReview } from "@/app/actions/reviews";
import type { LiveProgress } from "@/lib/jobs/live";
import { ReviewForm } from "./review-form";
import { queuedReview, ReviewProgress } from "./review-progress";

/** A review job the page lists: running, or stopped before it was stored (with why). */
export type ReviewJobItem = { id: string; createdAt: string; initial: LiveProgress };

type Props = {
  /** the judges enabled in Settings */
  judges: string[];
  /** the ones ticked at first */
  defaultJudges: string[];
  defaultN: number;
  /** the largest diff the server takes (JURY_MAX_FILE_BYTES), in bytes */
  maxBytes: number;
  jobs: ReviewJobItem[];
};

/**
 * Starts a review from the dashboard: criteria, the diff (pasted, or a .diff file read into the
 * box), test counts and output, judges and N. Every field is controlled, so a refused form keeps
 * what was typed. The started review is followed live below the form; the other review jobs with
 * no stored review (running, or stopped with why) are listed under it.
 */
export function ReviewWorkbench({ judges, defaultJudges, defaultN, maxBytes, jobs }: Props) {
  const [state, action, pending] = useActionState<StartReviewState, FormData>(startReview, null);
  const started = state?.ok ? state.data : null;
  const startedInitial = useMemo(() => (started ? queuedReview(started.total) : null), [started]);
  const others = jobs.filter((j) => j.id !== started?.reviewId);

  return (
    <div className="space-y-4">
      <ReviewForm
        action={action}
        pending={pending}
        state={state}
        available={judges}
        defaultJudges={defaultJudges}
        defaultN={defaultN}
        maxBytes={maxBytes}
      />
      {started && startedInitial && (
        <div className="rounded border border-indigo-200 bg-indigo-50 p-2" data-testid="started-review">
          <ReviewProgress id={started.reviewId} initial={startedInitial} />
        </div>
      )}
      {others.length > 0 && <ReviewJobList jobs={others} />}
    </div>
  );
}

/** The other review jobs with no stored review: running, or stopped with why. */
function ReviewJobList({ jobs }: { jobs: ReviewJobItem[] }) {
  return (
    <div className="space-y-1" data-testid="review-jobs">
      <h3 className="text-xs font-semibold text-zinc-700">
        Reviews running, or stopped before they were stored
      </h3>
      <ul className="space-y-1">
        {jobs.map((j) => (
          <li key={j.id}>
            <ReviewProgress id={j.id} initial={j.initial} createdAt={j.createdAt} />
          </li>
        ))}
      </ul>
    </div>
  );
}
