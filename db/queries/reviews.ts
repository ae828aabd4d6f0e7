import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "../client";
import { jobs, type ReviewRecord, reviews } from "../schema";

export function insertReview(
  db: Db,
  r: {
    id: string;
    title: string;
    verdict: "pass" | "partial" | "fail";
    verdictSource: "judge" | "gate" | "tests";
    score: number | null;
    mechanicalScore: number | null;
    blendedScore: number | null;
    diff: string;
    record: ReviewRecord;
  },
): void {
  db.insert(reviews).values(r).run();
}

export function listReviews(db: Db, { limit = 200 }: { limit?: number } = {}) {
  return db.select().from(reviews).orderBy(desc(reviews.createdAt)).limit(limit).all();
}

export function getReview(db: Db, id: string) {
  return db.select().from(reviews).where(eq(reviews.id, id)).get();
}

/**
 * Review jobs with no stored review (yet): running, queued, or stopped before they finished
 * (interrupted, failed, cancelled), newest first, so none disappears from the Reviews page.
 */
export function listUnstoredReviewJobs(db: Db, { limit = 50 }: { limit?: number } = {}) {
  return db
    .select({
      id: jobs.id,
      status: jobs.status,
      done: jobs.done,
      total: jobs.total,
      errors: jobs.errors,
      error: jobs.error,
      createdAt: jobs.createdAt,
      startedAt: jobs.startedAt,
      finishedAt: jobs.finishedAt,
    })
    .from(jobs)
    .leftJoin(reviews, eq(reviews.id, jobs.id))
    .where(and(eq(jobs.kind, "review"), isNull(reviews.id)))
    .orderBy(desc(jobs.createdAt))
    .limit(limit)
    .all();
}
