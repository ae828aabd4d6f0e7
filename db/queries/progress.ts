import { and, eq, sql } from "drizzle-orm";
import type { LiveProgress } from "@/lib/jobs/live";
import type { Db } from "../client";
import { experimentResults, experiments, jobs, reviews, runs, studyQueries } from "../schema";
import { getJudgesAnswered, getLatestRunSamples, getRunCounters } from "./run-live";

/** A run's counters and the samples finished after `cursor` (a sample id), for live progress. */
export function getRunLive(db: Db, id: string, cursor = 0, limit = 20): LiveProgress | undefined {
  const run = db
    .select({ status: runs.status, startedAt: runs.startedAt, options: runs.options })
    .from(runs)
    .where(eq(runs.id, id))
    .get();
  if (!run) return undefined;
  const p = getRunCounters(db, { runId: id });
  const judges = run.options.judges;
  const latest = getLatestRunSamples(db, { runId: id, after: cursor, limit });
  return {
    kind: "run",
    status: run.status,
    total: p.total,
    done: p.done,
    errors: p.errors,
    costUsd: p.costUsd,
    startedAt: run.startedAt?.getTime() ?? null,
    latest,
    cursor: latest[0]?.id ?? cursor,
    judgesAsked: judges.length,
    judgesAnswered: getJudgesAnswered(db, { runId: id, judges }),
  };
}

/** An experiment's counters: queries finished of the study's queries. */
export function getExperimentLive(db: Db, id: string): LiveProgress | undefined {
  const e = db
    .select({
      status: experiments.status,
      collection: experiments.collection,
      createdAt: experiments.createdAt,
    })
    .from(experiments)
    .where(eq(experiments.id, id))
    .get();
  if (!e) return undefined;
  const done = db
    .select({ n: sql<number>`count(*)`, cost: sql<number>`coalesce(sum(${experimentResults.costUsd}), 0)` })
    .from(experimentResults)
    .where(eq(experimentResults.experimentId, id))
    .get() ?? { n: 0, cost: 0 };
  const total =
    db
      .select({ n: sql<number>`count(*)` })
      .from(studyQueries)
      .where(eq(studyQueries.collection, e.collection))
      .get()?.n ?? 0;
  return {
    kind: "experiment",
    status: e.status,
    total,
    done: done.n,
    errors: 0,
    costUsd: done.cost,
    startedAt: e.createdAt.getTime(),
    latest: [],
    cursor: 0,
  };
}

/**
 * A review's counters, from its job: calls made of those planned, failed calls, and once it is
 * stored its cost. `error` says why a review stopped unstored (cancelled, interrupted, failed).
 */
export function getReviewLive(db: Db, id: string): LiveProgress | undefined {
  const job = db
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, id), eq(jobs.kind, "review")))
    .get();
  if (!job) return undefined;
  const stored = db.select({ record: reviews.record }).from(reviews).where(eq(reviews.id, id)).get();
  // the heartbeat writes the counters; a stored review's own calls are the final figures
  const calls = stored?.record.calls;
  const done = calls ? calls.length : job.done;
  return {
    kind: "review",
    status: job.status,
    total: Math.max(job.total, done),
    done,
    errors: calls ? calls.filter((c) => c.error !== undefined).length : job.errors,
    costUsd: 0, // a review's cost (or "unpriced") is on its page once stored
    startedAt: job.startedAt?.getTime() ?? null,
    latest: [],
    cursor: 0,
    error: job.error,
    stored: Boolean(stored),
  };
}

/** An agreement import's or report's job: its counters (files read, then judges computed) and outcome. */
export function getAgreementJobLive(db: Db, id: string): LiveProgress | undefined {
  const job = db
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, id), eq(jobs.kind, "agreement")))
    .get();
  if (!job) return undefined;
  return {
    kind: "agreement",
    status: job.status,
    total: job.total,
    // the last heartbeat may precede the last step: a finished job did them all
    done: job.status === "done" ? job.total : job.done,
    errors: job.errors,
    costUsd: 0,
    startedAt: job.startedAt?.getTime() ?? null,
    latest: [],
    cursor: 0,
    error: job.error,
  };
}
