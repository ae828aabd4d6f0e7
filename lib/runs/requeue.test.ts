import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getRunById,
  getRunProgress,
  getRunResults,
  getRunSampleHistory,
  getRunSamples,
  getRunTasks,
  setRunStatus,
} from "@/db/queries/runs";
import type { RunOptions } from "@/db/schema";
import { loadSuite } from "../suites/load-suite";
import { settingsFor, tempDb, testRegistry, testSuite } from "../testing/fixtures";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "../testing/scripted-server";
import { executeRun } from "./execute-run";
import { createRun } from "./plan-run";
import { judgesToCall, requeue, requeueRefusal, samplesToResample, samplesToRetry } from "./requeue";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

/** Model "flaky" answers prose (not the JSON asked for) to the first call of each prompt, then a score. */
function flakyScript() {
  const seen = new Set<string>();
  let calls = 0;
  return {
    calls: () => calls,
    script: (req: ScriptRequest) => {
      calls++;
      const key = `${req.model}\u0000${req.text}`;
      if (req.model === "flaky" && !seen.has(key)) {
        seen.add(key);
        return { text: "not now" };
      }
      return { json: { score: 4, reasoning: `call ${req.index}` } };
    },
  };
}

const opts = (judges: string[], n = 2): RunOptions => ({
  judges,
  n,
  temperature: 0.8,
  concurrency: 4,
  noCache: false,
});

async function flakyRun() {
  const s = flakyScript();
  server.setScript(s.script);
  const { db } = tempDb();
  const { registry } = testRegistry();
  const settings = settingsFor(server.baseURL);
  const runId = await createRun(db, loadSuite(testSuite(2)), registry, opts(["local:ok", "local:flaky"]));
  expect(await executeRun(db, runId, { settings, registry })).toBe("done_with_failures");
  return { db, registry, settings, runId, calls: s.calls };
}

describe("retry failed samples", () => {
  it("keeps each failed sample marked 'retried', redoes its task through the run, and the verdicts recount", async () => {
    const { db, registry, settings, runId, calls } = await flakyRun();
    const before = getRunSamples(db, { runId });
    const failed = await samplesToRetry(db, runId);
    // 2 cases × 2 llm criteria: one of flaky's two samples of each prompt failed
    expect(failed).toHaveLength(4);
    expect(failed.every((s) => s.judge === "local:flaky" && s.error)).toBe(true);
    expect(judgesToCall(failed)).toEqual(["local:flaky"]);
    const costBefore = getRunProgress(db, { runId }).costUsd;
    const callsBefore = calls();

    const out = await requeue(db, runId, failed, "retried");
    expect(out).toEqual({ ok: true, requeued: 4 });
    expect(getRunById(db, { id: runId })).toMatchObject({ status: "queued", finishedAt: null, error: null });
    const tasks = getRunTasks(db, { runId });
    const failedTasks = new Set(failed.map((s) => s.taskId));
    expect(
      tasks
        .filter((t) => t.status === "pending")
        .map((t) => t.id)
        .sort(),
    ).toEqual([...failedTasks].sort());
    // the retry of an error is not fresh: the cache holds only good answers
    expect(tasks.filter((t) => t.fresh)).toHaveLength(0);
    // the failed samples are history now, out of the current samples
    expect(getRunSamples(db, { runId })).toHaveLength(before.length - 4);

    expect(await executeRun(db, runId, { settings, registry })).toBe("done");
    expect(calls() - callsBefore).toBe(4); // one new call per failed sample, nothing else redone
    const now = getRunSamples(db, { runId });
    expect(now).toHaveLength(before.length);
    expect(now.every((s) => !s.error)).toBe(true);
    // every untouched sample is the same row as before
    const kept = before.filter((s) => !failedTasks.has(s.taskId));
    expect(now.filter((s) => !failedTasks.has(s.taskId))).toEqual(kept);

    const history = getRunSampleHistory(db, { runId });
    const superseded = history.filter((s) => s.supersededAt !== null);
    expect(superseded.map((s) => s.id).sort()).toEqual(failed.map((s) => s.id).sort());
    expect(superseded.every((s) => s.supersededReason === "retried" && s.error)).toBe(true);
    expect(getRunProgress(db, { runId })).toMatchObject({ errors: 0, pending: 0 });
    // what was paid for stays counted: the superseded calls' cost is still the run's
    expect(getRunProgress(db, { runId }).costUsd).toBeGreaterThanOrEqual(costBefore);

    for (const r of getRunResults(db, { runId }).filter((r) => r.data.criterion_type === "llm")) {
      expect(r.data.coverage).toMatchObject({ samples_answered: 4, samples_asked: 4, samples_failed: 0 });
      expect(r.data.agreement).not.toBe("single judge");
    }
    // nothing left to retry
    const again = await requeue(db, runId, await samplesToRetry(db, runId), "retried");
    expect(again).toEqual({ ok: false, reason: "nothing" });
    expect(requeueRefusal(again as Extract<typeof again, { ok: false }>, "retry failed samples")).toBe(
      "No failed samples to retry.",
    );
  });

  it("is refused while the run is queued or running: its owner would race the new work", async () => {
    const { db, runId } = await flakyRun();
    setRunStatus(db, { id: runId, status: "running" });
    const out = await requeue(db, runId, await samplesToRetry(db, runId), "retried");
    expect(out).toEqual({ ok: false, reason: "live", status: "running" });
    expect(getRunSamples(db, { runId }).filter((s) => s.supersededAt)).toHaveLength(0);
    expect(getRunTasks(db, { runId }).filter((t) => t.status === "pending")).toHaveLength(0);
    expect(await requeue(db, "run_20200101_00000000", [], "retried")).toEqual({
      ok: false,
      reason: "no_run",
    });
  });
});

describe("re-sample one item", () => {
  it("asks the item's judges anew past the response cache; the old samples are kept, marked 'resampled'", async () => {
    const { db, registry, settings, runId, calls } = await flakyRun();
    // retry first, so the cache holds answers for every call of the item
    await requeue(db, runId, await samplesToRetry(db, runId), "retried");
    await executeRun(db, runId, { settings, registry });
    const cell = await samplesToResample(db, runId, "case1", "helpful");
    expect(cell).toHaveLength(4); // 2 judges × N = 2
    const callsBefore = calls();

    expect(await requeue(db, runId, cell, "resampled")).toEqual({ ok: true, requeued: 4 });
    expect(getRunTasks(db, { runId }).filter((t) => t.fresh)).toHaveLength(4);
    expect(await executeRun(db, runId, { settings, registry })).toBe("done");
    // four live calls, none from the cache, though the cache held an answer for each
    expect(calls() - callsBefore).toBe(4);
    const fresh = await samplesToResample(db, runId, "case1", "helpful");
    expect(fresh).toHaveLength(4);
    expect(fresh.every((s) => !s.cached && !cell.some((c) => c.id === s.id))).toBe(true);
    const old = getRunSampleHistory(db, { runId, caseId: "case1", criterionId: "helpful" }).filter(
      (s) => s.supersededReason === "resampled",
    );
    expect(old.map((s) => s.id).sort()).toEqual(cell.map((s) => s.id).sort());
    // the other items were not touched
    expect(getRunSampleHistory(db, { runId, caseId: "case0", criterionId: "helpful" })).toHaveLength(
      4 + 1, // one of flaky's samples was retried
    );
  });

  it("each model call's sample carries its request's hash: the response cache's key", async () => {
    const { db, runId } = await flakyRun();
    const s = getRunSamples(db, { runId }).find((x) => x.judge === "local:ok");
    expect(s?.requestKey).toMatch(/^[0-9a-f]{64}$/);
    const det = getRunSamples(db, { runId }).find((x) => x.judge === "deterministic");
    expect(det?.requestKey).toBeNull();
  });
});
