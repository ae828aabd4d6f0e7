import { describe, expect, it } from "vitest";
import { mean, populationStd } from "./descriptive";
import { krippendorffAlphaInterval } from "./krippendorff";

// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
// 4 coders (rows) x 12 units (columns), "." = missing.
const N = null;
const coderA = [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N];
const coderB = [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3];
const coderC = [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N];
const coderD = [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N];
const paperUnits = coderA.map((_, u) => [coderA[u], coderB[u], coderC[u], coderD[u]]);

describe("krippendorffAlphaInterval", () => {
  it("reproduces the interval alpha of Krippendorff's 2011 worked example (0.849, n = 40)", () => {
    const { alpha, pairable } = krippendorffAlphaInterval(paperUnits);
    // unit 12 has a single value, so it is not pairable: n = 41 - 1
    expect(pairable).toBe(40);
    expect(alpha).not.toBeNull();
    expect(alpha).toBeCloseTo(0.849, 3);
  });

  it("does not depend on which coder supplied a value, nor on undefined vs null", () => {
    const shuffled = paperUnits.map((unit) => [...unit].reverse().map((v) => (v === null ? undefined : v)));
    expect(krippendorffAlphaInterval(shuffled).alpha).toBeCloseTo(
      krippendorffAlphaInterval(paperUnits).alpha as number,
      12,
    );
  });

  it("is 1 under perfect agreement", () => {
    const { alpha, pairable } = krippendorffAlphaInterval([
      [7, 7, 7],
      [3, 3, null],
      [9, 9, 9],
      [5, undefined, 5],
    ]);
    expect(alpha).toBe(1);
    expect(pairable).toBe(10);
  });

  it("matches a hand-computed two-coder case", () => {
    // values 1,2 | 3,3: observed sum_u = (2*1^2)/1 + 0 = 2;
    // expected: ordered pairs over {1,2,3,3} = 2*(1+4+4+1+1+0) = 22; alpha = 1 - 3*2/22 = 16/22
    expect(krippendorffAlphaInterval([[1, 2], [3, 3], [5]])).toEqual({ alpha: 16 / 22, pairable: 4 });
  });

  it("matches a hand-computed case with three coders, a missing value and negative alpha", () => {
    // unit 1 {1,2,3}: ordered pairs 2*(1+4+1) = 12, divided by m_u - 1 = 2 -> 6; unit 2 {2,2}: 0
    // all {1,2,3,2,2}: mean 2, sum of squared deviations 2, ordered pairs 2*5*2 = 20
    // alpha = 1 - (5 - 1) * 6 / 20 = -0.2
    const { alpha, pairable } = krippendorffAlphaInterval([
      [1, 2, 3],
      [2, 2, null],
    ]);
    expect(pairable).toBe(5);
    expect(alpha).toBeCloseTo(-0.2, 12);
  });

  it("returns null when alpha is undefined", () => {
    expect(krippendorffAlphaInterval([])).toEqual({ alpha: null, pairable: 0 });
    expect(krippendorffAlphaInterval([[4], [5, null], [null, null]])).toEqual({ alpha: null, pairable: 0 });
    // every pairable value identical: no expected disagreement
    expect(krippendorffAlphaInterval([[6, 6], [6, 6, 6], [1]])).toEqual({ alpha: null, pairable: 5 });
  });

  it("treats non-finite values as missing", () => {
    expect(krippendorffAlphaInterval([[1, 2, Number.NaN], [3, 3, Number.POSITIVE_INFINITY], [5]])).toEqual({
      alpha: 16 / 22,
      pairable: 4,
    });
  });
});

describe("descriptive", () => {
  it("mean", () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(mean([-3])).toBe(-3);
    expect(mean([])).toBeNaN();
  });

  it("populationStd has np.std semantics (ddof = 0)", () => {
    // np.std([2, 4, 4, 4, 5, 5, 7, 9]) == 2.0
    expect(populationStd([2, 4, 4, 4, 5, 5, 7, 9])).toBe(2);
    // np.std([1, 2, 3, 4]) == 1.118033988749895
    expect(populationStd([1, 2, 3, 4])).toBeCloseTo(1.118033988749895, 12);
    expect(populationStd([8])).toBe(0);
    expect(populationStd([])).toBeNaN();
  });
});
