// Batch mode through the real AI SDK providers against the provider simulators' batch APIs: OpenAI
// Batches over Files and Anthropic Message Batches; Google judges stay live.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AnyDb } from "@/db/client";
import { getRunBatches } from "@/db/queries/batches";
import { getRunById, getRunSamples, requestCancel } from "@/db/queries/runs";
import { setProviderFetch } from "@/lib/providers/get-model";
import { executeRun } from "@/lib/runs/execute-run";
import { createRun } from "@/lib/runs/plan-run";
import { requeue, samplesToRetry } from "@/lib/runs/requeue";
import { loadSuite } from "@/lib/suites/load-suite";
import { SIM_PANEL, simSettings, writeCacheSuite } from "@/lib/testing/cost-harness";
import { tempDir, testRegistry } from "@/lib/testing/fixtures";
import { createProviderSims } from "@/lib/testing/provider-sims";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";

const sims = createProviderSims();
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const [k, v] of Object.entries(sims.env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  setProviderFetch(sims.fetch);
});
afterAll(() => {
  setProviderFetch(undefined);
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const suite = writeCacheSuite(tempDir("jury-batch-suite-"), 2);
const { registry } = testRegistry();
const settings = simSettings();

async function plan(db: AnyDb, n = 2) {
  return createRun(db, loadSuite(suite), registry, {
    judges: SIM_PANEL,
    n,
    temperature: 0.8,
    concurrency: 8,
    noCache: true,
    promptCaching: true,
    batch: true,
  });
}

async function until(cond: () => boolean | Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe.each(storeKinds())("batch mode on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("sends OpenAI and Anthropic calls as one batch per judge, Google live; results priced at the batch rate", async () => {
    sims.reset();
    const { db } = store;
    const runId = await plan(db);
    const done = executeRun(db, runId, { settings, registry, batchPollMs: 10 });
    await until(() => sims.counts.batches === 2);
    expect(sims.counts.batchRequests).toBe(2 * 2 * 2); // 2 judges × 2 cases × N = 2
    await sims.processBatches();
    expect(await done).toBe("done");
    sims.assertNoRejections();
    const samples = await getRunSamples(db, { runId });
    expect(samples).toHaveLength(2 * 3 * 2);
    expect(samples.every((s) => s.error === null && s.score !== null)).toBe(true);
    const batched = samples.filter((s) => s.batched).map((s) => s.judge);
    expect(new Set(batched)).toEqual(new Set(["openai:gpt-5-mini", "anthropic:claude-haiku-4-5"]));
    // what Jury stored is what the providers billed, batch rate included
    const jury = samples.reduce((a, s) => a + s.costUsd, 0);
    expect(jury).toBeCloseTo(sims.ledger.total(), 9);
    expect(sims.ledger.total({ mode: "batch" })).toBeGreaterThan(0);
    expect((await getRunBatches(db, { runId })).map((b) => b.status)).toEqual(["collected", "collected"]);
  });

  it("a run stopped while its batches are pending resumes polling them without submitting again", async () => {
    sims.reset();
    const { db } = store;
    const runId = await plan(db);
    const stop = new AbortController();
    const first = executeRun(db, runId, { settings, registry, batchPollMs: 10, signal: stop.signal });
    await until(() => sims.counts.batches === 2);
    await until(async () => (await getRunBatches(db, { runId })).length === 2);
    stop.abort(new Error("killed"));
    expect(await first).toBe("interrupted");
    const submitted = { ...sims.counts };
    await sims.processBatches();
    expect(await executeRun(db, runId, { settings, registry, batchPollMs: 10 })).toBe("done");
    expect(sims.counts).toEqual(submitted);
    expect((await getRunSamples(db, { runId })).filter((s) => s.batched)).toHaveLength(8);
  });

  it("expired requests become failed samples, and Retry failed sends them in a new batch", async () => {
    sims.reset();
    const { db } = store;
    const runId = await plan(db, 1);
    const done = executeRun(db, runId, { settings, registry, batchPollMs: 10 });
    await until(() => sims.counts.batches === 2);
    sims.expireBatches();
    expect(await done).toBe("done_with_failures");
    const failed = (await getRunSamples(db, { runId })).filter((s) => s.error);
    expect(failed).toHaveLength(4);
    expect(failed.every((s) => /expired/.test(s.error ?? ""))).toBe(true);
    await requeue(db, runId, await samplesToRetry(db, runId), "retried");
    const again = executeRun(db, runId, { settings, registry, batchPollMs: 10 });
    await until(() => sims.counts.batches === 4);
    await sims.processBatches();
    expect(await again).toBe("done");
    expect((await getRunById(db, { id: runId }))?.status).toBe("done");
  });

  it("cancel cancels the pending batches at the provider", async () => {
    sims.reset();
    const { db } = store;
    const runId = await plan(db, 1);
    const done = executeRun(db, runId, { settings, registry, batchPollMs: 10, cancelPollMs: 10 });
    await until(async () => (await getRunBatches(db, { runId })).length === 2);
    expect(await requestCancel(db, { id: runId })).toBe(true);
    expect(await done).toBe("cancelled");
    expect((await getRunBatches(db, { runId })).map((b) => b.status)).toEqual(["cancelled", "cancelled"]);
  });
});
