import { describe, expect, it } from "vitest";
import type { LiveProgress } from "../jobs/live";
import type { CriterionVerdict } from "../judging/aggregate";
import { computeVerdicts } from "./finalize-run";
import { isPartialVerdict, liveCoverage, verdictRows } from "./live-verdicts";
import type { CaseCriterion } from "./plan-run";
import { DEFAULT_TRIAGE, triageCellsFrom, triageView, verdictSummaries } from "./triage";

const crit: CaseCriterion = { id: "correct", type: "llm", scale: [1, 10], threshold: 6, params: {} };
const cases = [{ caseId: "c1", criteria: [crit] }];
const s = (judge: string, sampleIndex: number, score: number | null, error: string | null = null) => ({
  caseId: "c1",
  criterionId: "correct",
  judge,
  sampleIndex,
  score,
  error,
});
// judges a and b, N = 2: a has answered both its samples (low), b one of two so far
const early = [s("a", 0, 3), s("a", 1, 4), s("b", 0, 5)];
const all = [...early, s("b", 1, 9)];
const opts = { n: 2 };

describe("live verdicts", () => {
  it("a partial verdict is the final rule applied to the samples so far, and says so", () => {
    const [row] = verdictRows("r", computeVerdicts(cases, early, ["a", "b"], opts));
    const v = row.data as CriterionVerdict;
    expect(v.coverage).toEqual({
      judges_asked: 2,
      judges_answered: 2,
      samples_asked: 4,
      samples_answered: 3,
      samples_failed: 0,
    });
    expect(row.finalScore).toBe(4.25); // mean of a's 3.5 and b's 5
    expect(isPartialVerdict(true, v.coverage)).toBe(true);
    // the run stopped with a sample missing: the verdict is final, with its low coverage
    expect(isPartialVerdict(false, v.coverage)).toBe(false);
    // every sample in: the same row the run stores when it finishes, no longer partial
    const [done] = verdictRows("r", computeVerdicts(cases, all, ["a", "b"], opts));
    expect(isPartialVerdict(true, (done.data as CriterionVerdict).coverage)).toBe(false);
    expect(done.finalScore).toBe(5.25);
    expect(done.passed).toBe(false);
  });

  it("a failed sample is not pending: a cell whose samples all came back is not partial", () => {
    const [row] = verdictRows(
      "r",
      computeVerdicts(cases, [...early, s("b", 1, null, "HTTP 500")], ["a", "b"], opts),
    );
    expect(isPartialVerdict(true, (row.data as CriterionVerdict).coverage)).toBe(false);
  });

  it("triage never files a partial verdict under FAIL or Flagged while the run is live", () => {
    const rows = verdictRows("r", computeVerdicts(cases, early, ["a", "b"], opts));
    expect(rows[0].passed).toBe(false);
    const stats = [
      {
        caseId: "c1",
        criterionId: "correct",
        judge: "a",
        answered: 2,
        failed: 0,
        sum: 7,
        sumSq: 25,
        min: 3,
        max: 4,
      },
      {
        caseId: "c1",
        criterionId: "correct",
        judge: "b",
        answered: 1,
        failed: 0,
        sum: 5,
        sumSq: 25,
        min: 5,
        max: 5,
      },
    ];
    const live = triageCellsFrom(cases, verdictSummaries(rows), stats, { live: true });
    expect(live[0].partial).toBe(true);
    expect(triageView(live, ["c1"], ["correct"], DEFAULT_TRIAGE, 2).counts.fail).toBe(0);
    const settled = triageCellsFrom(cases, verdictSummaries(rows), stats);
    expect(settled[0].partial).toBe(false);
    expect(triageView(settled, ["c1"], ["correct"], DEFAULT_TRIAGE, 2).counts.fail).toBe(1);
  });

  it("the header and the progress bar read one count from one snapshot", () => {
    const snap: LiveProgress = {
      kind: "run",
      status: "running",
      total: 84,
      done: 14,
      errors: 2,
      costUsd: 0,
      startedAt: null,
      latest: [],
      cursor: 0,
      judgesAsked: 2,
      judgesAnswered: 1,
    };
    expect(liveCoverage(snap)).toEqual({
      judges_asked: 2,
      judges_answered: 1,
      samples_asked: 84,
      samples_answered: 14,
      samples_failed: 2,
      samples_pending: 68,
    });
  });
});
