import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { setVerdictLabel } from "@/db/queries/labels";
import { getSettingsData, saveSettingsData } from "@/db/queries/settings";
import { showRunAgreement } from "../agreement/service";
import { hasErrorCode } from "../errors";
import type { ExperimentConfig } from "../memory/experiment";
import { CASES, seedRun } from "../testing/agreement-run";
import { tempDir } from "../testing/fixtures";
import { runJury } from "../testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { enableProviders } from "../testing/settings-db";
import { defaultEvalJudges, defaultFormJudges } from "./criteria-panels";
import { applyMemoryJudge, describePromotedMemoryJudge, promotedMemoryJudge, promotePanel } from "./promote";
import type { PromotionGuard } from "./promote-guard";
import { describeProvenance, reconcileProvenance } from "./provenance";
import { defaultSettings, type ProvenanceEntry, type Settings } from "./schema";
import { readSettings, readStoredSettings, writeSettings } from "./store";

const MJ = defaultSettings.memoryJudge;
const cfg = (c: Partial<ExperimentConfig>): ExperimentConfig => ({
  kind: "single",
  mode: "auto",
  topK: 3,
  poolSize: 15,
  shuffle: false,
  ...c,
});

describe("a configuration as the memory judge", () => {
  it("BM25: judge off, its top-k as max_output and fallback, the pool grown to the top-k, the model kept", () => {
    const p = promotedMemoryJudge(cfg({ kind: "bm25", topK: 20, mode: "search" }), MJ, "shop-api");
    expect(p).toEqual({
      collection: "shop-api",
      enabled: false,
      fallback_top_k: 20,
      modes: { search: { max_output: 20, candidate_pool_size: 20 } },
    });
    const block = applyMemoryJudge({ ...MJ, enabled: true }, p);
    expect(block).toMatchObject({ enabled: false, model: MJ.model, dual_verification: false });
    expect(block.modes.auto).toEqual(MJ.modes.auto);
    expect(block.modes.search).toEqual({ verification: "lenient", max_output: 20, candidate_pool_size: 20 });
  });

  it("a dual lenient judge: its collection, on, its model, dual, lenient, N, bodies and order, its pool and top-k; the fallback never above the top-k", () => {
    const p = promotedMemoryJudge(
      cfg({ kind: "dual_lenient", topK: 1, poolSize: 30, model: "local:j", n: 3, includeBody: true }),
      MJ,
      "shop-api",
    );
    expect(applyMemoryJudge(MJ, p)).toMatchObject({
      collection: "shop-api",
      enabled: true,
      samples: 3,
      include_body: true,
      shuffle: false,
      model: "local:j",
      dual_verification: true,
      fallback_top_k: 1,
      modes: { auto: { verification: "lenient", max_output: 1, candidate_pool_size: 30 } },
    });
    expect(describePromotedMemoryJudge(p)).toBe(
      "collection shop-api · judge on · local:j · dual · N=3 (majority) · with memory bodies · BM25 order · auto mode: lenient, max 1, pool 30 · fallback top 1",
    );
    // a single judge ran with the verification Settings had: it is left as it is
    expect(promotedMemoryJudge(cfg({ model: "local:j" }), MJ, "c").modes.auto?.verification).toBeUndefined();
  });

  it("a top-k the block cannot hold is refused, naming the limit", () => {
    expect(() => promotedMemoryJudge(cfg({ kind: "bm25", topK: 100 }), MJ, "c")).toThrow(
      /top-k 100 .* \(50\)/,
    );
  });
});

const entry = (over: Partial<ProvenanceEntry> = {}): ProvenanceEntry => ({
  source: "experiment",
  id: "exp_0123456789",
  label: "single judge · auto",
  figures: {
    precision: { value: 0.82, low: 0.71, high: 0.91, n: 20 },
    recall: { value: null, low: null, high: null, n: 0 },
  },
  at: "2026-11-23T10:00:00.000Z",
  value: { enabled: true, model: "local:j", modes: { auto: { max_output: 3 } } },
  ...over,
});

describe("provenance", () => {
  it("reads as one line with each figure's interval and n", () => {
    expect(describeProvenance(entry())).toBe(
      "from experiment exp_0123456789 (single judge · auto) on 2026-11-23: precision 0.82 [0.71, 0.91] n=20, recall — n=0",
    );
    expect(describeProvenance(entry({ overriddenAt: "2026-11-24T08:00:00.000Z" }))).toMatch(
      /; changed by hand on 2026-11-24 since: these figures describe the promoted values/,
    );
  });

  it("a hand edit of a promoted value marks it; of another value, not; a removed panel drops its entry", () => {
    const s: Settings = {
      ...defaultSettings,
      memoryJudge: { ...MJ, enabled: true, model: "local:j" },
      criteriaPanels: { helpful: ["local:a"] },
      provenance: {
        memoryJudge: entry(),
        "criteriaPanels.helpful": entry({ source: "run", id: "run_20260101_0000abcd", value: ["local:a"] }),
      },
    };
    const now = new Date("2026-11-24T08:00:00Z");
    const timeout = reconcileProvenance(
      s.provenance,
      { ...s, memoryJudge: { ...s.memoryJudge, timeout_per_call: 9 } },
      now,
    );
    expect(timeout.memoryJudge.overriddenAt).toBeUndefined();
    const model = reconcileProvenance(
      s.provenance,
      { ...s, memoryJudge: { ...s.memoryJudge, model: "local:k" } },
      now,
    );
    expect(model.memoryJudge.overriddenAt).toBe("2026-11-24T08:00:00.000Z");
    const reordered = reconcileProvenance(
      s.provenance,
      { ...s, criteriaPanels: { helpful: ["local:a", "local:b"] } },
      now,
    );
    expect(reordered["criteriaPanels.helpful"].overriddenAt).toBeDefined();
    expect(reconcileProvenance(s.provenance, { ...s, criteriaPanels: {} }, now)).not.toHaveProperty(
      "criteriaPanels.helpful",
    );
  });

  it("is never written from a form's payload, and a bad stored entry is dropped and reported, the rest of the row kept", async () => {
    const db = createDb(path.join(tempDir(), "p.db"));
    await writeSettings(db, { ...defaultSettings, provenance: { memoryJudge: entry() } });
    expect((await readSettings(db)).provenance).toEqual({});
    const stored = getSettingsData(db) as Record<string, unknown>;
    saveSettingsData(db, {
      ...stored,
      judging: { ...defaultSettings.judging, samples: 5 },
      provenance: { memoryJudge: { ...entry(), at: "yesterday" }, nowhere: entry() },
    });
    const r = await readStoredSettings(db);
    expect(r.settings.judging.samples).toBe(5);
    expect(r.settings.provenance).toEqual({});
    expect(Object.keys(r.problems).sort()).toEqual(["provenance.memoryJudge", "provenance.nowhere"]);
    expect(r.problems["provenance.memoryJudge"]).toMatch(/^at: /);
  });
});

/** The needs_confirmation refusal `f` throws, with its guard. */
async function refusalOf(f: () => unknown): Promise<{ message: string; guard: PromotionGuard }> {
  try {
    await f();
  } catch (err) {
    if (hasErrorCode(err, "needs_confirmation"))
      return { message: err.message, guard: err.details?.guard as PromotionGuard };
    throw err;
  }
  throw new Error("not refused");
}

describe("a run's panel or judge promoted from the agreement view", () => {
  it("becomes a criterion's default panel or the review judges, with its agreement figures; needs labels first", async () => {
    const db = createDb(path.join(tempDir(), "a.db"));
    const runId = await seedRun(db);
    await expect(
      promotePanel(db, { runId, criterionId: "helpful", judge: "panel", target: "criterion" }),
    ).rejects.toThrow(/No verdict of run_20260101_0000abcd on helpful is labelled by a person/);
    for (const [i, caseId] of CASES.entries())
      setVerdictLabel(db, { runId, caseId, criterionId: "helpful" }, { passed: i % 2 === 0, score: null });
    // 8 labels: asked first, with the figures; nothing written until confirmed
    const ask = { runId, criterionId: "helpful", judge: "panel", target: "criterion" as const };
    const refusal = await refusalOf(() => promotePanel(db, ask));
    expect(refusal.message).toMatch(
      /^The run's panel on helpful: It rests on 8 labelled cells \(fewer than 10\)\..* Figures: accuracy \d+ % \[\d+–\d+ %\] n=8; Cohen's κ -?\d\.\d\d \[-?\d\.\d\d, -?\d\.\d\d\] n=8; answered 8 of 8 labelled cells\. Confirm to use it anyway\.$/,
    );
    const codes = refusal.guard.warnings.map((w) => w.code);
    expect(codes).toContain("few_labels");
    expect((await readSettings(db)).criteriaPanels).toEqual({});
    // confirming only some of the warnings is still a refusal
    await expect(promotePanel(db, { ...ask, confirmed: ["low_coverage"] })).rejects.toThrow(
      /Confirm to use it anyway/,
    );
    const r = await promotePanel(db, { ...ask, confirmed: codes, now: new Date("2026-11-23T12:00:00Z") });
    expect(r.judges).toEqual(["local:a", "local:b"]);
    const s = await readSettings(db);
    expect(s.criteriaPanels).toEqual({ helpful: ["local:a", "local:b"] });
    const panel = (await showRunAgreement(db, runId))!.criteria[0].judges.find((j) => j.judge === "panel")!;
    expect(s.provenance["criteriaPanels.helpful"]).toMatchObject({
      source: "run",
      id: runId,
      at: "2026-11-23T12:00:00.000Z",
      figures: {
        accuracy: {
          value: panel.passFail.accuracy.value,
          low: panel.passFail.accuracy.low,
          high: panel.passFail.accuracy.high,
          n: 8,
        },
        "Cohen's κ": { n: 8 },
        "Krippendorff's α": { n: 8 },
      },
    });
    const b = { runId, criterionId: "helpful", judge: "local:b", target: "review" as const };
    await promotePanel(db, {
      ...b,
      confirmed: (await refusalOf(() => promotePanel(db, b))).guard.warnings.map((w) => w.code),
    });
    expect((await readSettings(db)).reviewJudges).toEqual(["local:b"]);
    expect((await readSettings(db)).provenance.reviewJudges.label).toMatch(
      /^local:b against people's labels on helpful · few labels, confirmed/,
    );
    await expect(
      promotePanel(db, { runId, criterionId: "helpful", judge: "local:zz", target: "review" }),
    ).rejects.toThrow(/local:zz did not judge helpful/);
  });
});

describe("default judges", () => {
  const s = {
    ...defaultSettings,
    providers: { ...defaultSettings.providers, local: { enabled: true, models: ["a", "b"] } },
  };
  it("jury eval: a criterion's promoted panel, the others the enabled judges; none promoted: one panel", () => {
    expect(defaultEvalJudges(s, ["x", "y"])).toEqual({
      judges: ["local:a", "local:b"],
      promoted: [],
      unjudged: [],
    });
    expect(defaultEvalJudges({ ...s, criteriaPanels: { x: ["openai:m"] } }, ["x", "y"])).toEqual({
      judges: ["openai:m", "local:a", "local:b"],
      criterionJudges: { x: ["openai:m"], y: ["local:a", "local:b"] },
      promoted: ["x"],
      unjudged: [],
    });
    expect(
      defaultEvalJudges({ ...defaultSettings, criteriaPanels: { x: ["local:a"] } }, ["x", "y"]).unjudged,
    ).toEqual(["y"]);
  });
  it("the run form preselects the promoted judges it offers, else every enabled one", () => {
    expect(defaultFormJudges({ ...s, criteriaPanels: { x: ["local:b", "openai:m"] } })).toEqual(["local:b"]);
    expect(defaultFormJudges({ ...s, criteriaPanels: { x: ["openai:m"] } })).toEqual(["local:a", "local:b"]);
  });
});

describe("jury settings and the promoted parts", () => {
  it("sets a new criterion's panel by hand, lists provenance as a line, and refuses to write provenance", async () => {
    const file = path.join(tempDir(), "c.db");
    const env = { JURY_DB: file };
    const set = await runJury(["settings", "set", "criteriaPanels.correctness", '["local:a","local:b"]'], {
      env,
    });
    expect([set.code, set.stdout]).toEqual([
      0,
      'criteriaPanels.correctness = ["local:a","local:b"] (was unset)\n',
    ]);
    const bad = await runJury(["settings", "set", "criteriaPanels.correctness", '["nocolon"]'], { env });
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("provider:model")]);
    const prov = await runJury(["settings", "set", "provenance.memoryJudge.id", "exp_x"], { env });
    expect([prov.code, prov.stderr]).toEqual([
      2,
      expect.stringContaining("provenance is written only by promotion"),
    ]);
    const db = createDb(file);
    const runId = await seedRun(db);
    setVerdictLabel(db, { runId, caseId: CASES[0], criterionId: "helpful" }, { passed: true, score: null });
    await promotePanel(db, {
      runId,
      criterionId: "helpful",
      judge: "local:a",
      target: "review",
      confirmed: ["few_labels", "weak_agreement", "low_coverage"],
    });
    db.$client.close();
    const list = await runJury(["settings", "list"], { env });
    expect(list.stdout).toContain('reviewJudges = ["local:a"]\n');
    expect(list.stdout).toMatch(
      /\nprovenance\.reviewJudges = from run run_20260101_0000abcd \(local:a against people's labels on helpful · few labels, confirmed · κ interval reaches 0, confirmed\) on \d{4}-\d\d-\d\d: accuracy 1\.00 \[0\.21, 1\.00\] n=1, /,
    );
    expect(list.stdout).not.toContain("provenance.reviewJudges.figures");
  });
});

describe("the CLI reads the promoted judges", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer(() => ({ json: { score: 8, reasoning: "fine" } }));
  });
  afterAll(() => server.close());

  it("jury eval without --judges judges a criterion with its promoted panel only, and its verdict counts that panel", async () => {
    const file = await enableProviders(path.join(tempDir(), "e.db"), ["local"], (x) => ({
      ...x,
      providers: { ...x.providers, local: { enabled: true, models: ["a", "b"] } },
      criteriaPanels: { correctness: ["local:b"] },
    }));
    const suite = path.join(tempDir(), "suite");
    fs.mkdirSync(path.join(suite, "cases"), { recursive: true });
    fs.writeFileSync(
      path.join(suite, "suite.json"),
      JSON.stringify({ name: "two", criteria: [{ id: "correctness" }, { id: "conciseness" }] }),
    );
    fs.writeFileSync(
      path.join(suite, "cases", "one.json"),
      JSON.stringify({ id: "one", name: "one", input: { prompt: "2+2?", reference: "4" }, output: "4" }),
    );
    const r = await runJury(["eval", suite, "--n", "1", "--json"], {
      env: { JURY_DB: file, JURY_LOCAL_BASE_URL: server.baseURL },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("correctness: judged by its default panel from Settings (local:b)");
    const d = new Database(file, { readonly: true });
    const tasks = d.prepare("select criterion_id as c, judge from tasks order by c, judge").all();
    d.close();
    expect(tasks).toEqual([
      { c: "conciseness", judge: "local:a" },
      { c: "conciseness", judge: "local:b" },
      { c: "correctness", judge: "local:b" },
    ]);
    const out = JSON.parse(r.stdout);
    const verdict = (id: string) =>
      out.cases[0].criteria.find((c: { criterion_id: string }) => c.criterion_id === id);
    expect(verdict("correctness").coverage).toMatchObject({ judges_asked: 1, judges_answered: 1 });
    expect(verdict("conciseness").coverage).toMatchObject({ judges_asked: 2, judges_answered: 2 });
  });

  it("jury review without --judges or JUDGE_MODEL asks the promoted review judges, and a refusal says where they came from", async () => {
    const file = await enableProviders(path.join(tempDir(), "r.db"), ["local"], (x) => ({
      ...x,
      reviewJudges: ["openai:gpt-5-mini"],
    }));
    const diff = path.join(tempDir(), "c.diff");
    fs.writeFileSync(diff, "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
    const r = await runJury(
      ["review", "--diff", diff, "--criteria", "Change a to b.", "--passed", "1", "--failed", "0"],
      {
        env: { JURY_DB: file, JUDGE_ENABLED: "true", JUDGE_MODEL: "", OPENAI_API_KEY: "" },
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the review judges promoted in Settings (reviewJudges)");
    expect(r.stderr).toContain("openai:gpt-5-mini");
  });
});
