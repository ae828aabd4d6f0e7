import { count, desc, eq, sql } from "drizzle-orm";
import { all, one, query, rows } from "../op";
import type { RunStatus } from "../schema";

export type Overview = {
  runs: number;
  runningRuns: number;
  samples: number;
  memories: number;
  experiments: number;
  reviews: number;
};

/** Counts for the home page, straight from the database. */
export const getOverview = query(function* (db) {
  const { experiments, memories, reviews, runs, samples } = db.tables;
  const n = (r: { n: number } | undefined) => r?.n ?? 0;
  const overview: Overview = {
    runs: n(yield* one(db.select({ n: count() }).from(runs))),
    runningRuns: n(yield* one(db.select({ n: count() }).from(runs).where(eq(runs.status, "running")))),
    samples: n(yield* one(db.select({ n: count() }).from(samples))),
    memories: n(yield* one(db.select({ n: count() }).from(memories))),
    experiments: n(yield* one(db.select({ n: count() }).from(experiments))),
    reviews: n(yield* one(db.select({ n: count() }).from(reviews))),
  };
  return overview;
});

export type RecentRun = {
  id: string;
  suiteName: string;
  status: RunStatus;
  createdAt: Date;
  judges: string[];
  n: number;
  totalTasks: number;
  /** tasks finished (answered or failed) and failed so far */
  finished: number;
  failed: number;
};
export type RecentExperiment = {
  id: string;
  collection: string;
  label: string;
  status: RunStatus;
  createdAt: Date;
};
export type RecentReview = {
  id: string;
  title: string;
  verdict: "pass" | "partial" | "fail";
  score: number | null;
  createdAt: Date;
};
export type RecentActivity = { runs: RecentRun[]; experiments: RecentExperiment[]; reviews: RecentReview[] };

/** The newest runs (with their task progress), retrieval experiments and reviews, newest first. */
export const getRecentActivity = query(function* (db, limit: number = 5) {
  const { experiments, reviews, runs } = db.tables;
  const lastRuns = yield* all(
    db
      .select({
        id: runs.id,
        suiteName: runs.suiteName,
        status: runs.status,
        createdAt: runs.createdAt,
        options: runs.options,
        totalTasks: runs.totalTasks,
      })
      .from(runs)
      .orderBy(desc(runs.createdAt), desc(runs.id))
      .limit(limit),
  );
  const recentRuns: RecentRun[] = [];
  for (const r of lastRuns) {
    const [p] = yield* rows<{ finished: number | null; failed: number | null }>(
      db,
      sql`select sum(case when status != 'pending' then 1 else 0 end) as finished,
                 sum(case when status = 'error' then 1 else 0 end) as failed
          from tasks where run_id = ${r.id}`,
    );
    recentRuns.push({
      id: r.id,
      suiteName: r.suiteName,
      status: r.status,
      createdAt: r.createdAt,
      judges: r.options.judges,
      n: r.options.n,
      totalTasks: r.totalTasks,
      finished: Number(p?.finished ?? 0),
      failed: Number(p?.failed ?? 0),
    });
  }
  const activity: RecentActivity = {
    runs: recentRuns,
    experiments: yield* all(
      db
        .select({
          id: experiments.id,
          collection: experiments.collection,
          label: experiments.label,
          status: experiments.status,
          createdAt: experiments.createdAt,
        })
        .from(experiments)
        .orderBy(desc(experiments.createdAt), desc(experiments.id))
        .limit(limit),
    ),
    reviews: yield* all(
      db
        .select({
          id: reviews.id,
          title: reviews.title,
          verdict: reviews.verdict,
          score: reviews.score,
          createdAt: reviews.createdAt,
        })
        .from(reviews)
        .orderBy(desc(reviews.createdAt), desc(reviews.id))
        .limit(limit),
    ),
  };
  return activity;
});
