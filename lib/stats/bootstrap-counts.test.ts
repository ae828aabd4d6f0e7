// The bootstrap from cell counts against the bootstrap over items: the same distribution, so on a
// fixture the intervals agree within Monte Carlo noise. Tolerance: 0.02 on κ's interval ends with
// 2,000 resamples each (the noise of a 2.5 % quantile is about 0.004 here, so 0.02 is ~5 sd).
import { describe, expect, it } from "vitest";
import { pointwiseAgreement } from "../agreement/metrics";
import { bootstrapStatCI, mulberry32 } from "./bootstrap";
import { binomialDraw, bootstrapCountsCI, logFactorial, multinomialDraw } from "./bootstrap-counts";
import { cohenKappa, cohenKappaFromConfusion, weightedKappaFromConfusion } from "./kappa";
import {
  krippendorffAlphaInterval,
  krippendorffAlphaIntervalFromPairs,
  krippendorffAlphaNominal,
  krippendorffAlphaNominalFromConfusion,
} from "./krippendorff";

/** 300 graded pairs on 0–3: the judge agrees about 60 % of the time, else misses by one grade. */
function fixture(seed = 7) {
  const rng = mulberry32(seed);
  return Array.from({ length: 300 }, (_, i) => {
    const gold = Math.floor(rng() * 4);
    const r = rng();
    const judge = r < 0.6 ? gold : Math.max(0, Math.min(3, gold + (r < 0.8 ? 1 : -1)));
    return { itemId: String(i), gold, judge };
  });
}

describe("binomial and multinomial draws", () => {
  it("ln k! is exact on the table and continuous into Stirling's series", () => {
    expect(logFactorial(0)).toBe(0);
    expect(logFactorial(5)).toBeCloseTo(Math.log(120), 12);
    let direct = 0;
    for (let k = 2; k <= 300; k++) direct += Math.log(k);
    expect(logFactorial(300)).toBeCloseTo(direct, 9);
  });

  it("Binomial(40, 0.3): mean and variance of 20,000 draws", () => {
    const rng = mulberry32(1);
    const xs = Array.from({ length: 20_000 }, () => binomialDraw(40, 0.3, rng));
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const v = xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1);
    expect(m).toBeGreaterThan(12 - 0.1);
    expect(m).toBeLessThan(12 + 0.1);
    expect(v).toBeGreaterThan(8.4 * 0.95);
    expect(v).toBeLessThan(8.4 * 1.05);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThanOrEqual(40);
  });

  it("edges: n 0, p 0, p 1", () => {
    const rng = mulberry32(2);
    expect(binomialDraw(0, 0.5, rng)).toBe(0);
    expect(binomialDraw(10, 0, rng)).toBe(0);
    expect(binomialDraw(10, 1, rng)).toBe(10);
  });

  it("a multinomial draw keeps the total, leaves empty cells empty, and follows the shares", () => {
    const rng = mulberry32(3);
    const counts = [500, 0, 300, 200];
    const out = new Float64Array(4);
    const mean = [0, 0, 0, 0];
    for (let i = 0; i < 2000; i++) {
      multinomialDraw(counts, 1000, rng, out);
      expect(out.reduce((a, b) => a + b, 0)).toBe(1000);
      expect(out[1]).toBe(0);
      for (let c = 0; c < 4; c++) mean[c] += out[c] / 2000;
    }
    expect(mean[0]).toBeCloseTo(500, -1);
    expect(mean[2]).toBeCloseTo(300, -1);
    expect(mean[3]).toBeCloseTo(200, -1);
  });
});

describe("two-coder α from counts equals α from units", () => {
  const pairs = fixture(11);
  it("nominal, from the confusion matrix", () => {
    const m = [0, 1, 2, 3].map((g) =>
      [0, 1, 2, 3].map((j) => pairs.filter((p) => p.gold === g && p.judge === j).length),
    );
    expect(krippendorffAlphaNominalFromConfusion(m)).toBeCloseTo(
      krippendorffAlphaNominal(pairs.map((p) => [p.gold, p.judge])).alpha as number,
      12,
    );
    expect(krippendorffAlphaNominalFromConfusion([[5]])).toBeNull();
  });
  it("interval, from weighted pairs", () => {
    const a = pairs.map((p) => p.gold);
    const b = pairs.map((p) => p.judge + 0.25);
    const w = pairs.map(() => 1);
    expect(krippendorffAlphaIntervalFromPairs(a, b, w)).toBeCloseTo(
      krippendorffAlphaInterval(pairs.map((p) => [p.gold, p.judge + 0.25])).alpha as number,
      12,
    );
    expect(krippendorffAlphaIntervalFromPairs([2, 2], [2, 2], [3, 4])).toBeNull();
  });
});

describe("bootstrapCountsCI", () => {
  const pairs = fixture();
  const cats = [0, 1, 2, 3];
  const counts: number[] = [];
  const cellRow: number[] = [];
  const cellCol: number[] = [];
  for (const g of cats)
    for (const j of cats) {
      const c = pairs.filter((p) => p.gold === g && p.judge === j).length;
      if (c === 0) continue;
      counts.push(c);
      cellRow.push(g);
      cellCol.push(j);
    }
  const kappaOfCounts = (w: Float64Array) => {
    const m = cats.map(() => cats.map(() => 0));
    w.forEach((x, i) => {
      m[cellRow[i]][cellCol[i]] += x;
    });
    return cohenKappaFromConfusion(m);
  };
  const point = cohenKappa(
    pairs.map((p) => p.gold),
    pairs.map((p) => p.judge),
    cats,
  );

  it("κ's interval from counts is within 0.02 of the interval from resampling items", () => {
    const byItems = bootstrapStatCI(pairs, (s) =>
      cohenKappa(
        s.map((p) => p.gold),
        s.map((p) => p.judge),
        cats,
      ),
    );
    const [byCounts] = bootstrapCountsCI(counts, [kappaOfCounts], [point]);
    expect(byCounts.value).toBe(byItems.value);
    expect(byCounts.n).toBe(300);
    expect(Math.abs((byCounts.low as number) - (byItems.low as number))).toBeLessThan(0.02);
    expect(Math.abs((byCounts.high as number) - (byItems.high as number))).toBeLessThan(0.02);
    expect(byCounts.low as number).toBeLessThan(point as number);
    expect(byCounts.high as number).toBeGreaterThan(point as number);
  });

  it("is deterministic for a seed, and another seed moves the ends only by noise", () => {
    const a = bootstrapCountsCI(counts, [kappaOfCounts], [point], { seed: 5 });
    expect(bootstrapCountsCI(counts, [kappaOfCounts], [point], { seed: 5 })).toEqual(a);
    const b = bootstrapCountsCI(counts, [kappaOfCounts], [point], { seed: 6 });
    expect(b).not.toEqual(a);
    expect(Math.abs((a[0].low as number) - (b[0].low as number))).toBeLessThan(0.02);
  });

  it("no interval for an undefined point or no items; the item draw for many cells gives the same spread", () => {
    expect(bootstrapCountsCI([3], [() => 1], [null])).toEqual([{ value: null, low: null, high: null, n: 3 }]);
    expect(bootstrapCountsCI([], [() => 1], [1])).toEqual([{ value: 1, low: null, high: null, n: 0 }]);
    // one cell per item: resampled by drawing items, the mean of 0/1 cells is a proportion's bootstrap
    const ones = Array.from({ length: 100 }, (_, i) => (i < 30 ? 1 : 0));
    const cellCounts = ones.map(() => 1);
    const [ci] = bootstrapCountsCI(
      cellCounts,
      [(w) => w.reduce((a, x, i) => a + x * ones[i], 0) / 100],
      [0.3],
    );
    expect(ci.low as number).toBeGreaterThan(0.18);
    expect(ci.high as number).toBeLessThan(0.42);
  });
});

describe("gapped scales", () => {
  it("the confusion matrix shows only the labels that occur; weighted κ measures distance on the values", () => {
    // scale 0–10, labels used 0, 1 and 10: uneven gaps
    const pairs = [
      [0, 0],
      [0, 1],
      [1, 1],
      [1, 10],
      [10, 10],
      [10, 10],
      [0, 0],
    ].map(([gold, judge], i) => ({ itemId: String(i), gold, judge }));
    const scale = Array.from({ length: 11 }, (_, i) => i);
    const r = pointwiseAgreement(pairs, { kind: "graded", scale });
    expect(r.confusion.categories).toEqual([0, 1, 10]);
    expect(r.confusion.matrix).toEqual([
      [2, 1, 0],
      [0, 1, 1],
      [0, 0, 2],
    ]);
    // the weighted κ of the full 11-point scale: missing 1 → 10 costs 81, not 1
    const full = weightedKappaFromConfusion(
      scale.map((g) => scale.map((j) => pairs.filter((p) => p.gold === g && p.judge === j).length)),
    ) as number;
    expect(r.weightedKappa?.value).toBeCloseTo(full, 12);
    expect(r.weightedKappa?.value).not.toBeCloseTo(
      weightedKappaFromConfusion(r.confusion.matrix) as number,
      3,
    );
  });
});
