import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getRunResults, getRunSamples } from "@/db/queries/runs";
import type { RunOptions } from "@/db/schema";
import { panelStats } from "../judging/panel-stats";
import { hashString } from "../providers/mock-model";
import { compareRuns } from "../runs/compare";
import { executeRun } from "../runs/execute-run";
import { createRun } from "../runs/plan-run";
import { loadSuite } from "../suites/load-suite";
import { settingsFor, tempDb, testRegistry, testSuite } from "../testing/fixtures";
import { runJury } from "../testing/run-jury";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "../testing/scripted-server";

let server: ScriptedServer;
const { db, file } = tempDb();
const runIds: string[] = [];

/** Scores that vary by call, so two runs of the same suite differ. */
function varyingJudge(req: ScriptRequest) {
  const [lo, hi] = /scale of 1-5/.test(req.text) ? [1, 5] : [1, 10];
  return {
    json: {
      score: lo + (hashString(`${req.text}#${req.index}`) % (hi - lo + 1)),
      reasoning: `call ${req.index}`,
    },
  };
}

const opts = (judges: string[], n: number): RunOptions => ({
  judges,
  n,
  temperature: 0.8,
  concurrency: 8,
  noCache: true,
});

beforeAll(async () => {
  server = await startScriptedServer(varyingJudge);
  const { registry } = testRegistry();
  const settings = settingsFor(server.baseURL);
  const suite = loadSuite(testSuite(6));
  for (let i = 0; i < 2; i++) {
    const id = await createRun(db, suite, registry, opts(["local:a", "local:b"], 3));
    expect(await executeRun(db, id, { settings, registry })).toBe("done");
    runIds.push(id);
  }
}, 60_000);
afterAll(() => server.close());

const jury = (args: string[]) => runJury(args, { env: { JURY_DB: file } });
/** JSON as the CLI prints it: NaN and Infinity become null, as in JSON.stringify. */
const asPrinted = (v: unknown) => JSON.parse(JSON.stringify(v));

describe("jury runs", () => {
  it("compare A B --json gives what compareRuns (the compare page's function) computes, paired test included", async () => {
    const [a, b] = runIds;
    const r = await jury(["runs", "compare", a, b, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const want = compareRuns(getRunResults(db, { runId: a }), getRunResults(db, { runId: b }));
    expect(out.cells).toEqual(asPrinted(want.cells));
    expect(out.flips).toBe(want.flips);
    expect(out.meanAbsDelta).toBe(want.meanAbsDelta);
    expect(out.paired).toEqual(asPrinted(want.paired));
    // 6 cases × 3 criteria, every one scored in both runs
    expect(out.cells).toHaveLength(18);
    expect(out.paired.n).toBe(18);
    expect(out.a.id).toBe(a);
    expect(out.b.id).toBe(b);
    // the runs differ (the judge varies by call), so some deltas are not 0
    expect(out.cells.some((c: { delta: number | null }) => c.delta !== 0 && c.delta !== null)).toBe(true);
  });

  it("compare prints the table, the flips and the paired test", async () => {
    const r = await jury(["runs", "compare", runIds[0], runIds[1]]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /18 case × criterion cells in both runs · \d+ pass\/fail flips? · mean \|Δ\| \d\.\d\d/,
    );
    expect(r.stdout).toMatch(
      /paired test over 18 cells scored in both: mean B − A [+-]?\d\.\d\d, 95% interval \[/,
    );
    expect(r.stdout).toContain("case0");
  });

  it("show --json gives the verdicts and panelStats (the run page's alpha and self-consistency)", async () => {
    const id = runIds[0];
    const r = await jury(["runs", "show", id, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.run).toMatchObject({ id, status: "done", suite: "Test suite" });
    expect(out.panel_stats).toEqual(
      asPrinted(panelStats(getRunSamples(db, { runId: id }), ["local:a", "local:b"])),
    );
    expect(out.panel_stats.map((s: { criterionId: string }) => s.criterionId)).toEqual(["brief", "helpful"]);
    expect(out.panel_stats[0].judges.map((j: { judge: string }) => j.judge)).toEqual(["local:a", "local:b"]);
    const stored = getRunResults(db, { runId: id });
    expect(out.cases).toHaveLength(6);
    expect(out.cases.flatMap((c: { criteria: unknown[] }) => c.criteria)).toHaveLength(stored.length);
    expect(out.progress).toMatchObject({ total: 6 * (2 * 2 * 3 + 1), failed: 0, pending: 0 });
  });

  it("show prints the verdict table and, per criterion, alpha across judges and each judge's self-consistency", async () => {
    const r = await jury(["runs", "show", runIds[0]]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^case\s+criterion\s+score\s+threshold\s+result/m);
    expect(r.stdout).toMatch(/run run_\S+ done: \d+ of 18 case × criterion verdicts passed/);
    expect(r.stdout).toContain("Krippendorff's alpha");
    expect(r.stdout).toMatch(/^helpful\s+\(panel\)\s+(-?\d\.\d\d|—)/m);
    expect(r.stdout).toMatch(/^\s+local:a\s+(-?\d\.\d\d|—)\s+[+-]?\d\.\d\d/m);
  });

  it("list --json: id, suite, status, cases, tasks done and failed, cost, created", async () => {
    const r = await jury(["runs", "list", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.map((x: { id: string }) => x.id).sort()).toEqual([...runIds].sort());
    expect(out[0]).toMatchObject({
      suite: "Test suite",
      status: "done",
      cases: 6,
      tasks: { total: 78, done: 78, failed: 0, pending: 0 },
      cost_usd: expect.any(Number),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const text = await jury(["runs", "list", "--limit", "1"]);
    expect(text.stdout.trim().split("\n")).toHaveLength(3); // header, rule, one run
  });

  it("an unknown run id is a usage error naming it", async () => {
    const r = await jury(["runs", "compare", runIds[0], "run_nope"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('No run with id "run_nope"');
  });
});
