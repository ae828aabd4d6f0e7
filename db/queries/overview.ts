import { count, desc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { experiments, memories, type RunStatus, reviews, runs, samples } from "../schema";

export type Overview = {
  runs: number;
  runningRuns: number;
  samples: number;
  memories: number;
  experiments: number;
  reviews: number;
};

/** Counts for the home page, straight from the database. */
export function getOverview(db: Db): Overview {
  const n = (q: { get(): { n: number } | undefined }) => q.get()?.n ?? 0;
  return {
    runs: n(db.select({ n: count() }).from(runs)),
    runningRuns: n(db.select({ n: count() }).from(runs).where(eq(runs.status, "running"))),
    samples: n(db.select({ n: count() }).from(samples)),
    memories: n(db.select({ n: count() }).from(memories)),
    experiments: n(db.select({ n: count() }).from(experiments)),
    reviews: n(db.select({ n: count() }).from(reviews)),
  };
}

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
export function getRecentActivity(db: Db, limit = 5): RecentActivity {
  const lastRuns = db
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
    .limit(limit)
    .all();
  const progress = db.$client.prepare(
    `select sum(case when status != 'pending' then 1 else 0 end) as finished,
            sum(case when status = 'error' then 1 else 0 end) as failed
     from tasks where run_id = ?`,
  );
  return {
    runs: lastRuns.map((r) => {
      const p = progress.get(r.id) as { finished: number | null; failed: number | null };
      return {
        id: r.id,
        suiteName: r.suiteName,
        status: r.status,
        createdAt: r.createdAt,
        judges: r.options.judges,
        n: r.options.n,
        totalTasks: r.totalTasks,
        finished: p.finished ?? 0,
        failed: p.failed ?? 0,
      };
    }),
    experiments: db
      .select({
        id: experiments.id,
        collection: experiments.collection,
        label: experiments.label,
        status: experiments.status,
        createdAt: experiments.createdAt,
      })
      .from(experiments)
      .orderBy(desc(experiments.createdAt), desc(experiments.id))
      .limit(limit)
      .all(),
    reviews: db
      .select({
        id: reviews.id,
        title: reviews.title,
        verdict: reviews.verdict,
        score: reviews.score,
        createdAt: reviews.createdAt,
      })
      .from(reviews)
      .orderBy(desc(reviews.createdAt), desc(reviews.id))
      .limit(limit)
      .all(),
  };
}
