import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getCachedResponse } from "@/db/queries/runs";
import { buildJudgePrompt } from "../judging/prompt";
import type { Settings } from "../settings/schema";
import { settingsFor, tempDb, testRegistry } from "../testing/fixtures";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "../testing/scripted-server";
import { freshStore, type Store, storeKinds } from "../testing/stores";
import type { LlmCriterion } from "./definition";
import { playgroundCacheKey, tryCriterion } from "./playground";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

/** local:a scores 8, local:b scores 4, local:bad answers out of scale, local:fail answers 400. */
function panel(req: ScriptRequest) {
  if (req.model === "fail") return { status: 400, message: "model fail does not exist" };
  if (req.model === "bad") return { json: { score: 42, reasoning: "off the scale" } };
  return { json: { score: req.model === "a" ? 8 : 4, reasoning: `judge ${req.model} #${req.index}` } };
}

function settingsWith(models: string[]): Settings {
  const s = settingsFor(server.baseURL);
  return {
    ...s,
    providers: { ...s.providers, local: { enabled: true, models } },
    prices: { "local:a": { inputPerMTok: 1, outputPerMTok: 2 } },
  };
}

const input = { prompt: "What is 2 + 2?", reference: "4" };

describe("tryCriterion", () => {
  it("samples each judge N times with the run's prompt, aggregates them as a run does, and stores nothing but the cache", async () => {
    server.setScript(panel);
    const { db } = tempDb();
    const { registry } = testRegistry();
    const settings = settingsWith(["a", "b"]);
    const before = server.requests.length;
    const r = await tryCriterion(db, registry, settings, {
      criterionId: "helpful",
      judges: ["local:a", "local:b"],
      n: 3,
      input,
      output: "4",
    });
    const calls = server.requests.slice(before);
    expect(calls).toHaveLength(6);
    // exactly the prompt a run sends for this input and output
    const expected = buildJudgePrompt(registry.criteria.get("helpful") as LlmCriterion, input, "4");
    expect(r.request).toEqual({ system: expected.system, prompt: expected.prompt });
    for (const c of calls) expect(c.text).toContain(expected.prompt);

    expect(r.samples.map((s) => [s.judge, s.sampleIndex, s.score])).toEqual([
      ["local:a", 0, 8],
      ["local:a", 1, 8],
      ["local:a", 2, 8],
      ["local:b", 0, 4],
      ["local:b", 1, 4],
      ["local:b", 2, 4],
    ]);
    expect(r.verdict.final_score).toBe(6);
    expect(r.verdict.cross_model_std).toBe(2);
    expect(r.verdict.consensus_level).toBe("LOW");
    expect(r.verdict.flag_for_review).toBe(true);
    expect(r.verdict.passed).toBe(true); // 6 ≥ the default threshold 6
    expect(r.verdict.coverage).toMatchObject({ judges_asked: 2, judges_answered: 2, samples_asked: 6 });
    expect(r.calls).toMatchObject({ live: 6, cached: 0, unpriced: ["local:b"] });
    // local:a is priced, local:b is not: unpriced, never $0
    expect(r.samples.find((s) => s.judge === "local:a")?.costUsd).toBeGreaterThan(0);
    expect(r.samples.find((s) => s.judge === "local:b")?.costUsd).toBeNull();
    // no run, no sample row: only the cache
    const count = (t: string) =>
      (db.$client.prepare(`select count(*) as n from ${t}`).get() as { n: number }).n;
    expect(count("runs")).toBe(0);
    expect(count("samples")).toBe(0);
    expect(count("response_cache")).toBe(6);
  });

  it("aggregates with Settings' panel options, as a run does", async () => {
    server.setScript(panel);
    const { db } = tempDb();
    const { registry } = testRegistry();
    const s = settingsWith(["a", "b"]);
    const settings = { ...s, judging: { ...s.judging, flagLowConsensus: false, reportUncertainty: false } };
    const r = await tryCriterion(db, registry, settings, {
      criterionId: "helpful",
      judges: ["local:a", "local:b"],
      n: 1,
      input,
      output: "4",
    });
    expect(r.verdict.final_score).toBe(6);
    expect(r.verdict).toMatchObject({
      flag_for_review: false,
      consensus_level: null,
      cross_model_std: null,
      agreement: "not reported",
    });
    expect(r.verdict.panel).toMatchObject({ flag_low_consensus: false, report_uncertainty: false });
  });

  it("a failing judge and an out-of-scale answer are failed samples, counted apart from the aggregate and never cached", async () => {
    server.setScript(panel);
    const { db } = tempDb();
    const { registry } = testRegistry();
    const settings = settingsWith(["a", "fail", "bad"]);
    const r = await tryCriterion(db, registry, settings, {
      criterionId: "brief",
      judges: ["local:a", "local:fail", "local:bad"],
      n: 1,
      input,
      output: "4",
    });
    const fail = r.samples.find((s) => s.judge === "local:fail");
    expect(fail?.score).toBeNull();
    expect(fail?.error).toMatch(/HTTP 400/);
    // brief's scale is 1–5: local:a's 8 is out of it too
    expect(r.samples.find((s) => s.judge === "local:bad")?.error).toMatch(/outside the scale 1–5/);
    expect(r.verdict.coverage).toMatchObject({ judges_asked: 3, judges_answered: 0, samples_failed: 3 });
    expect(r.verdict.final_score).toBeNull();
    expect((db.$client.prepare("select count(*) as n from response_cache").get() as { n: number }).n).toBe(0);
  });

  it("refuses a judge Settings does not enable, an N out of range and an unknown criterion, naming them", async () => {
    const { db } = tempDb();
    const { registry } = testRegistry();
    const settings = settingsWith(["a"]);
    const base = { criterionId: "helpful", judges: ["local:a"], n: 1, input, output: "x" };
    await expect(tryCriterion(db, registry, settings, { ...base, judges: ["openai:gpt-5"] })).rejects.toThrow(
      "Not enabled in Settings: openai:gpt-5",
    );
    await expect(tryCriterion(db, registry, settings, { ...base, judges: [] })).rejects.toThrow(
      "Pick at least one judge",
    );
    await expect(tryCriterion(db, registry, settings, { ...base, n: 11 })).rejects.toThrow(
      "N must be a whole number from 1 to 10, got 11",
    );
    await expect(tryCriterion(db, registry, settings, { ...base, criterionId: "nope" })).rejects.toThrow(
      'No criterion "nope"',
    );
  });

  it("runs a deterministic criterion once in the worker, with its parameters over the definition's", async () => {
    const { db } = tempDb();
    const { registry } = testRegistry();
    const settings = settingsWith(["a"]);
    const before = server.requests.length;
    const short = await tryCriterion(db, registry, settings, {
      criterionId: "short",
      judges: ["local:a"],
      n: 5,
      input,
      output: "a".repeat(100),
      params: { max_chars: 60 },
    });
    expect(server.requests.length).toBe(before); // no judge is called
    expect(short.params).toEqual({ max_chars: 60 });
    expect(short.samples).toHaveLength(1);
    expect(short.samples[0]).toMatchObject({ judge: "deterministic", score: 0 });
    expect(short.verdict).toMatchObject({ final_score: 0, passed: false, agreement: "deterministic" });
    const fits = await tryCriterion(db, registry, settings, {
      criterionId: "short",
      judges: [],
      n: 1,
      input,
      output: "a".repeat(100),
    });
    expect(fits.params).toEqual({ max_chars: 1000 });
    expect(fits.verdict).toMatchObject({ final_score: 1, passed: true });
  });
});

describe.each(storeKinds())("tryCriterion's cache on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("a second try of the same input comes from the cache, under the key a run uses, and noCache calls again", async () => {
    server.setScript(panel);
    const { db } = store;
    const { registry } = testRegistry();
    const settings = settingsWith(["a"]);
    const req = { criterionId: "helpful", judges: ["local:a"], n: 2, input, output: "four" };
    const first = await tryCriterion(db, registry, settings, req);
    const before = server.requests.length;
    const again = await tryCriterion(db, registry, settings, req);
    expect(server.requests.length).toBe(before);
    expect(again.samples.every((s) => s.cached && s.score === 8)).toBe(true);
    // nothing spent this time; each cached answer shows the cost its original call had
    expect(again.calls).toMatchObject({ live: 0, cached: 2, costUsd: 0 });
    expect(first.samples.every((s) => (s.costUsd ?? 0) > 0)).toBe(true);
    expect(again.samples.map((s) => s.costUsd)).toEqual(first.samples.map((s) => s.costUsd));

    // the key is a run's key: sha256 of [judge, system, prompt, temperature, schema, sample index]
    const p = buildJudgePrompt(registry.criteria.get("helpful") as LlmCriterion, input, "four");
    const runKey = createHash("sha256")
      .update(JSON.stringify(["local:a", p.system, p.prompt, settings.judging.temperature, p.schema, 1]))
      .digest("hex");
    expect(playgroundCacheKey("local:a", p, settings.judging.temperature, 1)).toBe(runKey);
    expect((await getCachedResponse(db, runKey))?.text).toContain('"score":8');

    const fresh = await tryCriterion(db, registry, settings, { ...req, noCache: true });
    expect(server.requests.length).toBe(before + 2);
    expect(fresh.samples.every((s) => !s.cached)).toBe(true);
  });
});
