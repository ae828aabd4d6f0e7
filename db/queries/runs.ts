import { and, asc, desc, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import type { CaseCriterion } from "@/lib/runs/plan-run";
import type { AnyDb, PgDb, SqliteDb } from "../client";
import { all, type Op, one, query, rows, tx, write } from "../op";
import { type PgSampleRow, pgRecordSamples } from "../pg/hot-path";
import type { NewSample, RunOptions, RunStatus, results, SupersededReason } from "../schema";
import { requestJobCancel } from "./jobs";
import { perConnection } from "./statements";

export type NewRunPlan = {
  id: string;
  suitePath: string;
  suiteName: string;
  options: RunOptions;
  cases: {
    caseId: string;
    name: string;
    input: Record<string, unknown>;
    output: string;
    criteria: CaseCriterion[];
  }[];
  tasks: { key: string; caseId: string; criterionId: string; judge: string; sampleIndex: number }[];
  /** who started it (a user's name, "local", "<os user> (cli)"); absent: not known */
  createdBy?: string | null;
};

/** Inserts a run with its case snapshots and task rows in one transaction. */
export const insertRun = query(function* (db, plan: NewRunPlan): Op<void> {
  yield* tx(db, function* (t) {
    const { runs, runCases, tasks } = t.tables;
    yield* write(
      t.insert(runs).values({
        id: plan.id,
        suitePath: plan.suitePath,
        suiteName: plan.suiteName,
        options: plan.options,
        totalTasks: plan.tasks.length,
        createdBy: plan.createdBy ?? null,
      }),
    );
    for (const c of plan.cases) yield* write(t.insert(runCases).values({ runId: plan.id, ...c }));
    for (let i = 0; i < plan.tasks.length; i += 500) {
      yield* write(
        t.insert(tasks).values(plan.tasks.slice(i, i + 500).map((k) => ({ runId: plan.id, ...k }))),
      );
    }
  });
});

export const getRunById = query(function* (db, { id }: { id: string }) {
  const { runs } = db.tables;
  return yield* one(db.select().from(runs).where(eq(runs.id, id)));
});

export const listRuns = query(function* (db, { limit = 100 }: { limit?: number } = {}) {
  const { runs } = db.tables;
  return yield* all(db.select().from(runs).orderBy(desc(runs.createdAt)).limit(limit));
});

export const getRunCases = query(function* (db, { runId }: { runId: string }) {
  const { runCases } = db.tables;
  return yield* all(
    db.select().from(runCases).where(eq(runCases.runId, runId)).orderBy(asc(runCases.caseId)),
  );
});

export const getPendingTasks = query(function* (db, { runId }: { runId: string }) {
  const { tasks } = db.tables;
  return yield* all(
    db
      .select()
      .from(tasks)
      .where(and(eq(tasks.runId, runId), eq(tasks.status, "pending")))
      .orderBy(asc(tasks.id)),
  );
});

/** A run's current samples: one per finished task (superseded ones are left out: they are history). */
export const getRunSamples = query(function* (db, { runId }: { runId: string }) {
  const { samples } = db.tables;
  return yield* all(
    db
      .select()
      .from(samples)
      .where(and(eq(samples.runId, runId), isNull(samples.supersededAt)))
      .orderBy(asc(samples.id)),
  );
});

/** Every sample a run stored, the superseded ones (retried, re-sampled) included; optionally one item's. */
export const getRunSampleHistory = query(function* (
  db,
  { runId, caseId, criterionId }: { runId: string; caseId?: string; criterionId?: string },
) {
  const { samples } = db.tables;
  return yield* all(
    db
      .select()
      .from(samples)
      .where(
        and(
          eq(samples.runId, runId),
          caseId === undefined ? undefined : eq(samples.caseId, caseId),
          criterionId === undefined ? undefined : eq(samples.criterionId, criterionId),
        ),
      )
      .orderBy(asc(samples.id)),
  );
});

export const getSampleById = query(function* (db, { runId, id }: { runId: string; id: number }) {
  const { samples } = db.tables;
  return yield* one(
    db
      .select()
      .from(samples)
      .where(and(eq(samples.runId, runId), eq(samples.id, id))),
  );
});

export type RequeueOutcome =
  | { ok: true; requeued: number }
  | { ok: false; reason: "no_run" | "live" | "nothing"; status?: string };

/**
 * Puts finished samples' tasks back to work: each current sample given (by id, of this run) is kept
 * and marked superseded (`reason`), its task goes back to pending (`fresh`: its next call skips the
 * response cache), and the run is queued again. One transaction; refused while the run is queued or
 * running (its owner would race the new work), and when none of the samples is current.
 */
export const requeueSamples = query(function* (
  db,
  {
    runId,
    sampleIds,
    reason,
    fresh,
    now = new Date(),
  }: { runId: string; sampleIds: number[]; reason: SupersededReason; fresh: boolean; now?: Date },
): Op<RequeueOutcome> {
  return yield* tx(db, function* (t): Op<RequeueOutcome> {
    const { runs, samples, tasks } = t.tables;
    const run = yield* one(t.select({ status: runs.status }).from(runs).where(eq(runs.id, runId)));
    if (!run) return { ok: false, reason: "no_run" };
    if (run.status === "queued" || run.status === "running")
      return { ok: false, reason: "live", status: run.status };
    let requeued = 0;
    for (let i = 0; i < sampleIds.length; i += 500) {
      const marked = yield* all(
        t
          .update(samples)
          .set({ supersededAt: now, supersededReason: reason })
          .where(
            and(
              eq(samples.runId, runId),
              inArray(samples.id, sampleIds.slice(i, i + 500)),
              isNull(samples.supersededAt),
            ),
          )
          .returning({ taskId: samples.taskId }),
      );
      if (marked.length === 0) continue;
      yield* write(
        t
          .update(tasks)
          .set({ status: "pending", fresh })
          .where(
            and(
              eq(tasks.runId, runId),
              inArray(
                tasks.id,
                marked.map((m) => m.taskId),
              ),
            ),
          ),
      );
      requeued += marked.length;
    }
    if (requeued === 0) return { ok: false, reason: "nothing" };
    yield* write(
      t
        .update(runs)
        .set({ status: "queued", error: null, finishedAt: null, cancelRequested: false })
        .where(eq(runs.id, runId)),
    );
    return { ok: true, requeued };
  });
});

export const getRunResults = query(function* (db, { runId }: { runId: string }) {
  const { results } = db.tables;
  return yield* all(db.select().from(results).where(eq(results.runId, runId)));
});

export const getRunTasks = query(function* (db, { runId }: { runId: string }) {
  const { tasks } = db.tables;
  return yield* all(db.select().from(tasks).where(eq(tasks.runId, runId)));
});

/** `costUsd`: every call the run paid for, superseded (retried, re-sampled) samples included. */
export type RunProgress = { total: number; done: number; errors: number; pending: number; costUsd: number };

export const getRunProgress = query(function* (db, { runId }: { runId: string }): Op<RunProgress> {
  const { tasks, samples } = db.tables;
  const row = yield* one(
    db
      .select({
        total: sql<number>`count(*)`,
        done: sql<number>`coalesce(sum(case when ${tasks.status} = 'done' then 1 else 0 end), 0)`,
        errors: sql<number>`coalesce(sum(case when ${tasks.status} = 'error' then 1 else 0 end), 0)`,
      })
      .from(tasks)
      .where(eq(tasks.runId, runId)),
  );
  const cost = yield* one(
    db
      .select({ c: sql<number>`coalesce(sum(${samples.costUsd}), 0)` })
      .from(samples)
      .where(eq(samples.runId, runId)),
  );
  const total = row?.total ?? 0;
  const done = row?.done ?? 0;
  const errors = row?.errors ?? 0;
  return { total, done, errors, pending: total - done - errors, costUsd: cost?.c ?? 0 };
});

export const setRunStatus = query(function* (
  db,
  {
    id,
    status,
    error,
    ownerPid,
  }: { id: string; status: RunStatus; error?: string | null; ownerPid?: number | null },
): Op<void> {
  const { runs } = db.tables;
  const now = new Date();
  const finished = status !== "running" && status !== "queued";
  yield* write(
    db
      .update(runs)
      .set({
        status,
        ...(error !== undefined ? { error } : {}),
        ...(ownerPid !== undefined ? { ownerPid } : {}),
        ...(status === "running" ? { startedAt: now, finishedAt: null, cancelRequested: false } : {}),
        ...(finished ? { finishedAt: now } : {}),
      })
      .where(eq(runs.id, id)),
  );
});

/**
 * Adds the AI SDK's warnings seen while the run worked to those its options already record (a
 * resumed run keeps the earlier ones), each once.
 */
export const addRunProviderWarnings = query(function* (
  db,
  { id, warnings }: { id: string; warnings: string[] },
): Op<void> {
  if (warnings.length === 0) return;
  yield* tx(db, function* (t) {
    const { runs } = t.tables;
    const row = yield* one(t.select({ options: runs.options }).from(runs).where(eq(runs.id, id)));
    if (!row) return;
    const merged = [...new Set([...(row.options.providerWarnings ?? []), ...warnings])];
    yield* write(
      t
        .update(runs)
        .set({ options: { ...row.options, providerWarnings: merged } })
        .where(eq(runs.id, id)),
    );
  });
});

/**
 * Asks the run's owner to stop: it sees the request on its job row at its next heartbeat (the run and
 * its job row are marked in one transaction; every worker on the run reads the job row).
 */
export const requestCancel = query(function* (db, { id }: { id: string }): Op<boolean> {
  return yield* tx(db, function* (t) {
    const { runs } = t.tables;
    const r = yield* write(
      t
        .update(runs)
        .set({ cancelRequested: true })
        .where(and(eq(runs.id, id), inArray(runs.status, ["queued", "running"]))),
    );
    if (r.changes === 0) return false;
    yield* requestJobCancel.body(t, { id });
    return true;
  });
});

/** Runs marked running whose owning process is gone become "interrupted" (they can be resumed). */
export const markInterruptedRuns = query(function* (db, isAlive: (pid: number) => boolean): Op<number> {
  const { runs } = db.tables;
  const stuck = yield* all(
    db
      .select({ id: runs.id, pid: runs.ownerPid })
      .from(runs)
      .where(inArray(runs.status, ["running", "queued"])),
  );
  let n = 0;
  for (const r of stuck) {
    if (r.pid !== null && isAlive(r.pid)) continue;
    if (r.pid === null) continue; // queued, not yet picked up
    yield* setRunStatus.body(db, {
      id: r.id,
      status: "interrupted",
      error: "The process running it stopped before it finished; resume it.",
    });
    n++;
  }
  return n;
});

export const replaceResults = query(function* (
  db,
  runId: string,
  resultRows: (typeof results.$inferInsert)[],
): Op<void> {
  yield* tx(db, function* (t) {
    const { results } = t.tables;
    yield* write(t.delete(results).where(eq(results.runId, runId)));
    for (const r of resultRows) yield* write(t.insert(results).values(r));
  });
});

/** Hot-path statements, prepared once per connection. */
function statements(db: SqliteDb) {
  const c = db.$client;
  const st = {
    insertSample: c.prepare(
      `insert into samples (task_id, run_id, case_id, criterion_id, judge, sample_index, score, reasoning, raw_text,
        latency_ms, input_tokens, output_tokens, cost_usd, attempts, cached, error, request_key, created_at,
        cache_read_tokens, cache_write_tokens, reasoning_tokens, cache_saved_usd, batched)
       values (@taskId, @runId, @caseId, @criterionId, @judge, @sampleIndex, @score, @reasoning, @rawText,
        @latencyMs, @inputTokens, @outputTokens, @costUsd, @attempts, @cached, @error, @requestKey, @createdAt,
        @cacheReadTokens, @cacheWriteTokens, @reasoningTokens, @cacheSavedUsd, @batched)`,
    ),
    finishTask: c.prepare("update tasks set status = ? where id = ? and status = 'pending'"),
    getCache: c.prepare(
      "select text, input_tokens as inputTokens, output_tokens as outputTokens from response_cache where key = ?",
    ),
    putCache: c.prepare(
      "insert into response_cache (key, text, input_tokens, output_tokens, created_at) values (?, ?, ?, ?, ?) on conflict(key) do nothing",
    ),
  };
  // one commit per judgment: the sample, its task's status and the cached response together
  const recordOne = (s: SampleWrite, cache?: CacheWrite): boolean => {
    // a sample with no score failed (as coverage counts it), error or not: the task's count agrees
    const failed = Boolean(s.error) || s.score === null;
    if (st.finishTask.run(failed ? "error" : "done", s.taskId).changes === 0) return false;
    st.insertSample.run({
      ...s,
      cached: s.cached ? 1 : 0,
      requestKey: s.requestKey ?? null,
      createdAt: Date.now(),
      cacheReadTokens: s.cacheReadTokens ?? 0,
      cacheWriteTokens: s.cacheWriteTokens ?? 0,
      reasoningTokens: s.reasoningTokens ?? 0,
      cacheSavedUsd: s.cacheSavedUsd ?? 0,
      batched: s.batched ? 1 : 0,
    });
    if (cache) st.putCache.run(cache.key, cache.text, cache.inputTokens, cache.outputTokens, Date.now());
    return true;
  };
  const record = c.transaction(recordOne);
  // several judgments in one commit, each with its task's status and its cached response
  const recordMany = c.transaction((items: readonly SampleRecord[]): boolean[] =>
    items.map((i) => recordOne(i.sample, i.cache)),
  );
  return { ...st, record, recordMany };
}
const stmts = perConnection(statements);

/** What the prompt cache and the batch API add to a sample: absent, none of either. */
type CostDetail = "cacheReadTokens" | "cacheWriteTokens" | "reasoningTokens" | "cacheSavedUsd" | "batched";

export type SampleWrite = Required<
  Omit<NewSample, "id" | "createdAt" | "requestKey" | "supersededAt" | "supersededReason" | CostDetail>
> &
  Partial<Pick<NewSample, CostDetail>> & {
    /** the request's hash (lib/runs/cache-key.ts), for a model call: the call inspector checks its rebuild against it */
    requestKey?: string | null;
  };
type CacheWrite = { key: string; text: string; inputTokens: number; outputTokens: number };

/** A sample's row as stored (PostgreSQL's path; SQLite's prepared statement writes the same columns). */
function sampleRow(s: SampleWrite) {
  return {
    taskId: s.taskId,
    runId: s.runId,
    caseId: s.caseId,
    criterionId: s.criterionId,
    judge: s.judge,
    sampleIndex: s.sampleIndex,
    score: s.score,
    reasoning: s.reasoning,
    rawText: s.rawText,
    latencyMs: s.latencyMs,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    costUsd: s.costUsd,
    attempts: s.attempts,
    cached: Boolean(s.cached),
    error: s.error,
    requestKey: s.requestKey ?? null,
    createdAt: new Date(),
    cacheReadTokens: s.cacheReadTokens ?? 0,
    cacheWriteTokens: s.cacheWriteTokens ?? 0,
    reasoningTokens: s.reasoningTokens ?? 0,
    cacheSavedUsd: s.cacheSavedUsd ?? 0,
    batched: Boolean(s.batched),
  };
}

/**
 * Records a finished task: its sample row and the task's status, in one transaction. A task that
 * is no longer pending (a duplicate completion) writes nothing: exactly one sample per task.
 */
export function recordSample(db: SqliteDb, s: SampleWrite, cache?: CacheWrite): boolean;
export function recordSample(db: PgDb, s: SampleWrite, cache?: CacheWrite): Promise<boolean>;
export function recordSample(db: AnyDb, s: SampleWrite, cache?: CacheWrite): boolean | Promise<boolean>;
export function recordSample(db: AnyDb, s: SampleWrite, cache?: CacheWrite): boolean | Promise<boolean> {
  // PostgreSQL: one prepared statement (db/pg/hot-path.ts); SQLite: the statements above, in one transaction
  if (db.engine === "pg") return pgRecordSamples(db, [pgSampleRow({ sample: s, cache })]).then(([w]) => w);
  return stmts(db as SqliteDb).record(s, cache);
}

export type SampleRecord = { sample: SampleWrite; cache?: CacheWrite };

/**
 * Records several finished tasks in one commit (each as recordSample does); says for each whether it
 * was written. If the commit fails, nothing of it is stored and the error is thrown.
 */
export function recordSamples(db: SqliteDb, items: readonly SampleRecord[]): boolean[];
export function recordSamples(db: PgDb, items: readonly SampleRecord[]): Promise<boolean[]>;
export function recordSamples(db: AnyDb, items: readonly SampleRecord[]): boolean[] | Promise<boolean[]>;
export function recordSamples(db: AnyDb, items: readonly SampleRecord[]): boolean[] | Promise<boolean[]> {
  // PostgreSQL: one prepared statement, one round trip (db/pg/hot-path.ts); SQLite: the statements above
  if (db.engine === "pg")
    return items.length === 0 ? Promise.resolve([]) : pgRecordSamples(db, items.map(pgSampleRow));
  return stmts(db as SqliteDb).recordMany(items);
}

/** A judgment as PostgreSQL's hot path takes it (the same columns as sampleRow, and its task's status). */
function pgSampleRow({ sample, cache }: SampleRecord): PgSampleRow {
  const failed = Boolean(sample.error) || sample.score === null;
  return { ...sampleRow(sample), status: failed ? "error" : "done", cache };
}

export const getCachedResponse = query(function* (
  db,
  key: string,
): Op<{ text: string; inputTokens: number; outputTokens: number } | undefined> {
  if (db.engine === "sqlite")
    return stmts(db as unknown as SqliteDb).getCache.get(key) as
      | { text: string; inputTokens: number; outputTokens: number }
      | undefined;
  const { responseCache } = db.tables;
  return yield* one(
    db
      .select({
        text: responseCache.text,
        inputTokens: responseCache.inputTokens,
        outputTokens: responseCache.outputTokens,
      })
      .from(responseCache)
      .where(eq(responseCache.key, key)),
  );
});

export type RunTotals = { done: number; errors: number; costUsd: number };

/** The judges with a live call, in order (a recursive CTE both engines run the same way). */
const LIVE_JUDGES = `with recursive j(judge) as (
           select min(judge) from samples where cached = 0 and error is null and judge != 'deterministic'
           union all
           select (select min(judge) from samples
                   where cached = 0 and error is null and judge != 'deterministic' and judge > j.judge)
           from j where j.judge is not null)
         select judge from j where judge is not null`;

/** The runs list's statements (migration 0009's run_totals and indexes), prepared once per connection. */
function listStatements(db: SqliteDb) {
  const c = db.$client;
  return {
    settled: c.prepare("select run_id as runId, done, errors, cost_usd as costUsd from run_totals"),
    unsettled: c.prepare("select id from runs where id not in (select run_id from run_totals)").pluck(),
    // from a covering index of tasks (run_id, status…) and samples_run_id_case_id_idx (with cost_usd): no task or sample row is read
    live: c.prepare(
      `select count(*) as n,
              coalesce(sum(status = 'done'), 0) as done,
              coalesce(sum(status = 'error'), 0) as errors,
              (select coalesce(sum(cost_usd), 0) from samples where run_id = @id) as costUsd
       from tasks where run_id = @id`,
    ),
    // the judges with a live call: one index seek each (samples_judge_live_idx), not a scan
    liveJudges: c.prepare(LIVE_JUDGES).pluck(),
    latestLatencies: c
      .prepare(
        `select latency_ms from samples
         where judge = ? and cached = 0 and error is null and judge != 'deterministic'
         order by id desc limit ?`,
      )
      .pluck(),
  };
}
const listStmts = perConnection(listStatements);

/**
 * Finished-task counts and cost (every sample's, superseded ones included) of every run that has
 * tasks, for the runs list. A finished run's come from run_totals (kept by migration 0009's triggers);
 * a live one's (queued, running, or written to since it finished) are counted now from the indexes,
 * so the cost is that of the live runs, not of every sample in the database.
 */
export const getProgressByRun = query(function* (db): Op<Map<string, RunTotals>> {
  const out = new Map<string, RunTotals>();
  if (db.engine === "sqlite") {
    const st = listStmts(db as unknown as SqliteDb);
    for (const r of st.settled.all() as ({ runId: string } & RunTotals)[])
      out.set(r.runId, { done: r.done, errors: r.errors, costUsd: r.costUsd });
    for (const id of st.unsettled.all() as string[]) {
      const r = st.live.get({ id }) as { n: number } & RunTotals;
      if (r.n > 0) out.set(id, { done: r.done, errors: r.errors, costUsd: r.costUsd });
    }
    return out;
  }
  // PostgreSQL: the live runs' counts in one statement, not one round trip per run
  const settled = yield* rows<{ runId: string } & RunTotals>(
    db,
    sql`select run_id as "runId", done, errors, cost_usd as "costUsd" from run_totals order by run_id`,
  );
  for (const r of settled) out.set(r.runId, { done: r.done, errors: r.errors, costUsd: r.costUsd });
  const live = yield* rows<{ runId: string; n: number } & RunTotals>(
    db,
    sql`select r.id as "runId", x.n, x.done, x.errors,
               (select coalesce(sum(cost_usd), 0) from samples where run_id = r.id) as "costUsd"
        from runs r
        cross join lateral (
          select count(*) as n,
                 coalesce(sum(case when status = 'done' then 1 else 0 end), 0) as done,
                 coalesce(sum(case when status = 'error' then 1 else 0 end), 0) as errors
          from tasks where run_id = r.id) x
        where r.id not in (select run_id from run_totals)
        order by r.id`,
  );
  for (const r of live) if (r.n > 0) out.set(r.runId, { done: r.done, errors: r.errors, costUsd: r.costUsd });
  return out;
});

/** How many of a judge's latest live calls its median latency is taken over. */
export const LATENCY_WINDOW = 500;

/**
 * Median latency of each judge's latest `window` live (uncached, successful) calls, for time
 * estimates: the upper median (of an even count, the higher middle value). Read newest first from
 * samples_judge_live_idx, so it costs the same at any number of samples.
 */
export const getMedianLatencyByJudge = query(function* (
  db,
  { window = LATENCY_WINDOW }: { window?: number } = {},
): Op<Record<string, number>> {
  const out: Record<string, number> = {};
  if (db.engine === "sqlite") {
    const st = listStmts(db as unknown as SqliteDb);
    for (const judge of st.liveJudges.all() as string[]) {
      const xs = (st.latestLatencies.all(judge, window) as number[]).sort((a, b) => a - b);
      out[judge] = xs[Math.floor(xs.length / 2)];
    }
    return out;
  }
  const judges = yield* rows<{ judge: string }>(db, sql.raw(LIVE_JUDGES));
  const { samples } = db.tables;
  for (const { judge } of judges) {
    const latest = yield* all(
      db
        .select({ ms: samples.latencyMs })
        .from(samples)
        .where(
          and(
            eq(samples.judge, judge),
            eq(samples.cached, false),
            isNull(samples.error),
            ne(samples.judge, "deterministic"),
          ),
        )
        .orderBy(desc(samples.id))
        .limit(window),
    );
    const xs = latest.map((r) => r.ms).sort((a, b) => a - b);
    out[judge] = xs[Math.floor(xs.length / 2)];
  }
  return out;
});

/** What a run's current samples cost and what the provider's prompt cache and batch APIs did for it. */
export type RunCostRow = {
  /** model calls made (answers from Jury's own response cache and deterministic checks aside) */
  calls: number;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  cacheSavedUsd: number;
  batchedCalls: number;
};

export const getRunCost = query(function* (db, { runId }: { runId: string }): Op<RunCostRow> {
  if (db.engine === "sqlite") {
    const row = (db as unknown as SqliteDb).$client
      .prepare(
        `select count(*) as calls, coalesce(sum(cost_usd), 0) as costUsd,
        coalesce(sum(input_tokens), 0) as inputTokens, coalesce(sum(output_tokens), 0) as outputTokens,
        coalesce(sum(cache_read_tokens), 0) as cacheReadTokens,
        coalesce(sum(cache_write_tokens), 0) as cacheWriteTokens,
        coalesce(sum(reasoning_tokens), 0) as reasoningTokens,
        coalesce(sum(cache_saved_usd), 0) as cacheSavedUsd, coalesce(sum(batched), 0) as batchedCalls
       from samples where run_id = ? and superseded_at is null and cached = 0 and judge != 'deterministic'`,
      )
      .get(runId) as RunCostRow;
    return row;
  }
  const [row] = yield* rows<RunCostRow>(
    db,
    sql`select count(*) as "calls", coalesce(sum(cost_usd), 0) as "costUsd",
        coalesce(sum(input_tokens), 0) as "inputTokens", coalesce(sum(output_tokens), 0) as "outputTokens",
        coalesce(sum(cache_read_tokens), 0) as "cacheReadTokens",
        coalesce(sum(cache_write_tokens), 0) as "cacheWriteTokens",
        coalesce(sum(reasoning_tokens), 0) as "reasoningTokens",
        coalesce(sum(cache_saved_usd), 0) as "cacheSavedUsd", coalesce(sum(batched), 0) as "batchedCalls"
       from samples where run_id = ${runId} and superseded_at is null and cached = 0 and judge != 'deterministic'`,
  );
  return row;
});
