import { describe, expect, it } from "vitest";
import type { ResultRow, RunCase, Sample } from "../domain";
import { aggregateAcrossModels } from "../judging/aggregate";
import {
  cellMatches,
  DEFAULT_TRIAGE,
  parseTriageQuery,
  type TriageQuery,
  triageCells,
  triageSearch,
  triageView,
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
