import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { LlmCriterion } from "@/lib/criteria/definition";
import { buildJudgePrompt, oversizeFields, truncateField } from "@/lib/judging/prompt";
import { estimateRun } from "@/lib/runs/estimate";
import { planRun } from "@/lib/runs/plan-run";
import { suiteSummaries } from "@/lib/runs/suite-summaries";
import { loadSuite } from "@/lib/suites/load-suite";
import { llmDefinition, tempDir, testRegistry, writeJson } from "@/lib/testing/fixtures";
import { runJury } from "@/lib/testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "@/lib/testing/scripted-server";
import { enableProviders } from "@/lib/testing/settings-db";

/**
 * Issue 16, item 7 (inputs): each case field sent to a judge has a budget (JURY_MAX_FIELD_CHARS,
 * default 50,000 characters) and is cut with a visible marker; the estimate and `jury eval` say so.
 */

const MB = 1_000_000;
const criterion = llmDefinition("helpful") as unknown as LlmCriterion;
const dataBlock = (prompt: string, name: string) =>
  prompt.match(new RegExp(`<data name="${name}">\\n([\\s\\S]*?)\\n</data>`))?.[1];

afterEach(() => {
  delete process.env.JURY_MAX_FIELD_CHARS;
  delete process.env.JURY_SUITES_DIR;
});

/** A suite with one ordinary case and one whose output file is 1 MB. */
function bigSuite(): string {
  const dir = tempDir("jury-budget-");
  writeJson(path.join(dir, "suite.json"), { name: "budget", criteria: [{ id: "helpful" }] });
  writeJson(path.join(dir, "cases", "small.json"), { id: "small", name: "small", output: "fine" });
  writeJson(path.join(dir, "cases", "big.json"), {
    id: "big",
    name: "big",
    input: { prompt: "Summarise." },
    output: { file: "big.txt" },
  });
  fs.writeFileSync(path.join(dir, "big.txt"), `${"lorem ipsum ".repeat(MB / 12)}THE-END`.slice(0, MB));
  return dir;
}

describe("buildJudgePrompt: every case field has a budget", () => {
  it("a 1 MB output is cut to the budget with the marker; the other fields too", () => {
    const big = "x".repeat(MB);
    const req = buildJudgePrompt(
      criterion,
      { prompt: big, context: big, reference: big, profile: { notes: big } },
      big,
      big,
    );
    const output = dataBlock(req.prompt, "output_to_evaluate")!;
    expect(output.length).toBeLessThanOrEqual(50_000);
    expect(output).toMatch(/\n\[… truncated by Jury: 95\d,\d{3} of 1,000,000 characters omitted …\]$/);
    for (const name of ["user_prompt", "context", "reference_answer", "profile"]) {
      const block = dataBlock(req.prompt, name)!;
      expect(block.length, name).toBeLessThanOrEqual(50_000);
      expect(block, name).toContain("characters omitted …]");
    }
    expect(req.prompt).toMatch(/Evaluation focus: x+\n\[… truncated by Jury: /);
    // six fields of at most 50,000 characters, plus the template and the tags
    expect(req.prompt.length).toBeLessThan(6 * 50_000 + 2_000);
    // the marker's counts add up: kept + omitted = original
    const [, omitted] = output.match(/truncated by Jury: ([\d,]+) of/)!;
    expect(output.indexOf("\n[… truncated") + Number(omitted.replaceAll(",", ""))).toBe(MB);
  });

  it("fields within the budget are sent whole; JURY_MAX_FIELD_CHARS moves the budget", () => {
    const text = "y".repeat(20_000);
    expect(dataBlock(buildJudgePrompt(criterion, {}, text).prompt, "output_to_evaluate")).toBe(text);
    process.env.JURY_MAX_FIELD_CHARS = "10000";
    const cut = dataBlock(buildJudgePrompt(criterion, {}, text).prompt, "output_to_evaluate")!;
    expect(cut.length).toBeLessThanOrEqual(10_000);
    expect(cut).toContain("of 20,000 characters omitted");
    expect(oversizeFields("c", {}, text)).toEqual([
      { caseId: "c", field: "output", chars: 20_000, budget: 10_000 },
    ]);
    process.env.JURY_MAX_FIELD_CHARS = "lots";
    expect(() => buildJudgePrompt(criterion, {}, text)).toThrow(
      `JURY_MAX_FIELD_CHARS="lots" must be a whole number of characters, at least 1000`,
    );
  });

  it("never splits a surrogate pair", () => {
    const emoji = "😀".repeat(30_000);
    const cut = truncateField(emoji, 1_000);
    expect(cut.length).toBeLessThanOrEqual(1_000);
    const kept = cut.slice(0, cut.indexOf("\n[…"));
    expect(kept).toBe("😀".repeat(kept.length / 2));
  });
});

describe("the estimate and the plan say which case fields are over the budget", () => {
  it("suiteSummaries → estimateRun lists the 1 MB output; its prompt size is the cut one", async () => {
    const suiteDir = bigSuite();
    process.env.JURY_SUITES_DIR = path.dirname(suiteDir);
    const { registry } = testRegistry();
    const summary = (await suiteSummaries(registry)).find((s) => s.dir === suiteDir)!;
    expect(summary.error).toBeUndefined();
    const e = estimateRun(summary, ["local:a"], 1, {}, 4);
    expect(e.warnings).toEqual([{ caseId: "big", field: "output", chars: MB, budget: 50_000 }]);
    // two cases, one cut to ~50,000 characters: the mean prompt is far below 500,000 characters
    expect(summary.meanPromptChars).toBeLessThan(30_000);
    expect(e.inputTokens).toBeLessThan(2 * 8_000);
  });

  it("planRun returns the same warnings (HTTP outputs included, as they are fetched there)", async () => {
    const { registry } = testRegistry();
    const plan = await planRun(loadSuite(bigSuite()), registry, {
      judges: ["local:a"],
      n: 1,
      temperature: 0,
      concurrency: 1,
      noCache: false,
    });
    expect(plan.warnings).toEqual([{ caseId: "big", field: "output", chars: MB, budget: 50_000 }]);
    // the stored output is whole: the cut happens where the prompt is built
    expect(plan.cases.find((c) => c.caseId === "big")?.output).toHaveLength(MB);
  });
});

describe("jury eval", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer(() => ({ json: { score: 7, reasoning: "ok" } }));
  });
  afterAll(() => server.close());

  it("prints the budget warning before the run starts, and the judge gets the cut output with the marker", async () => {
    const suiteDir = bigSuite();
    const criteria = tempDir("jury-budget-criteria-");
    writeJson(path.join(criteria, "helpful", "definition.json"), llmDefinition("helpful"));
    const db = enableProviders(path.join(tempDir("jury-budget-db-"), "jury.db"));
    const r = await runJury(["eval", suiteDir, "--judges", "local:judge", "--n", "1"], {
      env: { JURY_DB: db, JURY_LOCAL_BASE_URL: server.baseURL, JURY_CRITERIA_DIR: criteria },
    });
    expect([0, 1], r.stderr).toContain(r.code);
    const warning =
      'warning: case "big": output is 1,000,000 characters, over the 50,000-character budget (JURY_MAX_FIELD_CHARS)';
    expect(r.stderr).toContain(warning);
    expect(r.stderr.indexOf(warning)).toBeLessThan(r.stderr.indexOf("tasks to do"));
    const sent = server.requests.find((q) => q.text.includes("Summarise."))!;
    expect(sent.text.length).toBeLessThan(55_000);
    expect(sent.text).toMatch(/\[… truncated by Jury: 95\d,\d{3} of 1,000,000 characters omitted …\]/);
  }, 30_000);
});
