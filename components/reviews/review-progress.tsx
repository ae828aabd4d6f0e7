"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { cancelReview } from "@/app/actions/reviews";
import { useLiveProgress } from "@/components/jobs/use-live-progress";
import { isLive, type LiveProgress } from "@/lib/jobs/live";

const statusStyles: Record<string, string> = {
  queued: "bg-zinc-100 text-zinc-700",
  running: "bg-blue-100 text-blue-800",
  done: "bg-green-100 text-green-800",
  failed: "bg-red-100 text-red-800",
  cancelled: "bg-zinc-200 text-zinc-700",
  interrupted: "bg-amber-100 text-amber-800",
};

/** A review's snapshot before the first poll: its job, queued, with the calls it plans. */
export function queuedReview(total: number): LiveProgress {
  return {
    kind: "review",
    status: "queued",
    total,
    done: 0,
    errors: 0,
    costUsd: 0,
    startedAt: null,
    latest: [],
    cursor: 0,
    error: null,
    stored: false,
  };
}

/**
 * One review's job, followed from /api/progress/<id> while it runs (no page re-render): calls made
 * of those planned, failed calls, cancel; once stored, a link to it; stopped unstored, why.
 */
export function ReviewProgress({
  id,
  initial,
  createdAt,
}: {
  id: string;
  initial: LiveProgress;
  /** when the review was started, as the page shows dates (YYYY-MM-DD HH:MM) */
  createdAt?: string;
}) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [message, setMessage] = useState<string | null>(null);
  const p = useLiveProgress(id, initial, () => router.refresh());
  const live = isLive(p.status);
  const cancel = () =>
    start(async () => {
      const r = await cancelReview(id);
      setMessage(r.ok ? null : r.error);
    });
  return (
    <div
      className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm tabular-nums"
      data-testid="review-progress"
      data-review-id={id}
      data-status={p.status}
    >
      <code className="text-xs">{id}</code>
      <span
        data-testid="review-job-status"
        className={`rounded px-2 py-0.5 text-xs font-medium ${statusStyles[p.status] ?? ""}`}
      >
        {p.status}
      </span>
      <span data-testid="review-calls-count">
        {p.done} of {p.total} call{p.total === 1 ? "" : "s"}
        {p.errors > 0 && `, ${p.errors} failed`}
      </span>
      {createdAt && <span className="text-xs text-zinc-500">{createdAt}</span>}
      {live && (
        <button
          type="button"
          disabled={pending}
          onClick={cancel}
          data-testid="cancel-review"
          className="rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-50"
        >
          Cancel
        </button>
      )}
      {p.stored && (
        <Link href={`/reviews/${id}`} className="text-indigo-700 underline" data-testid="open-review">
          Open the review
        </Link>
      )}
      {!live && !p.stored && p.error && (
        <span className="text-red-700" data-testid="review-job-error">
          {p.error}
        </span>
      )}
      {message && <span className="text-red-700">{message}</span>}
    </div>
  );
}
