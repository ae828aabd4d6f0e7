import { describe, expect, it } from "vitest";
import type { ResultRow, RunCase, Sample } from "../domain";
import { aggregateAcrossModels } from "../judging/aggregate";
import { runCoverage } from "./coverage";
import {
  cellMatches,
  DEFAULT_TRIAGE,
  parseTriageQuery,
  type TriageQuery,
  triageCells,
  triageSearch,
  triageView,
  verdictsHeading,
} from "./triage";

type S = Pick<Sample, "caseId" | "criterionId" | "judge" | "score" | "error">;
const ok = (caseId: string, criterionId: string, judge: string, score: number): S => ({
  caseId,
  criterionId,
  judge,
  score,
  error: null,
});
const bad = (caseId: string, criterionId: string, judge: string): S => ({
  caseId,
  criterionId,
  judge,
  score: null,
  error: "HTTP 500",
});

const crit = (id: string, threshold = 6) => ({
  id,
  type: "llm" as const,
  scale: [1, 10] as [number, number],
  threshold,
  params: {},
});
const cases = ["c1", "c2", "c3"].map(
  (caseId) =>
    ({ caseId, criteria: [crit("helpful"), crit("brief")] }) as Pick<RunCase, "caseId" | "criteria">,
);

// c1: all answered, both judges agree and pass; c2 helpful: judge b failed once, a straddles the
// threshold; c3 brief: judges far apart (flagged), fail
const samples: S[] = [
  ok("c1", "helpful", "a", 8),
  ok("c1", "helpful", "a", 8),
  ok("c1", "helpful", "b", 8),
  ok("c1", "helpful", "b", 9),
  ok("c1", "brief", "a", 7),
  ok("c1", "brief", "a", 7),
  ok("c1", "brief", "b", 7),
  ok("c1", "brief", "b", 7),
  ok("c2", "helpful", "a", 4),
  ok("c2", "helpful", "a", 9),
  ok("c2", "helpful", "b", 7),
  bad("c2", "helpful", "b"),
  ok("c2", "brief", "a", 6),
  ok("c2", "brief", "a", 6),
  ok("c2", "brief", "b", 6),
  ok("c2", "brief", "b", 6),
  ok("c3", "helpful", "a", 7),
  ok("c3", "helpful", "a", 7),
  ok("c3", "helpful", "b", 7),
  ok("c3", "helpful", "b", 7),
  ok("c3", "brief", "a", 1),
  ok("c3", "brief", "a", 1),
  ok("c3", "brief", "b", 9),
  ok("c3", "brief", "b", 9),
];

/** Verdicts from the engine's own aggregation, as finalizeRun stores them. */
function results(): ResultRow[] {
  const out: ResultRow[] = [];
  for (const c of cases)
    for (const cr of c.criteria) {
      const mine = samples.filter((s) => s.caseId === c.caseId && s.criterionId === cr.id);
      const samplesByModel: Record<string, { score: number | null; error: string | null }[]> = {};
      for (const s of mine) {
        samplesByModel[s.judge] = [...(samplesByModel[s.judge] ?? []), { score: s.score, error: s.error }];
      }
      const v = aggregateAcrossModels({
        criterionId: cr.id,
        criterionType: "llm",
        scale: cr.scale,
        threshold: cr.threshold,
        samplesByModel,
        asked: { judges: ["a", "b"], samplesPerJudge: 2 },
      });
      out.push({
        runId: "r",
        caseId: c.caseId,
        criterionId: cr.id,
        finalScore: v.final_score,
        passed: v.passed,
        consensusLevel: v.consensus_level,
        flagForReview: v.flag_for_review,
        data: v,
      });
    }
  return out;
}

const cells = triageCells(cases, results(), samples);
const view = (q: Partial<TriageQuery>) =>
  triageView(cells, ["c1", "c2", "c3"], ["helpful", "brief"], { ...DEFAULT_TRIAGE, ...q }, 2);
const shown = (v: ReturnType<typeof view>) =>
  v.rows.flatMap((r) => r.cells.filter((c) => c.match).map((c) => `${c.cell.caseId}/${c.cell.criterionId}`));

describe("triage", () => {
  it("each status keeps the cells it names, for the panel", () => {
    expect(shown(view({ status: "failed" }))).toEqual(["c2/helpful"]);
    expect(shown(view({ status: "unstable" }))).toEqual(["c2/helpful", "c3/brief"]);
    expect(shown(view({ status: "flagged" }))).toEqual(["c3/brief"]);
    expect(shown(view({ status: "fail" }))).toEqual(["c3/brief"]);
    expect(shown(view({ status: "low-coverage" }))).toEqual(["c2/helpful"]);
    expect(view({}).counts).toEqual({
      all: 6,
      failed: 1,
      fail: 1,
      flagged: 1,
      unstable: 2,
      "low-coverage": 1,
    });
    // a status hides the cases with no cell under it; "all" keeps every case
    expect(view({ status: "failed" }).rows.map((r) => r.caseId)).toEqual(["c2"]);
    expect(view({}).rows.map((r) => r.caseId)).toEqual(["c1", "c2", "c3"]);
  });

  it("with a judge, failed / unstable / low coverage are that judge's own samples", () => {
    expect(shown(view({ status: "failed", judge: "b" }))).toEqual(["c2/helpful"]);
    expect(shown(view({ status: "failed", judge: "a" }))).toEqual([]);
    // a's samples straddle 6 on c2/helpful (4 and 9); b's never do
    expect(shown(view({ status: "unstable", judge: "a" }))).toEqual(["c2/helpful"]);
    expect(shown(view({ status: "unstable", judge: "b" }))).toEqual([]);
    expect(shown(view({ status: "low-coverage", judge: "b" }))).toEqual(["c2/helpful"]);
    const c2 = cells.find((c) => c.caseId === "c2" && c.criterionId === "helpful");
    expect(c2?.byJudge.get("b")).toMatchObject({ answered: 1, failed: 1, mean: 7, min: 7, max: 7 });
    expect(cellMatches(c2!, "all", "zzz")).toBe(false); // a judge not on the cell
  });

  it("a criterion filter keeps its column only; sorts put the worst case first", () => {
    const v = view({ criterion: "brief" });
    expect(v.criteria).toEqual(["brief"]);
    expect(v.rows.every((r) => r.cells.length === 1 && r.cells[0].cell.criterionId === "brief")).toBe(true);
    expect(view({ sort: "score" }).rows.map((r) => r.caseId)).toEqual(["c3", "c2", "c1"]);
    expect(view({ sort: "failures" }).rows.map((r) => r.caseId)).toEqual(["c2", "c1", "c3"]);
    expect(view({ sort: "spread" }).rows[0].caseId).toBe("c3");
    expect(view({ sort: "coverage" }).rows[0].caseId).toBe("c2");
  });

  it("reads its view from the URL, ignores what it does not know, and writes only what differs from the default", () => {
    const known = { judges: ["a", "b"], criteria: ["helpful", "brief"] };
    expect(parseTriageQuery({ status: "failed", judge: "b", crit: "brief", sort: "score" }, known)).toEqual({
      status: "failed",
      judge: "b",
      criterion: "brief",
      sort: "score",
    });
    expect(parseTriageQuery({ status: "evil", judge: "c", crit: "x", sort: ["x", "y"] }, known)).toEqual(
      DEFAULT_TRIAGE,
    );
    expect(triageSearch(DEFAULT_TRIAGE)).toBe("");
    expect(
      triageSearch(
        { status: "failed", judge: "local:a b", criterion: null, sort: "case" },
        { case: "c1", criterion: "helpful" },
      ),
    ).toBe("?status=failed&judge=local%3Aa+b&case=c1&criterion=helpful");
  });
});

describe("triage counts and filters agree with what is shown", () => {
  // c1/brief: both of judge b's samples failed; c2/helpful: one of b's failed (3 failed samples in 2 cells)
  const withFailures = samples.map((s) =>
    s.caseId === "c1" && s.criterionId === "brief" && s.judge === "b" ? bad("c1", "brief", "b") : s,
  );
  const failedCells = triageCells(cases, results(), withFailures);
  const v2 = (q: Partial<TriageQuery>) =>
    triageView(failedCells, ["c1", "c2", "c3"], ["helpful", "brief"], { ...DEFAULT_TRIAGE, ...q }, 2);

  it("'Failed samples' counts samples, the same number the run's coverage counts as failed", () => {
    const failed = runCoverage(["a", "b"], withFailures.length, withFailures).samples_failed;
    expect(failed).toBe(3);
    expect(v2({}).counts.failed).toBe(failed);
    expect(v2({ judge: "b" }).counts.failed).toBe(3);
    expect(v2({ judge: "a" }).counts.failed).toBe(0);
    // the cells shown under it are the cells holding those samples
    expect(v2({ status: "failed" }).matching).toBe(2);
  });

  it("a status filter hides the cells (and the criteria) that do not match", () => {
    const v = view({ status: "fail" });
    expect(v.rows.map((r) => r.caseId)).toEqual(["c3"]);
    expect(v.rows.every((r) => r.cells.every((c) => c.match))).toBe(true);
    expect(v.criteria).toEqual(["brief"]);
    const shownCells = v.rows.reduce((a, r) => a + r.cells.length, 0);
    expect(shownCells).toBe(v.counts.fail);
    // unfiltered: every cell, every criterion
    expect(view({}).rows.reduce((a, r) => a + r.cells.length, 0)).toBe(6);
    expect(view({}).criteria).toEqual(["helpful", "brief"]);
  });

  it("with a judge chosen, 'All (N)' and the heading's 'x of y cells' count the same cells", () => {
    const det = {
      id: "format",
      type: "deterministic" as const,
      scale: [0, 1] as [number, number],
      threshold: 1,
      params: {},
    };
    const mixed = cases.map((c) => ({ ...c, criteria: [...c.criteria, det] }));
    const detSamples = ["c1", "c2", "c3"].map((caseId) => ok(caseId, "format", "deterministic", 1));
    const all = [...samples, ...detSamples];
    const mixedCells = triageCells(mixed, results(), all);
    const q = { ...DEFAULT_TRIAGE, judge: "a" };
    const v = triageView(mixedCells, ["c1", "c2", "c3"], ["helpful", "brief", "format"], q, 2);
    expect(v.counts.all).toBe(6); // judge a is asked on the two LLM criteria only
    expect(v.cells).toBe(v.counts.all);
    expect(v.withVerdict).toBe(6);
    expect(verdictsHeading(v, q)).toBe("6 of 6 cells a was asked on have a verdict");
    const panel = triageView(
      mixedCells,
      ["c1", "c2", "c3"],
      ["helpful", "brief", "format"],
      DEFAULT_TRIAGE,
      2,
    );
    expect(panel.cells).toBe(9);
    expect(panel.withVerdict).toBe(6); // the format cells have no stored verdict in this fixture
    expect(verdictsHeading(panel, DEFAULT_TRIAGE)).toBe("6 of 9 case × criterion cells have a verdict");
    const failing = { ...DEFAULT_TRIAGE, status: "fail" as const };
    expect(
      verdictsHeading(
        triageView(mixedCells, ["c1", "c2", "c3"], ["helpful", "brief", "format"], failing, 2),
        failing,
      ),
    ).toBe("6 of 9 case × criterion cells have a verdict · 1 matches Verdict FAIL");
  });
});
