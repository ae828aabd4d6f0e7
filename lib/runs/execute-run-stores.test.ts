// A panel run end to end on each store (SQLite, and PostgreSQL when JURY_TEST_DATABASE_URL is set):
// plan, executeRun (task pump, sample writer, job runner), finalize, cancel and resume, retry of
// failed samples, recovery of a dead owner's job, export. What each store ends with is compared.
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Op, query, write } from "@/db/op";
import { getJob } from "@/db/queries/jobs";
import {
  getRunById,
  getRunProgress,
  getRunResults,
  getRunSampleHistory,
  getRunSamples,
  getRunTasks,
  requestCancel,
} from "@/db/queries/runs";
import type { RunOptions } from "@/db/schema";
import { recoverJobs } from "../jobs/recover";
import { claimJob } from "../jobs/runner";
import { hashString } from "../providers/mock-model";
import { loadSuite } from "../suites/load-suite";
import { settingsFor, testRegistry, testSuite } from "../testing/fixtures";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "../testing/scripted-server";
import { freshStore, type Store, type StoreKind, storeKinds } from "../testing/stores";
import { executeRun } from "./execute-run";
import { exportRun } from "./export";
import { createRun } from "./plan-run";
import { requeue, samplesToRetry } from "./requeue";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

/**
 * A score from the prompt and the model alone (the same on every store, whatever the order of the
 * calls); model "fail" always answers 400; model "flaky" answers 400 to the first call of each prompt
 * (one of its samples per prompt fails) and a score after.
 */
function panelJudge(opts: { delayMs?: number } = {}) {
  const seen = new Set<string>();
  return (req: ScriptRequest) => {
    const delayMs = opts.delayMs ?? 0;
    if (req.model === "fail") return { status: 400, message: "model fail does not exist", delayMs };
    if (req.model === "flaky" && !seen.has(req.text)) {
      seen.add(req.text);
      return { status: 400, message: "flaky said no", delayMs };
    }
    const [lo, hi] = /scale of 1-5/.test(req.text) ? [1, 5] : [1, 10];
    const score = lo + (hashString(`${req.model}#${req.text}`) % (hi - lo + 1));
    return { json: { score, reasoning: `by ${req.model}` }, delayMs };
  };
}

const opts = (judges: string[], n = 2, concurrency = 8): RunOptions => ({
  judges,
  n,
  temperature: 0.8,
  concurrency,
  noCache: false,
});

/** What a run ends with, independent of the order its samples were stored in (ids, latencies). */
async function outcomeOf(store: Store, runId: string) {
  const { db } = store;
  const key = (x: { caseId: string; criterionId: string; judge: string }) =>
    `${x.caseId}/${x.criterionId}/${x.judge}`;
  const samples = (await getRunSampleHistory(db, { runId }))
    .map((s) => ({
      key: key(s),
      score: s.score,
      failed: s.error !== null,
      superseded: s.supersededReason,
    }))
    .sort(
      (a, b) =>
        a.key.localeCompare(b.key) ||
        String(a.superseded).localeCompare(String(b.superseded)) ||
        Number(a.failed) - Number(b.failed) ||
        (a.score ?? -1) - (b.score ?? -1),
    );
  const results = (await getRunResults(db, { runId }))
    .map((r) => ({
      key: `${r.caseId}/${r.criterionId}`,
      finalScore: r.finalScore,
      passed: r.passed,
      coverage: r.data.coverage,
    }))
    .sort((a, b) => a.key.localeCompare(b.key));
  const run = await getRunById(db, { id: runId });
  const job = await getJob(db, { id: runId });
  const tasks = await getRunTasks(db, { runId });
  const exported = JSON.parse((await exportRun(db, runId, "json")).body) as {
    samples: Record<string, unknown>[];
  };
  return {
    status: run?.status,
    error: run?.error,
    // (its progress figures are written by heartbeats only: a run that ends before its first beat
    // leaves them at 0, on either store)
    job: { status: job?.status, owner: job?.ownerToken ?? null },
    tasks: tasks.map((t) => t.status).sort(),
    samples,
    results,
    exported: exported.samples
      .map((r) => `${r.case_id}/${r.criterion_id}/${r.judge} ${r.score} ${r.superseded} ${r.verdict_score}`)
      .sort(),
  };
}

/** The job's owner died without a word: a pid that is not alive, a heartbeat a minute old. */
const killOwner = query(function* (db, id: string): Op<void> {
  const { jobs, runs } = db.tables;
  yield* write(
    db
      .update(jobs)
      .set({ ownerPid: 2 ** 22 + 1234, heartbeatAt: new Date(Date.now() - 60_000) })
      .where(eq(jobs.id, id)),
  );
  yield* write(db.update(runs).set({ status: "running" }).where(eq(runs.id, id)));
});

async function until(what: string, check: () => Promise<boolean>, ms = 20_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Outcome = Awaited<ReturnType<typeof outcomeOf>>;
const seen: Partial<Record<StoreKind, Record<string, Outcome>>> = {};

describe.each(storeKinds())("a panel run on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());
  const keep = (name: string, o: Outcome) => {
    seen[kind] ??= {};
    (seen[kind] as Record<string, Outcome>)[name] = o;
  };

  it("stores one sample per task, the results and the job's status; Retry failed redoes only the failed", async () => {
    server.setScript(panelJudge());
    const { db } = store;
    const { registry } = testRegistry();
    const settings = settingsFor(server.baseURL);
    const runId = await createRun(
      db,
      loadSuite(testSuite(3)),
      registry,
      opts(["local:a", "local:flaky", "local:fail"]),
    );
    expect(await executeRun(db, runId, { settings, registry })).toBe("done_with_failures");
    const first = await outcomeOf(store, runId);
    // 3 cases × (2 llm criteria × 3 judges × N=2 + 1 deterministic)
    expect(first.tasks).toHaveLength(3 * (2 * 3 * 2 + 1));
    expect(first.samples).toHaveLength(first.tasks.length);
    expect(first.tasks.filter((t) => t === "pending")).toHaveLength(0);
    // fail: every sample; flaky: one of the two of each prompt
    expect(first.samples.filter((s) => s.failed)).toHaveLength(3 * 2 * 2 + 3 * 2);
    expect(first.results).toHaveLength(3 * 3);
    expect(first.job).toEqual({ status: "done", owner: null });
    expect(first.status).toBe("done_with_failures");
    keep("first", first);

    // retry the failed samples: fail fails again, flaky answers now
    const failed = await samplesToRetry(db, runId);
    expect(failed).toHaveLength(3 * 2 * 2 + 3 * 2);
    expect(await requeue(db, runId, failed, "retried")).toEqual({ ok: true, requeued: failed.length });
    expect((await getRunById(db, { id: runId }))?.status).toBe("queued");
    const before = server.requests.length;
    expect(await executeRun(db, runId, { settings, registry })).toBe("done_with_failures");
    expect(server.requests.length - before).toBe(failed.length); // only the failed were asked again
    const retried = await outcomeOf(store, runId);
    expect(retried.samples.filter((s) => s.superseded === "retried")).toHaveLength(failed.length);
    const current = retried.samples.filter((s) => s.superseded === null);
    expect(current).toHaveLength(first.tasks.length);
    expect(current.filter((s) => s.failed).every((s) => s.key.endsWith("/local:fail"))).toBe(true);
    expect(current.filter((s) => s.failed)).toHaveLength(3 * 2 * 2);
    for (const r of retried.results.filter((x) => !x.key.endsWith("/short")))
      expect(r.coverage).toMatchObject({ samples_asked: 6, samples_answered: 4, samples_failed: 2 });
    expect(retried.exported).toHaveLength(retried.samples.length);
    expect(retried.job.status).toBe("done");
    keep("retried", retried);
  }, 60_000);

  it("a cancel stops the run (its job cancelled, unfinished tasks pending); a resume finishes it", async () => {
    server.setScript(panelJudge({ delayMs: 40 }));
    const { db } = store;
    const { registry } = testRegistry();
    const settings = settingsFor(server.baseURL);
    const runId = await createRun(db, loadSuite(testSuite(4)), registry, opts(["local:a"], 5, 2));
    const done = executeRun(db, runId, { settings, registry, cancelPollMs: 20 });
    await until("the first samples", async () => (await getRunProgress(db, { runId })).done > 2);
    expect(await requestCancel(db, { id: runId })).toBe(true);
    expect(await done).toBe("cancelled");
    expect((await getRunById(db, { id: runId }))?.status).toBe("cancelled");
    expect((await getJob(db, { id: runId }))?.status).toBe("cancelled");
    const tasks = await getRunTasks(db, { runId });
    const pending = tasks.filter((t) => t.status === "pending").length;
    expect(pending).toBeGreaterThan(0);
    expect(await getRunSamples(db, { runId })).toHaveLength(tasks.length - pending);

    server.setScript(panelJudge());
    const before = server.requests.length;
    expect(await executeRun(db, runId, { settings, registry })).toBe("done");
    // nothing finished was asked again: one call per pending LLM task
    const llmPending = tasks.filter((t) => t.status === "pending" && t.judge !== "deterministic").length;
    expect(server.requests.length - before).toBe(llmPending);
    const resumed = await outcomeOf(store, runId);
    expect(resumed.samples).toHaveLength(tasks.length);
    expect(resumed.job.status).toBe("done");
    keep("resumed", resumed);
  }, 60_000);

  it("two workers share a run: the second joins it, each task is asked once, the owner settles it", async () => {
    server.setScript(panelJudge({ delayMs: 10 }));
    const { db } = store;
    const { registry } = testRegistry();
    const settings = settingsFor(server.baseURL);
    const runId = await createRun(db, loadSuite(testSuite(4)), registry, opts(["local:a", "local:b"], 3, 4));
    const before = server.requests.length;
    const owner = executeRun(db, runId, { settings, registry, cancelPollMs: 20 });
    await until("the owner's job", async () => (await getJob(db, { id: runId }))?.status === "running");
    const joiner = executeRun(db, runId, { settings, registry, cancelPollMs: 20, workerKind: "worker" });
    expect(await Promise.all([owner, joiner])).toEqual(["done", "done"]);
    const tasks = await getRunTasks(db, { runId });
    expect(server.requests.length - before).toBe(tasks.filter((t) => t.judge !== "deterministic").length);
    const shared = await outcomeOf(store, runId);
    expect(shared.samples).toHaveLength(tasks.length);
    expect(shared.job).toMatchObject({ status: "done", owner: null });
    keep("shared", shared);
  }, 60_000);

  it("recovery marks a dead owner's run interrupted; a resume takes its job over and finishes it", async () => {
    server.setScript(panelJudge());
    const { db } = store;
    const { registry } = testRegistry();
    const settings = settingsFor(server.baseURL);
    const runId = await createRun(db, loadSuite(testSuite(2)), registry, opts(["local:a", "local:b"]));
    await claimJob(db, { id: runId, kind: "run" });
    await killOwner(db, runId);
    expect(await recoverJobs(db)).toBe(1);
    expect(await getRunById(db, { id: runId })).toMatchObject({ status: "interrupted" });
    expect((await getJob(db, { id: runId }))?.status).toBe("interrupted");
    expect(await executeRun(db, runId, { settings, registry })).toBe("done");
    const recovered = await outcomeOf(store, runId);
    expect(recovered.samples.filter((s) => s.failed)).toHaveLength(0);
    expect(recovered.job).toMatchObject({ status: "done", owner: null });
    keep("recovered", recovered);
  }, 60_000);
});

it.runIf(storeKinds().length > 1)("both stores end every run the same", () => {
  expect(Object.keys(seen.pg ?? {}).sort()).toEqual(["first", "recovered", "resumed", "retried", "shared"]);
  for (const name of ["first", "retried", "recovered", "shared"])
    expect(seen.pg?.[name]).toEqual(seen.sqlite?.[name]);
  // a cancel lands at a different moment on each store: what it ends with, once resumed, is the same
  expect(seen.pg?.resumed).toEqual(seen.sqlite?.resumed);
});
