import { describe, expect, it } from "vitest";
import { bootstrapMeanCI, mulberry32, pairedBootstrapDiffCI, signFlipPValue } from "./bootstrap";
import { mean } from "./descriptive";

const uniform = (n: number, seed: number) => {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, () => rng());
};

/** Brute-force two-sided sign-flip p-value, each assignment's sum computed from scratch. */
function bruteForceP(d: number[]): number {
  const obs = Math.abs(d.reduce((s, x) => s + x, 0));
  let count = 0;
  for (let mask = 0; mask < 2 ** d.length; mask++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += mask & (1 << i) ? -d[i] : d[i];
    if (Math.abs(s) >= obs - 1e-12) count++;
  }
  return count / 2 ** d.length;
}

describe("mulberry32", () => {
  it("is deterministic given the seed and stays in [0, 1)", () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(mean(xs)).toBeCloseTo(0.5, 1);
    expect(mulberry32(8)()).not.toBe(mulberry32(7)());
  });
});

describe("bootstrapMeanCI", () => {
  it("is deterministic given the seed", () => {
    const v = uniform(30, 1);
    expect(bootstrapMeanCI(v, { seed: 5 })).toEqual(bootstrapMeanCI(v, { seed: 5 }));
    expect(bootstrapMeanCI(v)).toEqual(bootstrapMeanCI(v));
    expect(bootstrapMeanCI(v, { seed: 5 }).low).not.toBe(bootstrapMeanCI(v, { seed: 6 }).low);
  });

  it("contains the mean and narrows as n grows", () => {
    const small = bootstrapMeanCI(uniform(10, 2));
    const large = bootstrapMeanCI(uniform(1000, 3));
    for (const ci of [small, large]) {
      expect(ci.low).toBeLessThanOrEqual(ci.mean);
      expect(ci.high).toBeGreaterThanOrEqual(ci.mean);
    }
    expect(small.n).toBe(10);
    expect(large.high - large.low).toBeLessThan((small.high - small.low) / 4);
    // sd of a uniform mean is sqrt(1/12/n) ≈ 0.0091 at n = 1000: the 95% width is about 0.036
    expect(large.high - large.low).toBeGreaterThan(0.025);
    expect(large.high - large.low).toBeLessThan(0.05);
  });

  it("widens with the confidence level", () => {
    const v = uniform(40, 4);
    const ci80 = bootstrapMeanCI(v, { confidence: 0.8 });
    const ci99 = bootstrapMeanCI(v, { confidence: 0.99 });
    expect(ci99.low).toBeLessThan(ci80.low);
    expect(ci99.high).toBeGreaterThan(ci80.high);
  });

  it("matches small cases computed by hand", () => {
    // [0, 1]: resampled means are 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4, so the 95% CI is [0, 1]
    expect(bootstrapMeanCI([0, 1])).toEqual({ mean: 0.5, low: 0, high: 1, n: 2 });
    expect(bootstrapMeanCI([3, 3, 3])).toEqual({ mean: 3, low: 3, high: 3, n: 3 });
    expect(bootstrapMeanCI([0.25])).toEqual({ mean: 0.25, low: 0.25, high: 0.25, n: 1 });
  });

  it("returns NaN for no values and rejects bad options", () => {
    const ci = bootstrapMeanCI([]);
    expect(ci.n).toBe(0);
    expect(ci.mean).toBeNaN();
    expect(ci.low).toBeNaN();
    expect(() => bootstrapMeanCI([1], { confidence: 1 })).toThrow(RangeError);
    expect(() => bootstrapMeanCI([1], { iterations: 0 })).toThrow(RangeError);
    expect(() => bootstrapMeanCI([Number.NaN])).toThrow(RangeError);
  });
});

describe("pairedBootstrapDiffCI", () => {
  it("bootstraps the per-query differences b − a", () => {
    const a = uniform(25, 10);
    const b = a.map((x, i) => x + 0.1 + (i % 2 === 0 ? 0.05 : -0.05));
    const ci = pairedBootstrapDiffCI(a, b, { seed: 3 });
    const direct = bootstrapMeanCI(
      a.map((x, i) => b[i] - x),
      { seed: 3 },
    );
    expect(ci).toEqual({ meanDiff: direct.mean, low: direct.low, high: direct.high, n: 25 });
    expect(ci.meanDiff).toBeCloseTo(0.1 + 0.05 / 25, 12);
    expect(ci.low).toBeGreaterThan(0.05);
    expect(ci.high).toBeLessThan(0.15);
  });

  it("rejects arrays of different length", () => {
    expect(() => pairedBootstrapDiffCI([1, 2], [1])).toThrow(/length/);
  });
});

describe("signFlipPValue", () => {
  it("enumerates all sign assignments: differences [1, 1, 1, 1] give 2/16", () => {
    const r = signFlipPValue([0, 0, 0, 0], [1, 1, 1, 1]);
    expect(r).toEqual({ p: 0.125, meanDiff: 1, n: 4, nonZero: 4, exact: true });
  });

  it("matches hand-computed examples", () => {
    // ±1 ±2 ±3 sums to 6, 4, 2, 0, 0, −2, −4, −6
    expect(signFlipPValue([0, 0, 0], [1, 2, 3]).p).toBe(2 / 8); // |s| ≥ 6
    expect(signFlipPValue([0, 0, 0], [1, -2, 3]).p).toBe(6 / 8); // |s| ≥ 2
    expect(signFlipPValue([5, 5, 5], [5, 5, 5]).p).toBe(1);
  });

  it("drops zero differences (they keep meanDiff over all pairs)", () => {
    const r = signFlipPValue([0, 0, 0, 0, 2, 7], [1, 1, 1, 1, 2, 7]);
    expect(r.p).toBe(0.125);
    expect(r.nonZero).toBe(4);
    expect(r.n).toBe(6);
    expect(r.meanDiff).toBeCloseTo(4 / 6, 12);
  });

  it("gives p = 1 with no pairs or no non-zero difference", () => {
    expect(signFlipPValue([], []).p).toBe(1);
    expect(signFlipPValue([0.5], [0.5])).toMatchObject({ p: 1, nonZero: 0, exact: true });
  });

  it("does not let floating-point rounding split equal sums", () => {
    expect(signFlipPValue([0, 0, 0], [0.1, 0.2, 0.3]).p).toBe(0.25);
    expect(signFlipPValue([0, 0, 0], [0.1, 0.2, -0.3]).p).toBe(1); // observed sum is 0 up to rounding
  });

  it("agrees with brute force on irregular differences", () => {
    const rng = mulberry32(99);
    const d = Array.from({ length: 12 }, () => rng() - 0.3);
    const zeros = d.map(() => 0);
    expect(signFlipPValue(zeros, d).p).toBe(bruteForceP(d));
  });

  it("uses Monte Carlo above exactUpTo: seeded, close to exact, never 0", () => {
    const d = [0.3, -0.1, 0.4, 0.2, 0.5, -0.2, 0.1, 0.3, 0.2, -0.05];
    const zeros = d.map(() => 0);
    const exact = signFlipPValue(zeros, d);
    const mc = signFlipPValue(zeros, d, { exactUpTo: 5, iterations: 20_000, seed: 1 });
    expect(mc.exact).toBe(false);
    expect(mc.p).toBeCloseTo(exact.p, 2);
    expect(signFlipPValue(zeros, d, { exactUpTo: 5, iterations: 20_000, seed: 1 })).toEqual(mc);

    const ones = Array.from({ length: 40 }, () => 1);
    const extreme = signFlipPValue(
      ones.map(() => 0),
      ones,
      { iterations: 999 },
    );
    expect(extreme.exact).toBe(false);
    expect(extreme.p).toBe(1 / 1000);
  });

  it("is exact up to the default of 20 non-zero differences", () => {
    const ones = Array.from({ length: 20 }, () => 1);
    const r = signFlipPValue(
      ones.map(() => 0),
      ones,
    );
    expect(r.exact).toBe(true);
    expect(r.p).toBe(2 / 2 ** 20);
  });

  it("rejects bad options and mismatched lengths", () => {
    expect(() => signFlipPValue([1], [1], { exactUpTo: 31 })).toThrow(RangeError);
    expect(() => signFlipPValue([1], [1, 2])).toThrow(/length/);
  });
});
