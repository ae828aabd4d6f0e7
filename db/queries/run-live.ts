import type { LiveSample } from "@/lib/jobs/live";
import type { Db } from "../client";
import type { RunProgress } from "./runs";
import { perConnection } from "./statements";

/**
 * A run's live counters and newest samples at any size, for its page and the progress poll
 * (/api/progress/<id>, every second while it runs): counts from indexes and run_totals, never the
 * samples' rows, and the newest samples by a descending walk of the primary key, not a sort.
 */

function statements(db: Db) {
  const c = db.$client;
  return {
    // migration 0009: a finished run's done and failed counts and cost, kept by triggers
    settled: c.prepare("select done, errors, cost_usd as costUsd from run_totals where run_id = ?"),
    // tasks_run_id_status_idx: no task row is read
    taskCount: c.prepare("select count(*) from tasks where run_id = ?").pluck(),
    taskCounts: c.prepare(
      `select count(*) as total, coalesce(sum(status = 'done'), 0) as done,
              coalesce(sum(status = 'error'), 0) as errors
       from tasks where run_id = ?`,
    ),
    // samples_run_id_case_id_idx ends with cost_usd: no sample row is read
    cost: c.prepare("select coalesce(sum(cost_usd), 0) from samples where run_id = ?").pluck(),
    // tasks_run_id_status_idx: the first done task of the judge ends the walk
    judgeAnswered: c
      .prepare("select exists(select 1 from tasks where run_id = ? and status = 'done' and judge = ?)")
      .pluck(),
    // a live run's current scores in the order finalizeRun reads them, for its partial verdicts
    scores: c.prepare(
      `select case_id as caseId, criterion_id as criterionId, judge, sample_index as sampleIndex,
              score, error
       from samples where run_id = ? and superseded_at is null order by id`,
    ),
    firstError: c
      .prepare(
        `select error from samples where run_id = ? and judge = ? and superseded_at is null and error is not null
         order by id limit 1`,
      )
      .pluck(),
    maxId: c.prepare("select max(id) from samples where run_id = ?").pluck(),
    // `+run_id`: walk the primary key down from the run's newest sample instead of sorting its index
    latest: c.prepare(
      `select id, case_id as caseId, criterion_id as criterionId, judge, sample_index as sampleIndex,
              score, error
       from samples where id > @after and id <= @maxId and +run_id = @runId
       order by id desc limit @limit`,
    ),
  };
}
const stmts = perConnection(statements);

/**
 * getRunProgress's figures (db/queries/runs.ts), read cheaply: a finished run's from run_totals, a
 * live one's counted from the indexes. `costUsd` is every sample's, superseded ones included.
 */
export function getRunCounters(db: Db, { runId }: { runId: string }): RunProgress {
  const st = stmts(db);
  const settled = st.settled.get(runId) as { done: number; errors: number; costUsd: number } | undefined;
  if (settled) {
    const total = st.taskCount.get(runId) as number;
    return { total, ...settled, pending: total - settled.done - settled.errors };
  }
  const t = st.taskCounts.get(runId) as { total: number; done: number; errors: number };
  const costUsd = st.cost.get(runId) as number;
  return { ...t, pending: t.total - t.done - t.errors, costUsd };
}

/** A run's newest samples with an id above `after`, newest first, at most `limit`. */
export function getLatestRunSamples(
  db: Db,
  { runId, after = 0, limit = 20 }: { runId: string; after?: number; limit?: number },
): LiveSample[] {
  const st = stmts(db);
  const maxId = st.maxId.get(runId) as number | null;
  if (maxId === null || maxId <= after) return [];
  return st.latest.all({ runId, after, maxId, limit }) as LiveSample[];
}

/**
 * How many of the panel's judges have answered at least one sample (a task done): the judges half
 * of the run's coverage, from the same task counts as its samples (getRunCounters).
 */
export function getJudgesAnswered(
  db: Db,
  { runId, judges }: { runId: string; judges: readonly string[] },
): number {
  const st = stmts(db);
  return judges.filter((j) => st.judgeAnswered.get(runId, j) === 1).length;
}

/** A run's current samples, their scores only: what its partial verdicts are computed from while it runs. */
export function getRunScores(db: Db, { runId }: { runId: string }): LiveScore[] {
  return stmts(db).scores.all(runId) as LiveScore[];
}

export type LiveScore = {
  caseId: string;
  criterionId: string;
  judge: string;
  sampleIndex: number;
  score: number | null;
  error: string | null;
};

/**
 * The judges of a run that answered none of their samples and failed at least one, with their first
 * error message: the run form leaves them unticked next time (lib/runs/form-memory.ts).
 */
export function getFailedJudges(
  db: Db,
  { runId, judges }: { runId: string; judges: readonly string[] },
): { judge: string; message: string }[] {
  const st = stmts(db);
  return judges.flatMap((judge) => {
    if (st.judgeAnswered.get(runId, judge) === 1) return [];
    const message = st.firstError.get(runId, judge) as string | undefined;
    return message ? [{ judge, message }] : [];
  });
}
