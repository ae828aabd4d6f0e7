import { and, asc, desc, eq, gt, isNotNull, isNull, sql } from "drizzle-orm";
import type { LiveSample } from "@/lib/jobs/live";
import type { SqliteDb } from "../client";
import { all, type OpDb, one, query, rows } from "../op";
import type { RunProgress } from "./runs";
import { perConnection } from "./statements";

/**
 * A run's live counters and newest samples at any size, for its page and the progress poll
 * (/api/progress/<id>, every second while it runs): counts from indexes and run_totals, never the
 * samples' rows, and the newest samples by a descending walk of the primary key, not a sort.
 *
 * On SQLite these are prepared statements (the poll's hot path); on PostgreSQL the same queries from
 * the builders, with counts cast to integers by the store's type parsers (db/pg/client.ts).
 */

function statements(db: SqliteDb) {
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
/** The SQLite store's statements (a body given a SQLite store is given the store itself). */
const sqliteStmts = (db: OpDb) => stmts(db as unknown as SqliteDb);

/**
 * getRunProgress's figures (db/queries/runs.ts), read cheaply: a finished run's from run_totals, a
 * live one's counted from the indexes. `costUsd` is every sample's, superseded ones included.
 */
export const getRunCounters = query(function* (db, { runId }: { runId: string }) {
  if (db.engine === "sqlite") {
    const st = sqliteStmts(db);
    const settled = st.settled.get(runId) as { done: number; errors: number; costUsd: number } | undefined;
    if (settled) {
      const total = st.taskCount.get(runId) as number;
      return { total, ...settled, pending: total - settled.done - settled.errors } as RunProgress;
    }
    const t = st.taskCounts.get(runId) as { total: number; done: number; errors: number };
    const costUsd = st.cost.get(runId) as number;
    return { ...t, pending: t.total - t.done - t.errors, costUsd } as RunProgress;
  }
  const { runTotals, tasks, samples } = db.tables;
  const settled = yield* one(
    db
      .select({ done: runTotals.done, errors: runTotals.errors, costUsd: runTotals.costUsd })
      .from(runTotals)
      .where(eq(runTotals.runId, runId)),
  );
  if (settled) {
    const n = yield* one(
      db.select({ total: sql<number>`count(*)` }).from(tasks).where(eq(tasks.runId, runId)),
    );
    const total = n?.total ?? 0;
    return { total, ...settled, pending: total - settled.done - settled.errors } as RunProgress;
  }
  const t = (yield* one(
    db
      .select({
        total: sql<number>`count(*)`,
        done: sql<number>`count(*) filter (where ${tasks.status} = 'done')`,
        errors: sql<number>`count(*) filter (where ${tasks.status} = 'error')`,
      })
      .from(tasks)
      .where(eq(tasks.runId, runId)),
  )) ?? { total: 0, done: 0, errors: 0 };
  const c = yield* one(
    db
      .select({ costUsd: sql<number>`coalesce(sum(${samples.costUsd}), 0)` })
      .from(samples)
      .where(eq(samples.runId, runId)),
  );
  return { ...t, pending: t.total - t.done - t.errors, costUsd: c?.costUsd ?? 0 } as RunProgress;
});

/** A run's newest samples with an id above `after`, newest first, at most `limit`. */
export const getLatestRunSamples = query(function* (
  db,
  { runId, after = 0, limit = 20 }: { runId: string; after?: number; limit?: number },
) {
  if (db.engine === "sqlite") {
    const st = sqliteStmts(db);
    const maxId = st.maxId.get(runId) as number | null;
    if (maxId === null || maxId <= after) return [] as LiveSample[];
    return st.latest.all({ runId, after, maxId, limit }) as LiveSample[];
  }
  const { samples } = db.tables;
  const out: LiveSample[] = yield* all(
    db
      .select({
        id: samples.id,
        caseId: samples.caseId,
        criterionId: samples.criterionId,
        judge: samples.judge,
        sampleIndex: samples.sampleIndex,
        score: samples.score,
        error: samples.error,
      })
      .from(samples)
      .where(and(eq(samples.runId, runId), gt(samples.id, after)))
      .orderBy(desc(samples.id))
      .limit(limit),
  );
  return out;
});

/** Whether a judge of the run has a task done (PostgreSQL; SQLite's is the prepared judgeAnswered). */
function* judgeAnsweredPg(db: OpDb, runId: string, judge: string) {
  const [r] = yield* rows<{ answered: boolean }>(
    db,
    sql`select exists(select 1 from tasks where run_id = ${runId} and status = 'done' and judge = ${judge}) as answered`,
  );
  return r?.answered === true;
}

/**
 * How many of the panel's judges have answered at least one sample (a task done): the judges half
 * of the run's coverage, from the same task counts as its samples (getRunCounters).
 */
export const getJudgesAnswered = query(function* (
  db,
  { runId, judges }: { runId: string; judges: readonly string[] },
) {
  if (db.engine === "sqlite") {
    const st = sqliteStmts(db);
    return judges.filter((j) => st.judgeAnswered.get(runId, j) === 1).length;
  }
  let n = 0;
  for (const j of judges) if (yield* judgeAnsweredPg(db, runId, j)) n++;
  return n;
});

/** A run's current samples, their scores only: what its partial verdicts are computed from while it runs. */
export const getRunScores = query(function* (db, { runId }: { runId: string }) {
  if (db.engine === "sqlite") return sqliteStmts(db).scores.all(runId) as LiveScore[];
  const { samples } = db.tables;
  const out: LiveScore[] = yield* all(
    db
      .select({
        caseId: samples.caseId,
        criterionId: samples.criterionId,
        judge: samples.judge,
        sampleIndex: samples.sampleIndex,
        score: samples.score,
        error: samples.error,
      })
      .from(samples)
      .where(and(eq(samples.runId, runId), isNull(samples.supersededAt)))
      .orderBy(asc(samples.id)),
  );
  return out;
});

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
export const getFailedJudges = query(function* (
  db,
  { runId, judges }: { runId: string; judges: readonly string[] },
) {
  if (db.engine === "sqlite") {
    const st = sqliteStmts(db);
    return judges.flatMap((judge) => {
      if (st.judgeAnswered.get(runId, judge) === 1) return [];
      const message = st.firstError.get(runId, judge) as string | undefined;
      return message ? [{ judge, message }] : [];
    });
  }
  const { samples } = db.tables;
  const out: { judge: string; message: string }[] = [];
  for (const judge of judges) {
    if (yield* judgeAnsweredPg(db, runId, judge)) continue;
    const first = yield* one(
      db
        .select({ error: samples.error })
        .from(samples)
        .where(
          and(
            eq(samples.runId, runId),
            eq(samples.judge, judge),
            isNull(samples.supersededAt),
            isNotNull(samples.error),
          ),
        )
        .orderBy(asc(samples.id))
        .limit(1),
    );
    if (first?.error) out.push({ judge, message: first.error });
  }
  return out;
});
