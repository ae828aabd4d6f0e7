import { count, eq } from "drizzle-orm";
import type { Db } from "../client";
import { runs, samples } from "../schema";

export type Overview = { runs: number; runningRuns: number; samples: number };

/** Counts for the home page, straight from the database. */
export function getOverview(db: Db): Overview {
  const total = db.select({ n: count() }).from(runs).get()?.n ?? 0;
  const running = db.select({ n: count() }).from(runs).where(eq(runs.status, "running")).get()?.n ?? 0;
  const sampleCount = db.select({ n: count() }).from(samples).get()?.n ?? 0;
  return { runs: total, runningRuns: running, samples: sampleCount };
}
