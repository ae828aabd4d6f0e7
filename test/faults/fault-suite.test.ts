import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getExperimentResults } from "@/db/queries/experiments";
import { getRunResults, getRunSamples, getRunTasks } from "@/db/queries/runs";
import type { ResultRow, RunOptions } from "@/db/schema";
import { runExperiment } from "@/lib/memory/experiment";
import { importStudyFolder } from "@/lib/memory/import";
import { hashString } from "@/lib/providers/mock-model";
import { gatherContext } from "@/lib/review/context";
import { runReview } from "@/lib/review/run-review";
import { executeRun } from "@/lib/runs/execute-run";
import { createRun } from "@/lib/runs/plan-run";
import { defaultSettings, type Settings } from "@/lib/settings/schema";
import { loadSuite } from "@/lib/suites/load-suite";
import { settingsFor, tempDb, testRegistry, testSuite } from "@/lib/testing/fixtures";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "@/lib/testing/scripted-server";
import { faultyScript } from "./fault-server";

const root = path.resolve(__dirname, "../..");

/** The answer to a request depends only on its content: a clean run and a faulty one see the same answers. */
function answer(req: ScriptRequest) {
  const h = hashString(`${req.model}\u0000${req.text}`);
  if (req.text.includes('{"keep"')) {
    const n = (req.text.match(/^\[\d+\] /gm) ?? []).length;
    return { json: { keep: Array.from({ length: n }, (_, i) => i).filter((i) => (h >> i) & 1) } };
  }
  if (req.text.includes('"schema_version"')) {
    const d = (k: number) => ((h >>> (k * 5)) % 50) / 100 + 0.5;
    return {
      json: {
        schema_version: "1.0.0",
        verdict: "partial",
        score: 0.7,
        dimensions: { correctness: d(0), scope_adherence: d(1), code_quality: d(2), completeness: d(3) },
        issues: [],
        summary: "s",
        confidence: "medium",
      },
    };
  }
  const [lo, hi] = /scale of 1-5/.test(req.text) ? [1, 5] : [1, 10];
  return { json: { score: lo + (h % (hi - lo + 1)), reasoning: "deterministic" } };
}

let faultsOn = false;
const faulty = faultyScript(answer, { enabled: () => faultsOn });
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer(faulty.script);
});
afterAll(async () => {
  await server.close();
  const total = Object.values(faulty.counts).reduce((a, b) => a + b, 0);
  // the figures the README's Reliability section quotes
  console.log(
    `fault suite: ${server.requests.length} calls, ${total} faults injected: ${JSON.stringify(faulty.counts)}`,
  );
});

const settings = (): Settings =>
  settingsFor(server.baseURL, {
    timeoutMs: 400,
    maxRetries: 30,
    concurrency: 64,
    perProviderConcurrency: 64,
  });

describe("fault suite (scripted server: 429 storms, 500s, hangs, truncated, wrong content type, huge, malformed, prose)", () => {
  it("judge panels: every task accounted for, and the results equal a fault-free run's", async () => {
    const { registry } = testRegistry();
    const suite = loadSuite(testSuite(60));
    const options: RunOptions = {
      judges: ["local:a", "local:b"],
      n: 20,
      temperature: 0.8,
      concurrency: 64,
      noCache: true,
    };
    const { db } = tempDb();
    const clean = await createRun(db, suite, registry, options);
    faultsOn = false;
    expect(await executeRun(db, clean, { settings: settings(), registry })).toBe("done");
    const before = server.requests.length;
    faultsOn = true;
    const noisy = await createRun(db, suite, registry, options);
    expect(await executeRun(db, noisy, { settings: settings(), registry })).toBe("done");
    faultsOn = false;
    const noisyCalls = server.requests.length - before;
    expect(noisyCalls).toBeGreaterThan(60 * 2 * 2 * 20 * 1.4); // about 40 % of the calls failed and were retried

    const tasks = getRunTasks(db, { runId: noisy });
    const samples = getRunSamples(db, { runId: noisy });
    expect(tasks).toHaveLength(60 * (2 * 2 * 20 + 1));
    expect(samples).toHaveLength(tasks.length);
    expect(new Set(samples.map((s) => s.taskId)).size).toBe(tasks.length);
    expect(samples.filter((s) => s.error)).toEqual([]);
    expect(samples.some((s) => s.attempts > 1)).toBe(true);
    const key = (s: { caseId: string; criterionId: string; judge: string; sampleIndex: number }) =>
      `${s.caseId}|${s.criterionId}|${s.judge}|${s.sampleIndex}`;
    const cleanScores = new Map(getRunSamples(db, { runId: clean }).map((s) => [key(s), s.score]));
    for (const s of samples) expect(s.score, key(s)).toBe(cleanScores.get(key(s)));
    const strip = (rows: ResultRow[]) =>
      rows
        .map((r) => ({ ...r, runId: "" }))
        .sort((a, b) => `${a.caseId}${a.criterionId}`.localeCompare(`${b.caseId}${b.criterionId}`));
    expect(strip(getRunResults(db, { runId: noisy }))).toEqual(strip(getRunResults(db, { runId: clean })));
  }, 240_000);

  it("memory judge: every query accounted for; where the judge answered, the kept set equals the fault-free one", async () => {
    const { db } = tempDb();
    await importStudyFolder(db, path.join(root, "examples/memory-study"), "s");
    const s = { ...settings(), memoryJudge: { ...defaultSettings.memoryJudge, timeout_per_call: 0.4 } };
    const config = {
      kind: "dual_lenient" as const,
      mode: "search" as const,
      topK: 10,
      poolSize: 15,
      shuffle: true,
      model: "local:m",
      n: 3,
    };
    faultsOn = false;
    const clean = getExperimentResults(db, await runExperiment(db, { collection: "s", config, settings: s }));
    faultsOn = true;
    const noisy = getExperimentResults(db, await runExperiment(db, { collection: "s", config, settings: s }));
    faultsOn = false;
    expect(noisy).toHaveLength(20);
    expect(new Set(noisy.map((r) => r.path))).toEqual(
      // a hang past timeout_per_call is the D4 `timeout` path, an error `judge_error`: both fall back
      new Set(
        noisy.map((r) => r.path).filter((p) => p === "judge" || p === "judge_error" || p === "timeout"),
      ),
    );
    for (const r of noisy) {
      const c = clean.find((x) => x.queryId === r.queryId)!;
      if (r.path === "judge" && !r.error) expect(r.retrieved, r.queryId).toEqual(c.retrieved);
      else expect(r.retrieved.length).toBeLessThanOrEqual(10); // the D4 fallback, never more than allowed
    }
  }, 120_000);

  it("review judge: with retries every sample is valid and the judgment equals the fault-free one", async () => {
    const ex = path.join(root, "examples/reviews");
    for (const name of [
      "meets-criteria",
      "hardcoded-tests",
      "scope-creep",
      "bloated",
      "noop-with-weak-tests",
    ]) {
      const context = gatherContext({
        criteria: path.join(ex, name, "criteria.md"),
        criteriaIsFile: true,
        diffFile: path.join(ex, name, "change.diff"),
        passed: 3,
        failed: 0,
      });
      const opts = {
        context,
        judges: ["local:a", "local:b"],
        n: 10,
        perDimension: false,
        quick: false,
        settings: settings(),
        judgeAllowed: { ok: true } as const,
      };
      faultsOn = false;
      const clean = await runReview(opts);
      faultsOn = true;
      const noisy = await runReview(opts);
      faultsOn = false;
      expect(
        noisy.samples.filter((s) => !s.valid),
        name,
      ).toEqual([]);
      expect(noisy.judgment?.dimensions, name).toEqual(clean.judgment?.dimensions);
      expect(noisy.verdict, name).toBe(clean.verdict);
    }
  }, 120_000);

  it("ran over at least 10,000 calls", () => {
    expect(server.requests.length).toBeGreaterThanOrEqual(10_000);
  });
});
