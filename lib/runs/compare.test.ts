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
