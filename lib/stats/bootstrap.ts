/**
 * Uncertainty over queries: percentile bootstrap CIs of a mean and of a paired difference, and the
 * paired sign-flip randomisation test.
 *
 * Everything is deterministic: without `seed`, DEFAULT_SEED is used, so the same inputs always give
 * the same interval. Pass different seeds to see the Monte Carlo noise.
 */
import { mean } from "./descriptive";

export const DEFAULT_SEED = 20_260_220;

/** mulberry32: a small 32-bit PRNG returning floats in [0, 1). The seed is taken modulo 2^32. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export type BootstrapOptions = { iterations?: number; confidence?: number; seed?: number };
export type MeanCI = { mean: number; low: number; high: number; n: number };
export type DiffCI = { meanDiff: number; low: number; high: number; n: number };

function checkFinite(values: readonly number[], name: string): void {
  for (const v of values)
    if (!Number.isFinite(v)) throw new RangeError(`${name} must be finite numbers, got ${v}`);
}

function checkIterations(iterations: number): void {
  if (!Number.isInteger(iterations) || iterations < 1) {
    throw new RangeError(`iterations must be a positive integer, got ${iterations}`);
  }
}

/** Linear-interpolated quantile of sorted values (numpy's default method). */
function quantileSorted(sorted: readonly number[], p: number): number {
  const pos = p * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * Percentile bootstrap CI of the mean: resample the values with replacement `iterations` times
 * (default 2000), and take the (1 - confidence)/2 and (1 + confidence)/2 quantiles of the resampled
 * means (default confidence 0.95). Empty input gives NaN for mean, low and high.
 */
export function bootstrapMeanCI(values: readonly number[], opts: BootstrapOptions = {}): MeanCI {
  const { iterations = 2000, confidence = 0.95, seed = DEFAULT_SEED } = opts;
  checkIterations(iterations);
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  checkFinite(values, "values");
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, low: Number.NaN, high: Number.NaN, n: 0 };
  const rng = mulberry32(seed);
  const means = new Float64Array(iterations);
  for (let it = 0; it < iterations; it++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(rng() * n)];
    means[it] = sum / n;
  }
  means.sort();
  const sorted = Array.from(means);
  const alpha = 1 - confidence;
  return {
    mean: mean(values),
    low: quantileSorted(sorted, alpha / 2),
    high: quantileSorted(sorted, 1 - alpha / 2),
    n,
  };
}

function differences(a: readonly number[], b: readonly number[]): number[] {
  if (a.length !== b.length)
    throw new RangeError(`paired arrays differ in length: ${a.length} vs ${b.length}`);
  checkFinite(a, "a");
  checkFinite(b, "b");
  return a.map((x, i) => b[i] - x);
}

/** Percentile bootstrap CI of the mean per-query difference b − a (pairs resampled together). */
export function pairedBootstrapDiffCI(
  a: readonly number[],
  b: readonly number[],
  opts: BootstrapOptions = {},
): DiffCI {
  const ci = bootstrapMeanCI(differences(a, b), opts);
  return { meanDiff: ci.mean, low: ci.low, high: ci.high, n: ci.n };
}

export type SignFlipOptions = { exactUpTo?: number; iterations?: number; seed?: number };
export type SignFlipResult = {
  /** Two-sided p-value of the mean difference b − a. */
  p: number;
  meanDiff: number;
  /** Number of pairs. */
  n: number;
  /** Number of non-zero differences: the ones whose sign is flipped. */
  nonZero: number;
  /** True when all 2^nonZero sign assignments were enumerated. */
  exact: boolean;
};

/** Largest exactUpTo accepted: 2^30 assignments already take seconds. */
export const MAX_EXACT = 30;

/**
 * Paired randomisation (sign-flip) test of H0 "a and b are exchangeable within each query".
 * Statistic: |sum of the differences b − a| (equivalent to |mean difference|, since n is fixed).
 * Zero differences are dropped: flipping them changes nothing. With nonZero ≤ exactUpTo (default 20)
 * every one of the 2^nonZero sign assignments is enumerated and p = #{|s| ≥ |observed|} / 2^nonZero;
 * otherwise `iterations` (default 10000) random assignments from a seeded PRNG give
 * p = (count + 1) / (iterations + 1), which is never 0. Ties use a relative tolerance of 1e-9 so
 * floating-point rounding does not split equal sums. With no non-zero difference p = 1.
 */
export function signFlipPValue(
  a: readonly number[],
  b: readonly number[],
  opts: SignFlipOptions = {},
): SignFlipResult {
  const { exactUpTo = 20, iterations = 10_000, seed = DEFAULT_SEED } = opts;
  if (!Number.isInteger(exactUpTo) || exactUpTo < 0 || exactUpTo > MAX_EXACT) {
    throw new RangeError(`exactUpTo must be an integer in [0, ${MAX_EXACT}], got ${exactUpTo}`);
  }
  checkIterations(iterations);
  const all = differences(a, b);
  const d = all.filter((x) => x !== 0);
  const base = { meanDiff: mean(all), n: all.length, nonZero: d.length };
  if (d.length === 0) return { ...base, p: 1, exact: true };

  let observed = 0;
  let scale = 0;
  for (const x of d) {
    observed += x;
    scale += Math.abs(x);
  }
  const threshold = Math.abs(observed) - 1e-9 * scale;

  if (d.length <= exactUpTo) {
    // Gray code: consecutive assignments differ in one sign, so the sum updates in O(1).
    const signs = new Int8Array(d.length).fill(1);
    let sum = observed;
    let count = Math.abs(sum) >= threshold ? 1 : 0;
    const total = 2 ** d.length;
    for (let i = 1; i < total; i++) {
      const bit = 31 - Math.clz32(i & -i);
      signs[bit] = -signs[bit];
      sum += 2 * signs[bit] * d[bit];
      if (Math.abs(sum) >= threshold) count++;
    }
    return { ...base, p: count / total, exact: true };
  }

  const rng = mulberry32(seed);
  let count = 0;
  for (let it = 0; it < iterations; it++) {
    let sum = 0;
    for (const x of d) sum += rng() < 0.5 ? -x : x;
    if (Math.abs(sum) >= threshold) count++;
  }
  return { ...base, p: (count + 1) / (iterations + 1), exact: false };
}

export type StatCI = { value: number | null; low: number | null; high: number | null; n: number };

/**
 * Percentile bootstrap CI of any statistic over items (κ, weighted κ, alpha, a ratio): the items are
 * resampled with replacement `iterations` times (default 2000) and the statistic recomputed on each
 * resample. A resample where the statistic is undefined (null or NaN, e.g. κ when every item fell in
 * one category) is left out; when more than half are, there is no interval (low and high null).
 * Deterministic for a given seed (DEFAULT_SEED by default).
 */
export function bootstrapStatCI<T>(
  items: readonly T[],
  stat: (sample: readonly T[]) => number | null,
  opts: BootstrapOptions = {},
): StatCI {
  const { iterations = 2000, confidence = 0.95, seed = DEFAULT_SEED } = opts;
  checkIterations(iterations);
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  const n = items.length;
  const point = n === 0 ? null : stat(items);
  const value = point === null || Number.isNaN(point) ? null : point;
  if (n === 0 || value === null) return { value, low: null, high: null, n };
  const rng = mulberry32(seed);
  const values: number[] = [];
  const sample: T[] = new Array(n);
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < n; i++) sample[i] = items[Math.floor(rng() * n)];
    const v = stat(sample);
    if (v !== null && !Number.isNaN(v)) values.push(v);
  }
  if (values.length * 2 < iterations) return { value, low: null, high: null, n };
  values.sort((a, b) => a - b);
  const alpha = 1 - confidence;
  return { value, low: quantileSorted(values, alpha / 2), high: quantileSorted(values, 1 - alpha / 2), n };
}
