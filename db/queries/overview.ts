import { count, eq } from "drizzle-orm";
import type { Db } from "../client";
import { experiments, memories, reviews, runs, samples } from "../schema";

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
