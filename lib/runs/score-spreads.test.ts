import { describe, expect, it } from "vitest";
import { distributionOf, MAX_POINTS, quantile, type SpreadCase, scoreSpreads } from "./score-spreads";
import type { CellJudgeStats } from "./triage";

const llm = (id: string, threshold = 7) => ({
  id,
  type: "llm" as const,
  threshold,
  scale: [1, 10] as [number, number],
});
const det = {
  id: "contains",
  type: "deterministic" as const,
  threshold: 1,
  scale: [0, 1] as [number, number],
};

/** one judge's samples in one cell, as the SQL aggregate gives them */
function cell(
  caseId: string,
  criterionId: string,
  judge: string,
  scores: number[],
  failed = 0,
): CellJudgeStats {
  return {
    caseId,
    criterionId,
    judge,
    answered: scores.length,
    failed,
    sum: scores.length ? scores.reduce((a, b) => a + b, 0) : null,
    sumSq: scores.length ? scores.reduce((a, b) => a + b * b, 0) : null,
    min: scores.length ? Math.min(...scores) : null,
    max: scores.length ? Math.max(...scores) : null,
  };
}

describe("quantiles and distributions", () => {
  it("quantiles interpolate between order statistics like numpy's default", () => {
    // np.quantile([1, 2, 3, 4], [0.25, 0.5, 0.75]) → 1.75, 2.5, 3.25
    expect([0.25, 0.5, 0.75].map((p) => quantile([1, 2, 3, 4], p))).toEqual([1.75, 2.5, 3.25]);
    expect(quantile([5], 0.25)).toBe(5);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it("a distribution is a five-number summary with its mean and n; no values, no distribution", () => {
    expect(distributionOf([9, 1, 5, 3, 7])).toEqual({
      n: 5,
      min: 1,
      q1: 3,
      median: 5,
      q3: 7,
      max: 9,
      mean: 5,
      values: [1, 3, 5, 7, 9],
    });
    expect(distributionOf([])).toBeNull();
  });

  it("past MAX_POINTS values only the summary is kept (the chart draws the box, no dots)", () => {
    const many = Array.from({ length: MAX_POINTS + 1 }, (_, i) => i);
    const d = distributionOf(many);
    expect(d?.values).toBeUndefined();
    expect(d?.n).toBe(MAX_POINTS + 1);
    expect(d?.median).toBe(MAX_POINTS / 2);
  });
});

describe("scoreSpreads", () => {
  const cases: SpreadCase[] = [
    { caseId: "c1", criteria: [llm("correctness"), llm("tone", 6), det] },
    { caseId: "c2", criteria: [llm("correctness"), llm("tone", 6), det] },
    { caseId: "c3", criteria: [llm("correctness", 8), llm("tone", 6), det] },
  ];

  it("per criterion, each judge's per-case means over the cases, and the panel's per-case mean of judge means", () => {
    const cells = [
      cell("c1", "correctness", "a", [8, 6]), // a's case mean 7
      cell("c1", "correctness", "b", [4, 4]), // b's 4 → panel 5.5
      cell("c2", "correctness", "a", [9, 9]),
      cell("c2", "correctness", "b", [5], 1), // one failed sample: not scored
      cell("c3", "correctness", "a", [], 2), // a answered nothing in c3
      cell("c3", "correctness", "b", [3, 5]),
      cell("c1", "contains", "deterministic", [1]),
    ];
    const out = scoreSpreads({ cases, cells, judges: ["b", "a"], n: 2 });
    expect(out.map((c) => c.criterionId)).toEqual(["correctness", "tone"]); // deterministic checks left out
    const [corr, tone] = out;
    expect(corr.judges.map((j) => j.judge)).toEqual(["b", "a"]); // the panel's order
    const [b, a] = corr.judges;
    expect(a).toMatchObject({ cases: 2, samplesAnswered: 4, samplesFailed: 2, samplesAsked: 6 });
    expect(a.dist).toMatchObject({ n: 2, min: 7, max: 9, median: 8, values: [7, 9] });
    expect(b).toMatchObject({ cases: 3, samplesAnswered: 5, samplesFailed: 1, samplesAsked: 6 });
    expect(b.dist?.values).toEqual([4, 4, 5]);
    // panel: c1 (7+4)/2 = 5.5, c2 (9+5)/2 = 7, c3 b alone = 4
    expect(corr.panel.cases).toBe(3);
    expect(corr.panel.dist?.values).toEqual([4, 5.5, 7]);
    expect(corr.casesAsked).toBe(3);
    // case c3 sets its own threshold: the criterion has none, its range says so
    expect(corr.threshold).toBeNull();
    expect(corr.thresholds).toEqual([7, 8]);
    // no sample yet: every judge is listed, with nothing to draw, and the panel rests on nothing
    expect(tone.threshold).toBe(6);
    expect(tone.judges.map((j) => [j.judge, j.cases, j.samplesAsked, j.dist])).toEqual([
      ["b", 0, 0 + 6, null],
      ["a", 0, 6, null],
    ]);
    expect(tone.panel).toEqual({ cases: 0, dist: null });
  });

  it("a judge outside the panel that left samples (an old run's) is listed after the panel's judges", () => {
    const out = scoreSpreads({
      cases: cases.slice(0, 1),
      cells: [cell("c1", "correctness", "z", [5]), cell("c1", "correctness", "a", [7])],
      judges: ["a"],
      n: 1,
    });
    expect(out[0].judges.map((j) => j.judge)).toEqual(["a", "z"]);
    expect(out[0].panel.dist?.values).toEqual([6]);
  });
});
