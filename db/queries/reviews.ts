import { and, desc, eq, isNull } from "drizzle-orm";
import { all, one, query, write } from "../op";
import type { ReviewRecord } from "../schema";

export const insertReview = query(function* (
  db,
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
    /** who asked for it; absent: not known */
    createdBy?: string | null;
  },
) {
  const { reviews } = db.tables;
  yield* write(db.insert(reviews).values({ ...r, createdBy: r.createdBy ?? null }));
});

/** The newest reviews first. */
export const listReviews = query(function* (db, { limit = 200 }: { limit?: number } = {}) {
  const { reviews } = db.tables;
  return yield* all(
    db.select().from(reviews).orderBy(desc(reviews.createdAt), desc(reviews.id)).limit(limit),
  );
});

export const getReview = query(function* (db, id: string) {
  const { reviews } = db.tables;
  return yield* one(db.select().from(reviews).where(eq(reviews.id, id)));
});

/**
 * Review jobs with no stored review (yet): running, queued, or stopped before they finished
 * (interrupted, failed, cancelled), newest first, so none disappears from the Reviews page.
 */
export const listUnstoredReviewJobs = query(function* (db, { limit = 50 }: { limit?: number } = {}) {
  const { jobs, reviews } = db.tables;
  return yield* all(
    db
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
      .limit(limit),
  );
});
