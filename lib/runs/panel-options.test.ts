import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getRunResults } from "@/db/queries/runs";
import type { CriterionVerdict } from "../judging/aggregate";
import { loadSuite } from "../suites/load-suite";
import { settingsFor, tempDb, tempDir, testRegistry, writeJson } from "../testing/fixtures";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { executeRun } from "./execute-run";
import { createRun, panelOptionsOf } from "./plan-run";

let server: ScriptedServer;
// judge "a" always scores 8, judge "b" always 6 (4 and 2 on a 1–5 criterion): the std of the two means is 1
beforeAll(async () => {
  server = await startScriptedServer((req) => {
    const small = /scale of 1-5/.test(req.text);
    return {
      json: { score: (req.model === "a" ? 8 : 6) - (small ? 4 : 0), reasoning: `judge ${req.model}` },
    };
  });
});
afterAll(() => server.close());

/** The test-case shape: llm_criteria.focus_areas and prompt_hint; panel options per criterion. */
function suite(criteria: Record<string, unknown>[]): string {
  const dir = tempDir("jury-suite-");
  writeJson(path.join(dir, "suite.json"), {
    name: "Panel options",
    criteria,
    llm_prompt_hint: "Suite-wide hint.",
  });
  writeJson(path.join(dir, "cases", "focused.json"), {
    id: "focused",
    name: "Focused",
    input: { prompt: "Recommend three podcasts." },
    output: "1. A 2. B 3. C",
    llm_criteria: {
      focus_areas: ["spans several themes", "no duplicates"],
      prompt_hint: "Check the list covers distinct topics.",
    },
  });
  writeJson(path.join(dir, "cases", "plain.json"), {
    id: "plain",
    name: "Plain",
    input: { prompt: "Recommend one podcast." },
    output: "A",
  });
  return dir;
}

async function run(criteria: Record<string, unknown>[], judging: Record<string, unknown> = {}) {
  const { db } = tempDb();
  const { registry } = testRegistry();
  const settings = settingsFor(server.baseURL, judging);
  const before = server.requests.length;
  const runId = await createRun(db, loadSuite(suite(criteria)), registry, {
    judges: ["local:a", "local:b"],
    n: 1,
    temperature: 0.8,
    concurrency: 4,
    noCache: true,
    panel: panelOptionsOf(settings.judging),
  });
  await executeRun(db, runId, { settings, registry });
  const verdicts = getRunResults(db, { runId }).map((r) => ({
    caseId: r.caseId,
    v: r.data as CriterionVerdict,
  }));
  return { verdicts, requests: server.requests.slice(before) };
}

describe("a test case's llm_criteria reach the prompt", () => {
  it("focus_areas and prompt_hint are in the exact messages the judges received; a case without them gets the suite's hint", async () => {
    const { requests } = await run([{ id: "helpful" }]);
    expect(requests).toHaveLength(4); // 2 cases × 1 criterion × 2 judges
    const focused = requests.filter((r) => r.text.includes("Recommend three podcasts."));
    const plain = requests.filter((r) => r.text.includes("Recommend one podcast."));
    expect(focused).toHaveLength(2);
    for (const r of focused) {
      const user = r.messages.find((m) => m.role === "user");
      const text = typeof user?.content === "string" ? user.content : JSON.stringify(user?.content);
      expect(text).toContain(
        "Evaluation focus: Check the list covers distinct topics.\n\nFocus areas:\n- spans several themes\n- no duplicates",
      );
      expect(text).not.toContain("Suite-wide hint.");
    }
    for (const r of plain) {
      expect(r.text).toContain("Evaluation focus: Suite-wide hint.");
      expect(r.text).not.toContain("Focus areas:");
    }
  });
});

describe("the panel options, per panel (Settings) and per criterion (suite.json)", () => {
  it("consensus_threshold replaces the fixed 1.5: the same spread is flagged under 0.5, not under the default", async () => {
    const plain = (await run([{ id: "helpful" }])).verdicts.map((x) => x.v);
    const strict = (await run([{ id: "helpful", consensus_threshold: 0.5 }])).verdicts.map((x) => x.v);
    for (const v of [...plain, ...strict]) {
      expect(v.cross_model_std).toBe(1);
      expect(v.consensus_level).toBe("PARTIAL");
    }
    expect(plain.map((v) => [v.panel.consensus_threshold, v.flag_for_review])).toEqual([
      [1.5, false],
      [1.5, false],
    ]);
    expect(strict.map((v) => [v.panel.consensus_threshold, v.flag_for_review])).toEqual([
      [0.5, true],
      [0.5, true],
    ]);
  });

  it("the panel's threshold from Settings applies to every criterion without its own", async () => {
    const { verdicts } = await run([{ id: "helpful" }], { consensusThreshold: 0.9 });
    for (const { v } of verdicts) {
      expect(v.panel.consensus_threshold).toBe(0.9);
      expect(v.flag_for_review).toBe(true); // 1.0 > 0.9
    }
  });

  it("flag_low_consensus false never flags; report_uncertainty false reports no std and no level", async () => {
    const { verdicts } = await run([
      { id: "helpful", consensus_threshold: 0.1, flag_low_consensus: false },
      { id: "brief", threshold: 2, report_uncertainty: false },
    ]);
    const helpful = verdicts.find((x) => x.v.criterion_id === "helpful")!.v;
    expect(helpful.flag_for_review).toBe(false);
    expect(helpful.consensus_level).toBe("PARTIAL");
    const brief = verdicts.find((x) => x.v.criterion_id === "brief")!.v;
    expect(brief).toMatchObject({ cross_model_std: null, consensus_level: null, agreement: "not reported" });
    expect(brief.final_score).toBe(3); // the score itself is still reported
    expect(brief.coverage.judges_answered).toBe(2);
  });
});
