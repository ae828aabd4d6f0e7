/** What a page needs to show a job's progress live (the /api/progress/<id> answer). */
export type LiveSample = {
  id: number;
  caseId: string;
  criterionId: string;
  judge: string;
  sampleIndex: number;
  score: number | null;
  error: string | null;
};

export type LiveStatus =
  | "queued"
  | "running"
  | "done"
  | "done_with_failures"
  | "failed"
  | "cancelled"
  | "interrupted";

export type LiveProgress = {
  kind: "run" | "experiment" | "review" | "agreement";
  status: LiveStatus;
  total: number;
  done: number;
  errors: number;
  costUsd: number;
  startedAt: number | null;
  /** samples finished since the cursor, newest first (runs only) */
  latest: LiveSample[];
  /** the newest sample id seen: pass it back to get only what is newer */
  cursor: number;
  /** runs: the panel's judges, and those with at least one answered sample */
  judgesAsked?: number;
  judgesAnswered?: number;
  /** reviews and agreement jobs: why the job stopped unfinished (cancelled, interrupted, failed) */
  error?: string | null;
  /** reviews: the review is stored (its page exists) */
  stored?: boolean;
};

export function isLive(status: string): boolean {
  return status === "queued" || status === "running";
}
