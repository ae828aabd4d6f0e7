import path from "node:path";
import { describe, expect, it } from "vitest";
import { getRunById, getRunCases } from "@/db/queries/runs";
import type { RunOptions } from "@/db/schema";
import { loadCriteria } from "../criteria/registry";
import { loadSuite } from "../suites/load-suite";
import { lengthOk, llmDefinition, tempDb, testRegistry, testSuite, writeJson } from "../testing/fixtures";
import { compareConfigs } from "./compare-config";
import { createRun } from "./plan-run";

const opts = (patch: Partial<RunOptions> = {}): RunOptions => ({
  judges: ["local:a", "local:b"],
  n: 2,
  temperature: 0.8,
  concurrency: 2,
  noCache: false,
  ...patch,
});

describe("compare configurations", () => {
  it("two runs of the same suite and panel: nothing differs", async () => {
    const { db } = tempDb();
    const { registry } = testRegistry();
    const suite = loadSuite(testSuite(2));
    const a = await createRun(db, suite, registry, opts());
    const b = await createRun(db, suite, registry, opts());
    const side = (id: string) => ({ run: getRunById(db, { id })!, cases: getRunCases(db, { runId: id }) });
    const rows = compareConfigs(side(a), side(b));
    expect(rows.filter((r) => r.differs)).toEqual([]);
    // the criteria's versions and hashes were snapshotted when each run was planned
    expect(rows.find((r) => r.key === "helpful.version")).toMatchObject({ a: "1.0", b: "1.0" });
    expect(rows.find((r) => r.key === "helpful.hash")?.a).toMatch(/^[0-9a-f]{12}$/);
    expect(rows.find((r) => r.key === "short.hash")?.label).toBe("short: function (hash)");
  });

  it("marks what changed: judges, N, temperature, a criterion's template and version, the cases", async () => {
    const { db } = tempDb();
    const { dir, registry } = testRegistry();
    const suiteDir = testSuite(2);
    const a = await createRun(db, loadSuite(suiteDir), registry, opts());
    // the criterion's template and version change, a case's output changes, the panel changes
    const def = llmDefinition("helpful");
    writeJson(path.join(dir, "helpful", "definition.json"), {
      ...def,
      version: "1.1",
      prompt_template: `${def.prompt_template} Penalise hedging.`,
    });
    writeJson(path.join(suiteDir, "cases", "case1.json"), {
      id: "case1",
      name: "Case 1",
      input: { prompt: "Question 1?", reference: "Answer 1" },
      output: "A different answer.",
    });
    const changed = { ...loadCriteria(dir, { short: { lengthOk } }), logicWorker: registry.logicWorker };
    const b = await createRun(
      db,
      loadSuite(suiteDir),
      changed,
      opts({ judges: ["local:a", "local:c"], n: 3, temperature: 0.2, noCache: true }),
    );
    const side = (id: string) => ({ run: getRunById(db, { id })!, cases: getRunCases(db, { runId: id }) });
    const rows = compareConfigs(side(a), side(b));
    const differing = rows.filter((r) => r.differs).map((r) => r.key);
    expect(differing).toEqual([
      "suite.cases",
      "panel.judges",
      "panel.n",
      "panel.temperature",
      "panel.cache",
      "helpful.version",
      "helpful.hash",
    ]);
    expect(rows.find((r) => r.key === "panel.judges")).toMatchObject({
      a: "local:a, local:b",
      b: "local:a, local:c",
    });
    expect(rows.find((r) => r.key === "helpful.version")).toMatchObject({ a: "1.0", b: "1.1" });
    expect(rows.find((r) => r.key === "helpful.hash")?.hint).toContain("different prompt");
    // the other criteria are the same in both
    expect(rows.find((r) => r.key === "brief.hash")?.differs).toBe(false);
  });

  it("a run planned before snapshots says 'not recorded'; a criterion in one run only says so", () => {
    const crit = (id: string, extra = {}) => ({
      id,
      type: "llm" as const,
      scale: [1, 10] as [number, number],
      threshold: 6,
      params: {},
      ...extra,
    });
    const run = { suiteName: "s", suitePath: "/s", options: opts() };
    const rows = compareConfigs(
      { run, cases: [{ caseId: "c", name: "C", input: {}, output: "o", criteria: [crit("x")] }] },
      {
        run,
        cases: [
          {
            caseId: "c",
            name: "C",
            input: {},
            output: "o",
            criteria: [crit("x", { version: "2", definitionHash: "abc" }), crit("y")],
          },
        ],
      },
    );
    expect(rows.find((r) => r.key === "x.version")).toMatchObject({
      a: "not recorded",
      b: "2",
      differs: true,
    });
    expect(rows.find((r) => r.key === "y.threshold")).toMatchObject({ a: "not in this run", b: "6" });
  });
});
