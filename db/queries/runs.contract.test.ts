import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CriterionVerdict } from "@/lib/judging/aggregate";
import type { CaseCriterion } from "@/lib/runs/plan-run";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { constraintViolated, one, query, write } from "../op";
import type { RunOptions, RunStatus } from "../schema";
import {
  addRunProviderWarnings,
  getCachedResponse,
  getMedianLatencyByJudge,
  getPendingTasks,
  getProgressByRun,
  getRunById,
  getRunCases,
  getRunCost,
  getRunProgress,
  getRunResults,
  getRunSampleHistory,
  getRunSamples,
  getRunTasks,
  getSampleById,
  insertRun,
  LATENCY_WINDOW,
  listRuns,
  markInterruptedRuns,
  type NewRunPlan,
  recordSample,
  recordSamples,
  replaceResults,
  requestCancel,
  requeueSamples,
  type SampleWrite,
  setRunStatus,
} from "./runs";

/**
 * Every query of db/queries/runs.ts on each store: the same calls, the same expected answers (computed
 * here, never read back from one engine to check the other), so SQLite's behaviour is the contract
 * PostgreSQL is held to.
 */

const OPTIONS: RunOptions = {
  judges: ["local:a", "openai:gpt-ä"],
  n: 2,
  temperature: 0.5,
  concurrency: 4,
  noCache: false,
  criterionJudges: { "z-first": ["b"], "a-second": ["a"] }, // key order kept
};

const criterion = (id: string): CaseCriterion => ({
  id,
  type: "llm",
  scale: [0, 1],
  threshold: 0.5,
  params: { rubric: `rubric ${id}`, nested: { list: [1, 2.5, null] } },
});

/** A run's plan: cases "c-b" and "c-a" (stored in that order, read back sorted), `tasks` tasks. */
function plan(id: string, taskCount = 4): NewRunPlan {
  return {
    id,
    suitePath: `suites/${id}.json`,
    suiteName: `suite ${id}`,
    options: OPTIONS,
    cases: [
      { caseId: "c-b", name: "B", input: { q: "ü?", n: 2 }, output: "out b", criteria: [criterion("k1")] },
      { caseId: "c-a", name: "A", input: {}, output: "", criteria: [criterion("k1"), criterion("k2")] },
    ],
    tasks: Array.from({ length: taskCount }, (_, i) => ({
      key: `t${i}`,
      caseId: i % 2 === 0 ? "c-a" : "c-b",
      criterionId: "k1",
      judge: i % 2 === 0 ? "local:a" : "openai:gpt-ä",
      sampleIndex: Math.floor(i / 2),
    })),
  };
}

/** A sample for a task, with everything a judge call records. */
function sample(
  task: {
    id: number;
    runId: string;
    caseId: string;
    criterionId: string;
    judge: string;
    sampleIndex: number;
  },
  extra: Partial<SampleWrite> = {},
): SampleWrite {
  return {
    taskId: task.id,
    runId: task.runId,
    caseId: task.caseId,
    criterionId: task.criterionId,
    judge: task.judge,
    sampleIndex: task.sampleIndex,
    score: 0.75,
    reasoning: "because",
    rawText: '{"score":0.75}',
    latencyMs: 120,
    inputTokens: 100,
    outputTokens: 20,
    costUsd: 0.25,
    attempts: 1,
    cached: false,
    error: null,
    ...extra,
  };
}

const verdict = (criterionId: string, score: number): CriterionVerdict =>
  ({
    criterion_id: criterionId,
    criterion_type: "llm",
    model_results: { "local:a": { scores: [score] } },
    final_score: score,
    passed: score >= 0.5,
    note: "ü 😀",
  }) as unknown as CriterionVerdict;

// test-only queries: what the functions under test do not set or read
const setCreatedAt = query(function* (db, id: string, at: Date) {
  const { runs } = db.tables;
  yield* write(db.update(runs).set({ createdAt: at }).where(eq(runs.id, id)));
});
const setRunRow = query(function* (
  db,
  id: string,
  set: { status?: RunStatus; ownerPid?: number | null; error?: string | null },
) {
  const { runs } = db.tables;
  yield* write(db.update(runs).set(set).where(eq(runs.id, id)));
});
const insertJob = query(function* (db, id: string, status: "queued" | "running" | "done") {
  yield* write(db.insert(db.tables.jobs).values({ id, kind: "run", status }));
});
const jobCancelRequested = query(function* (db, id: string) {
  const { jobs } = db.tables;
  return (yield* one(db.select({ c: jobs.cancelRequested }).from(jobs).where(eq(jobs.id, id))))?.c;
});

describe.each(storeKinds())("db/queries/runs.ts on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  /** inserts a run and returns its tasks, in the order of their ids (getRunTasks promises no order) */
  async function seed(id: string, taskCount = 4) {
    await insertRun(store.db, plan(id, taskCount));
    return (await getRunTasks(store.db, { runId: id })).sort((a, b) => a.id - b.id);
  }

  it("insertRun stores the run, its case snapshots and its tasks; the getters read them back", async () => {
    const before = Date.now();
    const tasks = await seed("r1");
    const run = await getRunById(store.db, { id: "r1" });
    expect(run).toMatchObject({
      id: "r1",
      suitePath: "suites/r1.json",
      suiteName: "suite r1",
      status: "queued",
      totalTasks: 4,
      error: null,
      ownerPid: null,
      cancelRequested: false,
      startedAt: null,
      finishedAt: null,
    });
    expect(run?.options).toEqual(OPTIONS);
    expect(JSON.stringify(run?.options)).toBe(JSON.stringify(OPTIONS));
    expect(run?.createdAt).toBeInstanceOf(Date);
    expect(run?.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(await getRunById(store.db, { id: "nope" })).toBeUndefined();

    const cases = await getRunCases(store.db, { runId: "r1" });
    const p = plan("r1");
    expect(cases).toEqual([
      { runId: "r1", ...p.cases[1] },
      { runId: "r1", ...p.cases[0] },
    ]);
    expect(await getRunCases(store.db, { runId: "nope" })).toEqual([]);

    expect(tasks.map((t) => t.key).sort()).toEqual(["t0", "t1", "t2", "t3"]);
    const byKey = Object.fromEntries(tasks.map((t) => [t.key, t]));
    expect(byKey.t3).toMatchObject({
      runId: "r1",
      caseId: "c-b",
      criterionId: "k1",
      judge: "openai:gpt-ä",
      sampleIndex: 1,
      status: "pending",
      fresh: false,
    });
    const pending = await getPendingTasks(store.db, { runId: "r1" });
    expect(pending.map((t) => t.id)).toEqual(tasks.map((t) => t.id).sort((a, b) => a - b));
    expect(await getRunTasks(store.db, { runId: "nope" })).toEqual([]);
  });

  it("insertRun writes more than one chunk of tasks, and nothing at all when a task is refused", async () => {
    const tasks = await seed("big", 1203);
    expect(tasks.length).toBe(1203);
    expect((await getRunById(store.db, { id: "big" }))?.totalTasks).toBe(1203);

    const bad = plan("bad", 3);
    bad.tasks.push({ ...bad.tasks[0] }); // a second task with key t0: tasks_run_id_key_idx refuses it
    let err: unknown;
    try {
      await insertRun(store.db, bad);
    } catch (e) {
      err = e;
    }
    expect(constraintViolated(err)).toBe("unique");
    expect(await getRunById(store.db, { id: "bad" })).toBeUndefined();
    expect(await getRunCases(store.db, { runId: "bad" })).toEqual([]);
    expect(await getRunTasks(store.db, { runId: "bad" })).toEqual([]);
  });

  it("listRuns: newest first, limited", async () => {
    expect(await listRuns(store.db)).toEqual([]);
    for (const [id, at] of [
      ["a", 1_700_000_000_000],
      ["b", 1_700_000_000_500],
      ["c", 1_600_000_000_000],
    ] as const) {
      await insertRun(store.db, plan(id, 1));
      await setCreatedAt(store.db, id, new Date(at));
    }
    const all = await listRuns(store.db);
    expect(all.map((r) => r.id)).toEqual(["b", "a", "c"]);
    expect(all[0].createdAt).toEqual(new Date(1_700_000_000_500));
    expect((await listRuns(store.db, { limit: 2 })).map((r) => r.id)).toEqual(["b", "a"]);
  });

  it("recordSample and recordSamples: one sample per task, the task's status, the cached response", async () => {
    const [t0, t1, t2, t3] = await seed("r1");
    const cache = { key: "req-1", text: "cached ü", inputTokens: 7, outputTokens: 3 };
    expect(await recordSample(store.db, sample(t0, { requestKey: "req-1" }), cache)).toBe(true);
    // a duplicate completion writes nothing
    expect(await recordSample(store.db, sample(t0, { score: 0.1 }), { ...cache, text: "other" })).toBe(false);
    const { key: _, ...response } = cache;
    expect(await getCachedResponse(store.db, "req-1")).toEqual(response);
    expect(await getCachedResponse(store.db, "missing")).toBeUndefined();

    // a score of null fails the task even without an error; an error does; a duplicate in the batch is skipped
    const written = await recordSamples(store.db, [
      { sample: sample(t1, { score: null, cached: true }) },
      {
        sample: sample(t2, {
          score: null,
          error: "timeout",
          cacheReadTokens: 50,
          cacheWriteTokens: 5,
          reasoningTokens: 9,
          cacheSavedUsd: 0.125,
          batched: true,
        }),
        // the key is taken: the first response stays
        cache: { key: "req-1", text: "newer", inputTokens: 1, outputTokens: 1 },
      },
      { sample: sample(t0) },
    ]);
    expect(written).toEqual([true, true, false]);
    expect(await getCachedResponse(store.db, "req-1")).toEqual(response);
    expect(await recordSamples(store.db, [])).toEqual([]);

    const status = Object.fromEntries(
      (await getRunTasks(store.db, { runId: "r1" })).map((t) => [t.id, t.status]),
    );
    expect(status).toEqual({ [t0.id]: "done", [t1.id]: "error", [t2.id]: "error", [t3.id]: "pending" });
    expect((await getPendingTasks(store.db, { runId: "r1" })).map((t) => t.id)).toEqual([t3.id]);

    const samples = await getRunSamples(store.db, { runId: "r1" });
    expect(samples.map((s) => s.taskId)).toEqual([t0.id, t1.id, t2.id]);
    expect(samples[0]).toMatchObject({
      ...sample(t0, { requestKey: "req-1" }),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      cacheSavedUsd: 0,
      batched: false,
      supersededAt: null,
      supersededReason: null,
    });
    expect(samples[0].createdAt).toBeInstanceOf(Date);
    expect(samples[1]).toMatchObject({ score: null, cached: true, requestKey: null, error: null });
    expect(samples[2]).toMatchObject({
      error: "timeout",
      cacheReadTokens: 50,
      cacheWriteTokens: 5,
      reasoningTokens: 9,
      cacheSavedUsd: 0.125,
      batched: true,
    });
  });

  it("recordSamples stores nothing of a batch whose commit fails, and throws", async () => {
    const [t0, t1] = await seed("r1");
    let err: unknown;
    try {
      await recordSamples(store.db, [
        { sample: sample(t0), cache: { key: "k", text: "x", inputTokens: 1, outputTokens: 1 } },
        { sample: sample(t1, { judge: null as unknown as string }) }, // judge is NOT NULL
      ]);
    } catch (e) {
      err = e;
    }
    expect(constraintViolated(err)).toBe("not_null");
    expect(await getRunSamples(store.db, { runId: "r1" })).toEqual([]);
    expect((await getPendingTasks(store.db, { runId: "r1" })).length).toBe(4);
    expect(await getCachedResponse(store.db, "k")).toBeUndefined();
    // one alone on its own commit still works
    expect(await recordSample(store.db, sample(t0))).toBe(true);
  });

  it("getRunProgress and getRunCost count a run's tasks, its cost and its model calls", async () => {
    expect(await getRunProgress(store.db, { runId: "r1" })).toEqual({
      total: 0,
      done: 0,
      errors: 0,
      pending: 0,
      costUsd: 0,
    });
    expect(await getRunCost(store.db, { runId: "r1" })).toEqual({
      calls: 0,
      costUsd: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      cacheSavedUsd: 0,
      batchedCalls: 0,
    });
    const [t0, t1, t2, t3, t4, t5] = await seed("r1", 7);
    await recordSamples(store.db, [
      {
        sample: sample(t0, {
          costUsd: 0.5,
          inputTokens: 10,
          outputTokens: 2,
          cacheReadTokens: 4,
          cacheWriteTokens: 1,
          reasoningTokens: 3,
          cacheSavedUsd: 0.25,
          batched: true,
        }),
      },
      { sample: sample(t1, { costUsd: 0.25, inputTokens: 20, outputTokens: 5 }) },
      { sample: sample(t2, { costUsd: 0, cached: true }) }, // Jury's response cache: no call
      { sample: sample(t3, { costUsd: 0, judge: "deterministic" }) }, // no call
      { sample: sample(t4, { score: null, error: "boom", costUsd: 0.125, inputTokens: 1, outputTokens: 0 }) },
    ]);
    await recordSample(store.db, sample(t5, { costUsd: 1 }));
    // t5's sample superseded: still paid for (progress), no longer a current call (cost)
    await setRunStatus(store.db, { id: "r1", status: "done" });
    const samples = await getRunSamples(store.db, { runId: "r1" });
    const t5Sample = samples.find((s) => s.taskId === t5.id)!;
    expect(
      await requeueSamples(store.db, {
        runId: "r1",
        sampleIds: [t5Sample.id],
        reason: "retried",
        fresh: false,
      }),
    ).toEqual({ ok: true, requeued: 1 });

    expect(await getRunProgress(store.db, { runId: "r1" })).toEqual({
      total: 7,
      done: 4,
      errors: 1,
      pending: 2,
      costUsd: 0.5 + 0.25 + 0.125 + 1,
    });
    expect(await getRunCost(store.db, { runId: "r1" })).toEqual({
      calls: 3,
      costUsd: 0.5 + 0.25 + 0.125,
      inputTokens: 31,
      outputTokens: 7,
      cacheReadTokens: 4,
      cacheWriteTokens: 1,
      reasoningTokens: 3,
      cacheSavedUsd: 0.25,
      batchedCalls: 1,
    });
  });

  it("requeueSamples supersedes current samples, puts their tasks back and queues the run; the history keeps them", async () => {
    expect(
      await requeueSamples(store.db, { runId: "nope", sampleIds: [1], reason: "retried", fresh: true }),
    ).toEqual({
      ok: false,
      reason: "no_run",
    });
    const [t0, t1, t2, t3] = await seed("r1");
    await seed("r2", 1);
    const [o0] = await getRunTasks(store.db, { runId: "r2" });
    for (const t of [t0, t1, t2, t3])
      await recordSample(store.db, sample(t, t === t2 ? { error: "x", score: null } : {}));
    await recordSample(store.db, sample(o0));
    const [s0, s1, s2, s3] = await getRunSamples(store.db, { runId: "r1" });
    const [other] = await getRunSamples(store.db, { runId: "r2" });

    // queued (as inserted): its owner would race the new work
    expect(
      await requeueSamples(store.db, { runId: "r1", sampleIds: [s2.id], reason: "retried", fresh: false }),
    ).toEqual({
      ok: false,
      reason: "live",
      status: "queued",
    });
    await setRunStatus(store.db, { id: "r1", status: "running" });
    expect(
      await requeueSamples(store.db, { runId: "r1", sampleIds: [s2.id], reason: "retried", fresh: false }),
    ).toEqual({
      ok: false,
      reason: "live",
      status: "running",
    });
    await setRunStatus(store.db, { id: "r1", status: "done_with_failures", error: "some failed" });
    // another run's sample, an unknown id, none at all: nothing to do, nothing changed
    for (const ids of [[other.id], [999_999], []])
      expect(
        await requeueSamples(store.db, { runId: "r1", sampleIds: ids, reason: "retried", fresh: false }),
      ).toEqual({
        ok: false,
        reason: "nothing",
      });
    expect((await getRunById(store.db, { id: "r1" }))?.status).toBe("done_with_failures");

    const now = new Date(1_750_000_000_123);
    expect(
      await requeueSamples(store.db, {
        runId: "r1",
        sampleIds: [s2.id, s3.id, other.id],
        reason: "resampled",
        fresh: true,
        now,
      }),
    ).toEqual({ ok: true, requeued: 2 });
    const run = await getRunById(store.db, { id: "r1" });
    expect(run).toMatchObject({ status: "queued", error: null, finishedAt: null, cancelRequested: false });
    expect((await getRunSamples(store.db, { runId: "r1" })).map((s) => s.id)).toEqual([s0.id, s1.id]);
    const history = await getRunSampleHistory(store.db, { runId: "r1" });
    expect(history.map((s) => s.id)).toEqual([s0.id, s1.id, s2.id, s3.id]);
    expect(history[2]).toMatchObject({ supersededAt: now, supersededReason: "resampled" });
    expect(history[0]).toMatchObject({ supersededAt: null, supersededReason: null });
    const pending = await getPendingTasks(store.db, { runId: "r1" });
    expect(pending.map((t) => [t.id, t.fresh])).toEqual([
      [t2.id, true],
      [t3.id, true],
    ]);
    expect((await getRunSamples(store.db, { runId: "r2" })).map((s) => s.id)).toEqual([other.id]);

    // already superseded: not requeued twice
    await setRunStatus(store.db, { id: "r1", status: "done" });
    expect(
      await requeueSamples(store.db, { runId: "r1", sampleIds: [s2.id], reason: "retried", fresh: false }),
    ).toEqual({
      ok: false,
      reason: "nothing",
    });

    // the history of one item, one criterion; one sample by id (of its run only)
    expect((await getRunSampleHistory(store.db, { runId: "r1", caseId: "c-a" })).map((s) => s.id)).toEqual([
      s0.id,
      s2.id,
    ]);
    expect(
      (await getRunSampleHistory(store.db, { runId: "r1", caseId: "c-b", criterionId: "k1" })).map(
        (s) => s.id,
      ),
    ).toEqual([s1.id, s3.id]);
    expect(await getRunSampleHistory(store.db, { runId: "r1", criterionId: "k2" })).toEqual([]);
    expect(await getSampleById(store.db, { runId: "r1", id: s3.id })).toEqual(history[3]);
    expect(await getSampleById(store.db, { runId: "r2", id: s3.id })).toBeUndefined();
  });

  it("setRunStatus stamps start and finish, and sets the error and owner only when given", async () => {
    await seed("r1", 1);
    await setRunStatus(store.db, { id: "r1", status: "running", ownerPid: 4242, error: "old" });
    const running = await getRunById(store.db, { id: "r1" });
    expect(running).toMatchObject({ status: "running", ownerPid: 4242, error: "old", finishedAt: null });
    expect(running?.startedAt).toBeInstanceOf(Date);
    await setRunStatus(store.db, { id: "r1", status: "failed" });
    const failed = await getRunById(store.db, { id: "r1" });
    expect(failed).toMatchObject({
      status: "failed",
      ownerPid: 4242,
      error: "old",
      startedAt: running?.startedAt,
    });
    expect(failed?.finishedAt?.getTime()).toBeGreaterThanOrEqual(running!.startedAt!.getTime());
    await setRunStatus(store.db, { id: "r1", status: "queued", error: null, ownerPid: null });
    expect(await getRunById(store.db, { id: "r1" })).toMatchObject({
      status: "queued",
      error: null,
      ownerPid: null,
      finishedAt: failed?.finishedAt, // queued: not a finish
    });
    await setRunStatus(store.db, { id: "nope", status: "done" }); // no run: nothing, no error
    expect(await getRunById(store.db, { id: "nope" })).toBeUndefined();
  });

  it("addRunProviderWarnings adds each warning once, after those recorded", async () => {
    await seed("r1", 1);
    await addRunProviderWarnings(store.db, { id: "r1", warnings: ["w2", "w1", "w2"] });
    await addRunProviderWarnings(store.db, { id: "r1", warnings: ["w1", "w3 ü"] });
    await addRunProviderWarnings(store.db, { id: "r1", warnings: [] });
    await addRunProviderWarnings(store.db, { id: "nope", warnings: ["x"] });
    const run = await getRunById(store.db, { id: "r1" });
    expect(run?.options).toEqual({ ...OPTIONS, providerWarnings: ["w2", "w1", "w3 ü"] });
    expect(await getRunById(store.db, { id: "nope" })).toBeUndefined();
  });

  it("requestCancel marks a live run and its job, and refuses a finished one", async () => {
    await seed("r1", 1);
    await seed("r2", 1);
    await insertJob(store.db, "r1", "running");
    await insertJob(store.db, "r2", "running");
    expect(await requestCancel(store.db, { id: "r1" })).toBe(true);
    expect((await getRunById(store.db, { id: "r1" }))?.cancelRequested).toBe(true);
    expect(await jobCancelRequested(store.db, "r1")).toBe(true);

    await setRunStatus(store.db, { id: "r2", status: "done" });
    expect(await requestCancel(store.db, { id: "r2" })).toBe(false);
    expect((await getRunById(store.db, { id: "r2" }))?.cancelRequested).toBe(false);
    expect(await jobCancelRequested(store.db, "r2")).toBe(false);
    expect(await requestCancel(store.db, { id: "nope" })).toBe(false);
  });

  it("markInterruptedRuns settles the runs whose owner is gone, not a queued one nor a live owner's", async () => {
    for (const id of ["alive", "dead", "queued", "finished"]) await seed(id, 1);
    await setRunStatus(store.db, { id: "alive", status: "running", ownerPid: 1 });
    await setRunStatus(store.db, { id: "dead", status: "running", ownerPid: 2 });
    await setRunRow(store.db, "queued", { ownerPid: null });
    await setRunStatus(store.db, { id: "finished", status: "done", ownerPid: 2 });
    const asked: number[] = [];
    const n = await markInterruptedRuns(store.db, (pid) => {
      asked.push(pid);
      return pid === 1;
    });
    expect(n).toBe(1);
    expect(asked.sort()).toEqual([1, 2]);
    const dead = await getRunById(store.db, { id: "dead" });
    expect(dead).toMatchObject({
      status: "interrupted",
      error: "The process running it stopped before it finished; resume it.",
    });
    expect(dead?.finishedAt).toBeInstanceOf(Date);
    expect((await getRunById(store.db, { id: "alive" }))?.status).toBe("running");
    expect((await getRunById(store.db, { id: "queued" }))?.status).toBe("queued");
    expect((await getRunById(store.db, { id: "finished" }))?.status).toBe("done");
    expect(await markInterruptedRuns(store.db, () => false)).toBe(1); // "alive" now
  });

  it("replaceResults replaces a run's results in one transaction", async () => {
    await seed("r1", 1);
    await seed("r2", 1);
    const row = (runId: string, caseId: string, criterionId: string, score: number | null) => ({
      runId,
      caseId,
      criterionId,
      finalScore: score,
      passed: (score ?? 0) >= 0.5,
      consensusLevel: score === null ? null : "high",
      flagForReview: score === null,
      data: verdict(criterionId, score ?? 0),
    });
    expect(await getRunResults(store.db, { runId: "r1" })).toEqual([]);
    await replaceResults(store.db, "r1", [row("r1", "c-a", "k1", 0.75), row("r1", "c-b", "k1", null)]);
    await replaceResults(store.db, "r2", [row("r2", "c-a", "k1", 0.25)]);
    const sortKey = (r: { caseId: string; criterionId: string }) => `${r.caseId}/${r.criterionId}`;
    const got = (await getRunResults(store.db, { runId: "r1" })).sort((a, b) =>
      sortKey(a) < sortKey(b) ? -1 : 1,
    );
    expect(got).toEqual([row("r1", "c-a", "k1", 0.75), row("r1", "c-b", "k1", null)]);

    await replaceResults(store.db, "r1", [row("r1", "c-a", "k2", 1)]);
    expect(await getRunResults(store.db, { runId: "r1" })).toEqual([row("r1", "c-a", "k2", 1)]);

    // a refused row (the same case × criterion twice): the old results stay
    let err: unknown;
    try {
      await replaceResults(store.db, "r1", [row("r1", "c-a", "k1", 0), row("r1", "c-a", "k1", 1)]);
    } catch (e) {
      err = e;
    }
    expect(constraintViolated(err)).toBe("unique");
    expect(await getRunResults(store.db, { runId: "r1" })).toEqual([row("r1", "c-a", "k2", 1)]);
    expect(await getRunResults(store.db, { runId: "r2" })).toEqual([row("r2", "c-a", "k1", 0.25)]);
    await replaceResults(store.db, "r1", []);
    expect(await getRunResults(store.db, { runId: "r1" })).toEqual([]);
  });

  it("getProgressByRun: a finished run's totals, a live run's counted now, a run without tasks left out", async () => {
    expect(await getProgressByRun(store.db)).toEqual(new Map());
    const fin = await seed("fin", 3);
    const live = await seed("live", 4);
    await seed("empty", 0);
    await recordSamples(store.db, [
      { sample: sample(fin[0], { costUsd: 0.5 }) },
      { sample: sample(fin[1], { costUsd: 0.25, score: null, error: "e" }) },
      { sample: sample(live[0], { costUsd: 0.125 }) },
      { sample: sample(live[1], { costUsd: 1, score: null }) },
      { sample: sample(live[2], { costUsd: 2 }) },
    ]);
    await setRunStatus(store.db, { id: "fin", status: "done_with_failures" });
    await setRunStatus(store.db, { id: "live", status: "running" });
    await setRunStatus(store.db, { id: "empty", status: "done" });
    const sorted = (m: Map<string, unknown>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    expect(sorted(await getProgressByRun(store.db))).toEqual([
      ["fin", { done: 1, errors: 1, costUsd: 0.75 }],
      ["live", { done: 2, errors: 1, costUsd: 3.125 }],
    ]);
    // a late sample makes the finished run live again: counted now, with it
    await recordSample(store.db, sample(fin[2], { costUsd: 4 }));
    expect((await getProgressByRun(store.db)).get("fin")).toEqual({ done: 2, errors: 1, costUsd: 4.75 });
  });

  it("getMedianLatencyByJudge: the upper median of each judge's latest live calls, judges in order", async () => {
    expect(await getMedianLatencyByJudge(store.db)).toEqual({});
    expect(LATENCY_WINDOW).toBe(500);
    const tasks = await seed("r1", 12);
    const calls: Partial<SampleWrite>[] = [
      { judge: "z:late", latencyMs: 10 },
      { judge: "b:two", latencyMs: 30 },
      { judge: "b:two", latencyMs: 10 },
      { judge: "b:two", latencyMs: 20 },
      { judge: "b:two", latencyMs: 40 },
      { judge: "b:two", latencyMs: 5000, cached: true }, // not a live call
      { judge: "b:two", latencyMs: 9000, error: "boom", score: null }, // failed
      { judge: "deterministic", latencyMs: 1 },
      { judge: "B:upper", latencyMs: 7 },
      { judge: "only:cached", latencyMs: 3, cached: true },
      { judge: "b:two", latencyMs: 1000 }, // the newest
      { judge: "a:one", latencyMs: 3 },
    ];
    await recordSamples(
      store.db,
      calls.map((c, i) => ({ sample: sample(tasks[i], c) })),
    );
    // b:two's live calls, oldest first: 30, 10, 20, 40, 1000
    const expected = { "B:upper": 7, "a:one": 3, "b:two": 30, "z:late": 10 };
    const got = await getMedianLatencyByJudge(store.db);
    expect(got).toEqual(expected);
    expect(Object.keys(got)).toEqual(Object.keys(expected)); // byte order: "B" before "a"
    // the latest 2 (1000, 40) and 4 (1000, 40, 20, 10)
    expect((await getMedianLatencyByJudge(store.db, { window: 2 }))["b:two"]).toBe(1000);
    expect((await getMedianLatencyByJudge(store.db, { window: 4 }))["b:two"]).toBe(40);
  });
});
