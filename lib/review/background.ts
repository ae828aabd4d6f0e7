import type { Db } from "@/db/client";
import { errorMessage } from "../errors";
import { executeReview, type ReviewJobInput } from "./review-job";

const globalForReviews = globalThis as unknown as { __juryReviews?: Map<string, Promise<unknown>> };
if (!globalForReviews.__juryReviews) globalForReviews.__juryReviews = new Map();
const running = globalForReviews.__juryReviews;

/**
 * Starts a review inside this server process without waiting for it (its job row must exist:
 * enqueueReview). Its job keeps the heartbeat; the review is stored when it finishes.
 */
export function startReviewInBackground(db: Db, input: Omit<ReviewJobInput, "signal">): void {
  if (running.has(input.id)) return;
  const job = executeReview(db, input)
    .then((r) => {
      if (r.thrown !== undefined) console.error(`review ${input.id} failed:`, errorMessage(r.thrown));
    })
    .catch((err) => console.error(`review ${input.id} failed:`, errorMessage(err)))
    .finally(() => running.delete(input.id));
  running.set(input.id, job);
}
