import { and, eq, sql } from "drizzle-orm";
import type { LiveProgress } from "@/lib/jobs/live";
import { type Op, one, query } from "../op";
import { getJudgesAnswered, getLatestRunSamples, getRunCounters } from "./run-live";

/** A run's counters and the samples finished after `cursor` (a sample id), for live progress. */
export const getRunLive = query(function* (
  db,
  id: string,
  cursor: number = 0,
  limit: number = 20,
): Op<LiveProgress | undefined> {
  const { runs } = db.tables;
  const run = yield* one(
    db
      .select({ status: runs.status, startedAt: runs.startedAt, options: runs.options })
      .from(runs)
      .where(eq(runs.id, id)),
  );
  if (!run) return undefined;
  const p = yield* getRunCounters.body(db, { runId: id });
  const judges = run.options.judges;
  const latest = yield* getLatestRunSamples.body(db, { runId: id, after: cursor, limit });
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
    judgesAnswered: yield* getJudgesAnswered.body(db, { runId: id, judges }),
  };
});

/** An experiment's counters: queries finished of the study's queries. */
export const getExperimentLive = query(function* (db, id: string): Op<LiveProgress | undefined> {
  const { experimentResults, experiments, studyQueries } = db.tables;
  const e = yield* one(
    db
      .select({
        status: experiments.status,
        collection: experiments.collection,
        createdAt: experiments.createdAt,
      })
      .from(experiments)
      .where(eq(experiments.id, id)),
  );
  if (!e) return undefined;
  const done = (yield* one(
    db
      .select({ n: sql<number>`count(*)`, cost: sql<number>`coalesce(sum(${experimentResults.costUsd}), 0)` })
      .from(experimentResults)
      .where(eq(experimentResults.experimentId, id)),
  )) ?? { n: 0, cost: 0 };
  const total =
    (yield* one(
      db
        .select({ n: sql<number>`count(*)` })
        .from(studyQueries)
        .where(eq(studyQueries.collection, e.collection)),
    ))?.n ?? 0;
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
});

/**
 * A review's counters, from its job: calls made of those planned, failed calls, and once it is
 * stored its cost. `error` says why a review stopped unstored (cancelled, interrupted, failed).
 */
export const getReviewLive = query(function* (db, id: string): Op<LiveProgress | undefined> {
  const { jobs, reviews } = db.tables;
  const job = yield* one(
    db
      .select()
      .from(jobs)
      .where(and(eq(jobs.id, id), eq(jobs.kind, "review"))),
  );
  if (!job) return undefined;
  const stored = yield* one(db.select({ record: reviews.record }).from(reviews).where(eq(reviews.id, id)));
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
});

/** An agreement import's or report's job: its counters (files read, then judges computed) and outcome. */
export const getAgreementJobLive = query(function* (db, id: string): Op<LiveProgress | undefined> {
  const { jobs } = db.tables;
  const job = yield* one(
    db
      .select()
      .from(jobs)
      .where(and(eq(jobs.id, id), eq(jobs.kind, "agreement"))),
  );
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
});
