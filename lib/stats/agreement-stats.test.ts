// Test vectors for the agreement statistics (issue 14, item 6): each against a published value or a
// value computed independently here.
import { describe, expect, it } from "vitest";
import { bootstrapStatCI } from "./bootstrap";
import {
  cohenKappa,
  cohenKappaFromConfusion,
  confusionMatrix,
  weightedKappa,
  weightedKappaFromConfusion,
} from "./kappa";
import { krippendorffAlphaInterval, krippendorffAlphaNominal } from "./krippendorff";
import { wilsonInterval } from "./wilson";

// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 coders × 12 units.
const N = null;
const coders = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
  [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
];
const units = coders[0].map((_, u) => coders.map((c) => c[u]));

describe("Cohen's κ", () => {
  it("is 0.40 on the confusion [[20, 5], [10, 15]]", () => {
    // p_o = 35/50 = 0.7; p_e = (25·30 + 25·20)/50² = 0.5; κ = 0.2/0.5
    expect(
      cohenKappaFromConfusion([
        [20, 5],
        [10, 15],
      ]),
    ).toBeCloseTo(0.4, 12);
  });

  it("gives the same κ from the label vectors that make that confusion", () => {
    const a = [...Array(25).fill(1), ...Array(25).fill(0)];
    const b = [...Array(20).fill(1), ...Array(5).fill(0), ...Array(10).fill(1), ...Array(15).fill(0)];
    expect(confusionMatrix(a, b, [1, 0]).matrix).toEqual([
      [20, 5],
      [10, 15],
    ]);
    expect(cohenKappa(a, b)).toBeCloseTo(0.4, 12);
  });

  it("is 1 for identical labels, null when undefined (one category only, or no items)", () => {
    expect(cohenKappa([true, false, true], [true, false, true])).toBe(1);
    expect(cohenKappa([1, 1, 1], [1, 1, 1])).toBeNull();
    expect(
      cohenKappaFromConfusion([
        [0, 0],
        [0, 0],
      ]),
    ).toBeNull();
  });

  it("refuses a label outside the categories, naming it", () => {
    expect(() => cohenKappa([1, 2], [1, 7], [1, 2])).toThrow(/label 7/);
  });
});

describe("quadratic-weighted κ", () => {
  // computed independently: with equally spaced categories, quadratic κ_w =
  // 1 − Σ_i (a_i − b_i)² / ((1/N) Σ_i Σ_j (a_i − b_j)²)  (no confusion matrix involved)
  const independent = (a: number[], b: number[]) => {
    const n = a.length;
    let obs = 0;
    for (let i = 0; i < n; i++) obs += (a[i] - b[i]) ** 2;
    let exp = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) exp += (a[i] - b[j]) ** 2;
    return 1 - obs / (exp / n);
  };
  const gold = [0, 1, 2, 3, 3, 2, 1, 0, 2, 3, 1, 1, 0, 2, 3, 3];
  const judge = [0, 2, 2, 3, 2, 2, 0, 0, 3, 3, 1, 2, 1, 2, 3, 1];

  it("matches the independent formula on a fixed pair of 0–3 label vectors", () => {
    const expected = independent(gold, judge);
    expect(expected).toBeGreaterThan(0.5);
    expect(weightedKappa(gold, judge, [0, 1, 2, 3])).toBeCloseTo(expected, 12);
  });

  it("matches a hand-computed small case: a = 0,0,1,1; b = 0,1,1,1 → 1 − 1/2 = 0.5", () => {
    expect(weightedKappa([0, 0, 1, 1], [0, 1, 1, 1])).toBeCloseTo(0.5, 12);
    // two categories: quadratic weights are the nominal κ
    expect(cohenKappa([0, 0, 1, 1], [0, 1, 1, 1])).toBeCloseTo(0.5, 12);
  });

  it("penalises a far miss more than a near one (unlike nominal κ)", () => {
    const near = weightedKappa([0, 1, 2, 3], [1, 1, 2, 3], [0, 1, 2, 3]) as number;
    const far = weightedKappa([0, 1, 2, 3], [3, 1, 2, 3], [0, 1, 2, 3]) as number;
    expect(near).toBeGreaterThan(far);
    expect(cohenKappa([0, 1, 2, 3], [1, 1, 2, 3], [0, 1, 2, 3])).toBeCloseTo(
      cohenKappa([0, 1, 2, 3], [3, 1, 2, 3], [0, 1, 2, 3]) as number,
      12,
    );
    expect(
      weightedKappaFromConfusion(
        [
          [1, 0],
          [0, 1],
        ],
        "linear",
      ),
    ).toBe(1);
  });
});

describe("Krippendorff's α on his reliability data C", () => {
  it("nominal: 0.743", () => {
    const { alpha, pairable } = krippendorffAlphaNominal(units);
    expect(pairable).toBe(40);
    expect(alpha).toBeCloseTo(0.743, 3);
  });

  it("interval: 0.849", () => {
    expect(krippendorffAlphaInterval(units).alpha).toBeCloseTo(0.849, 3);
  });

  it("nominal α of two raters on pass/fail is close to Cohen's κ and exact on a hand case", () => {
    // units (T,T) (F,F) (T,F): coincidences o_TT = 2, o_FF = 2, o_TF = o_FT = 1; n_T = n_F = 3, n = 6
    // α = 1 − 5 · 2 / (3·3 + 3·3) = 1 − 10/18
    expect(
      krippendorffAlphaNominal([
        [true, true],
        [false, false],
        [true, false],
      ]).alpha,
    ).toBeCloseTo(1 - 10 / 18, 12);
    expect(
      krippendorffAlphaNominal([
        ["a", "a"],
        ["a", "a"],
      ]).alpha,
    ).toBeNull();
  });
});

describe("Wilson interval", () => {
  it("15/20 → [0.5313, 0.8881]", () => {
    const ci = wilsonInterval(15, 20);
    expect(ci.value).toBe(0.75);
    expect(ci.low).toBeCloseTo(0.5313, 4);
    expect(ci.high).toBeCloseTo(0.8881, 4);
  });

  it("stays inside [0, 1] at the edges and refuses impossible counts", () => {
    const zero = wilsonInterval(0, 10);
    expect(zero.low).toBe(0);
    expect(zero.high).toBeGreaterThan(0.2);
    expect(wilsonInterval(10, 10).high).toBe(1);
    expect(Number.isNaN(wilsonInterval(0, 0).value)).toBe(true);
    expect(() => wilsonInterval(11, 10)).toThrow(/successes/);
  });
});

describe("bootstrapStatCI", () => {
  it("is deterministic, brackets the point estimate, and gives no interval for an undefined statistic", () => {
    const pairs = Array.from({ length: 40 }, (_, i) => [i % 3 === 0, i % 4 !== 0] as const);
    const kappa = (s: readonly (readonly [boolean, boolean])[]) =>
      cohenKappa(
        s.map((p) => p[0]),
        s.map((p) => p[1]),
        [true, false],
      );
    const a = bootstrapStatCI(pairs, kappa);
    expect(a).toEqual(bootstrapStatCI(pairs, kappa));
    expect(a.n).toBe(40);
    expect(a.low as number).toBeLessThanOrEqual(a.value as number);
    expect(a.high as number).toBeGreaterThanOrEqual(a.value as number);
    expect(bootstrapStatCI([[true, true]] as const, kappa)).toEqual({
      value: null,
      low: null,
      high: null,
      n: 1,
    });
    expect(bootstrapStatCI([], kappa)).toEqual({ value: null, low: null, high: null, n: 0 });
  });
});
