// Acceptance: a run against the scripted server with 4 judges (one noise, one biased high) × N=5
// over 60 cases, people's labels on every verdict. The optimizer's full panel equals the run's stored
// verdicts; the frontier leaves out the noise judge; the recommendation's agreement and cost, and
// the non-inferiority test behind it, are recomputed here from the raw sample rows.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type SqliteDb as Db } from "@/db/client";
import { setVerdictLabels } from "@/db/queries/labels";
import { tempDir, writeJson } from "../testing/fixtures";
import { runJury } from "../testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { enableProviders } from "../testing/settings-db";
import { DEFAULT_MARGIN, type PanelReport } from "./engine";
import { optimizeRun } from "./run-panel";
import {
  goldOf,
  PANEL_CASES,
  PANEL_JUDGES,
  PANEL_N,
  PANEL_PRICES,
  panelCaseId,
  panelScoreOf,
} from "./test-run";

let server: ScriptedServer;
let dbFile: string;
let db: Db;
let runId: string;
let report: PanelReport;

beforeAll(async () => {
  const drawn = new Map<string, number>();
  server = await startScriptedServer((req) => {
    const i = Number(/PANELCASE-(\d+)/.exec(req.text)?.[1]);
    const key = `${req.model}#${i}`;
    const k = drawn.get(key) ?? 0;
    drawn.set(key, k + 1);
    return { json: { score: panelScoreOf(req.model, i, k), reasoning: "the same length for every judge" } };
  });
  const suite = tempDir("jury-panel-suite-");
  writeJson(path.join(suite, "suite.json"), {
    name: "panel",
    criteria: [{ id: "correctness", threshold: 6 }],
  });
  for (let i = 0; i < PANEL_CASES; i++)
    writeJson(path.join(suite, "cases", `${panelCaseId(i)}.json`), {
      id: panelCaseId(i),
      name: `Case ${i}`,
      input: { prompt: `PANELCASE-${i}`, reference: "the reference" },
      output: "an answer",
    });
  dbFile = await enableProviders(path.join(tempDir(), "panel.db"), ["local"], (s) => ({
    ...s,
    prices: PANEL_PRICES,
  }));
  const r = await runJury(
    ["eval", suite, "--judges", PANEL_JUDGES.join(","), "--n", String(PANEL_N), "--json"],
    {
      cwd: tempDir(),
      env: { JURY_DB: dbFile, JURY_LOCAL_BASE_URL: server.baseURL },
    },
  );
  expect([0, 1], r.stderr).toContain(r.code);
  runId = JSON.parse(r.stdout).run_id;
  db = createDb(dbFile);
  setVerdictLabels(
    db,
    Array.from({ length: PANEL_CASES }, (_, i) => ({
      runId,
      caseId: panelCaseId(i),
      criterionId: "correctness",
      passed: goldOf(i),
      score: null,
    })),
    { source: "human" },
  );
  report = (await optimizeRun(db, runId, { prices: PANEL_PRICES })).criteria[0];
}, 180_000);
afterAll(async () => {
  db?.$client.close();
  await server?.close();
});

type Row = { caseId: string; judge: string; k: number; score: number | null; input: number; output: number };
const rows = (): Row[] =>
  db.$client
    .prepare(
      `select case_id as caseId, judge, sample_index as k, score, input_tokens as input, output_tokens as output
       from samples where run_id = ? and superseded_at is null`,
    )
    .all(runId) as Row[];

/** A configuration recomputed from the raw rows: mean of each judge's first n answered scores, then the mean of the means. */
function recompute(judges: readonly string[], n: number) {
  const all = rows();
  let correct = 0;
  let cost = 0;
  const passed: boolean[] = [];
  for (let i = 0; i < PANEL_CASES; i++) {
    const means = judges.flatMap((j) => {
      const s = all.filter(
        (r) => r.caseId === panelCaseId(i) && r.judge === j && r.k < n && r.score !== null,
      );
      return s.length ? [s.reduce((a, r) => a + (r.score as number), 0) / s.length] : [];
    });
    const pass = means.reduce((a, b) => a + b, 0) / means.length >= 6;
    passed.push(pass);
    if (pass === goldOf(i)) correct++;
  }
  for (const r of all)
    if (judges.includes(r.judge) && r.k < n) {
      const p = PANEL_PRICES[r.judge as keyof typeof PANEL_PRICES];
      cost += (r.input * p.inputPerMTok + r.output * p.outputPerMTok) / 1e6;
    }
  return { correct, costPerVerdict: cost / PANEL_CASES, passed };
}

describe("the panel optimizer on a labelled run", () => {
  it("recomputes the full panel's verdicts equal to the ones the run stored", () => {
    expect(report.verdicts).toBe(PANEL_CASES);
    expect(report.labelled).toBe(PANEL_CASES);
    expect(report.fullCheck).toEqual({ verdicts: PANEL_CASES, equal: PANEL_CASES, differing: [] });
    const stored = db.$client
      .prepare("select case_id as caseId, passed from results where run_id = ? order by case_id")
      .all(runId) as { caseId: string; passed: number }[];
    const storedCorrect = stored.filter(
      (s) => Boolean(s.passed) === goldOf(Number(s.caseId.slice(4))),
    ).length;
    expect(report.full.correct).toBe(storedCorrect);
    expect(report.full).toMatchObject({ judges: PANEL_JUDGES, n: PANEL_N, flips: 0 });
    expect(report.configs).toHaveLength(15 * PANEL_N);
  });

  it("every configuration's agreement and flips equal a recomputation from the raw samples", () => {
    const full = recompute(PANEL_JUDGES, PANEL_N);
    for (const c of report.configs) {
      const r = recompute(c.judges, c.n);
      expect(c.correct, c.id).toBe(r.correct);
      expect(c.flips, c.id).toBe(r.passed.filter((p, i) => p !== full.passed[i]).length);
      expect(c.costUsd, c.id).toBeCloseTo(r.costPerVerdict, 12);
    }
  });

  it("the frontier leaves out the noise judge, and the biased judge alone is not on it", () => {
    expect(report.frontier.length).toBeGreaterThan(1);
    for (const id of report.frontier) expect(id).not.toContain("local:noise");
    expect(report.frontier).not.toContain("local:high × 1");
    const noise = report.configs.find((c) => c.id === "local:noise × 5");
    const good = report.configs.find((c) => c.id === "local:good × 5");
    expect(noise && good && noise.correct < good.correct).toBe(true);
  });

  it("recommends the cheapest configuration the paired test clears, with its agreement and cost recomputed", () => {
    const rec = report.recommendation;
    expect(rec.status).toBe("recommended");
    if (rec.status !== "recommended") return;
    const c = report.configs.find((x) => x.id === rec.config);
    if (!c) throw new Error(`no ${rec.config}`);
    const mine = recompute(c.judges, c.n);
    expect(c.accuracy.value).toBeCloseTo(mine.correct / PANEL_CASES, 12);
    expect(c.costUsd).toBeCloseTo(mine.costPerVerdict, 12);
    expect(c.costUsd).toBeLessThan(report.full.costUsd as number);
    // the Agresti–Min one-sided bound, by hand, for every configuration: the pick is the cheapest that clears it
    const full = recompute(PANEL_JUDGES, PANEL_N);
    const clears = report.configs.filter((x) => {
      const r = recompute(x.judges, x.n);
      let b = 0;
      let w = 0;
      for (let i = 0; i < PANEL_CASES; i++) {
        const me = r.passed[i] === goldOf(i);
        const them = full.passed[i] === goldOf(i);
        if (me && !them) b++;
        if (!me && them) w++;
      }
      const m = PANEL_CASES + 2;
      const d = (b - w) / m;
      const se = Math.sqrt(b + w + 1 - (b - w) ** 2 / m) / m;
      return x.full || d - 1.6448536269514722 * se > -DEFAULT_MARGIN;
    });
    const cheapest = clears.sort((a, b) => (a.costUsd as number) - (b.costUsd as number))[0];
    expect(rec.config).toBe(cheapest.id);
    expect(c.test.nonInferior).toBe(true);
    expect(c.kappa.low).not.toBeNull();
  });

  it("jury panel optimize --json prints the same report; the text names the recommendation", async () => {
    const env = { JURY_DB: dbFile };
    const r = await runJury(["panel", "optimize", runId, "--json"], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.criteria[0]).toEqual(JSON.parse(JSON.stringify(report)));
    const text = await runJury(["panel", "optimize", runId, "--margin", "0.1"], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("full panel recomputed: 60 of 60 stored verdicts equal");
    expect(text.stdout).toMatch(/Recommended: .+ × \d/);
    const bad = await runJury(["panel", "optimize", runId, "--margin", "0.9"], { env });
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("--margin")]);
    const none = await runJury(["panel", "optimize", "run_nope"], { env });
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining("run_nope")]);
    expect(fs.existsSync(dbFile)).toBe(true);
  });
});
