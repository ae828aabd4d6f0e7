import { expect, it } from "vitest";
import { compareRuns } from "./compare";

const r = (caseId: string, score: number | null, passed: boolean, stds: number[] = []) => ({
  caseId,
  criterionId: "c",
  finalScore: score,
  passed,
  data: {
    model_results: Object.fromEntries(
      stds.map((s, i) => [`j${i}`, { samples: [], mean_score: 0, std: s, n: 3 }]),
    ),
  },
});

it("pairs cells, computes deltas and pass flips, and ignores cells only one run has", () => {
  const out = compareRuns(
    [r("x", 6.5, true, [1, 0]), r("y", 4, false), r("only-a", 5, false)],
    [r("x", 5.5, false, [0.5]), r("y", 4.25, false)],
  );
  expect(out.cells.map((c) => [c.caseId, c.delta, c.flipped])).toEqual([
    ["x", -1, true],
    ["y", 0.25, false],
  ]);
  expect(out.flips).toBe(1);
  expect(out.meanAbsDelta).toBeCloseTo(0.625);
  expect(out.cells[0].spreadA).toBe(0.5);
  expect(out.cells[0].spreadB).toBe(0.5);
});

it("adds the paired test over the cells both runs scored: mean B − A, its interval, the sign-flip p", () => {
  const a = ["p", "q", "s", "t"].map((id, i) => r(id, 5 + i, true));
  const b = ["p", "q", "s", "t"].map((id, i) => r(id, 6 + i, true));
  const out = compareRuns([...a, r("none", null, false)], [...b, r("none", 7, true)]);
  expect(out.paired?.n).toBe(4);
  expect(out.paired?.meanDiff).toBeCloseTo(1);
  expect(out.paired?.low).toBeCloseTo(1);
  expect(out.paired?.high).toBeCloseTo(1);
  // every one of the 2^4 sign assignments enumerated: only the two all-same ones reach |sum| = 4
  expect(out.paired?.exact).toBe(true);
  expect(out.paired?.p).toBeCloseTo(2 / 16);
  expect(compareRuns([r("x", null, false)], [r("x", 5, true)]).paired).toBeNull();
});
