/**
 * The percentile bootstrap from counts. When a statistic depends only on how many items fall in each
 * of a few cells (the cells of a confusion matrix: κ, weighted κ, binary κ, α of two raters), resampling
 * N items with replacement is the same as drawing the N cell counts from the multinomial with the
 * observed cell shares. Drawing them as a chain of binomials costs O(cells) per resample instead of
 * O(N), and every statistic is evaluated on the same draw.
 *
 * Deterministic for a seed (DEFAULT_SEED by default) like bootstrapStatCI, with the same rules: a
 * resample where a statistic is undefined is left out, and when more than half are, that statistic has
 * no interval. The draws are not the ones item resampling makes with the same seed, so an interval
 * differs from bootstrapStatCI's by Monte Carlo noise only (bootstrap-counts.test.ts bounds it).
 */
import { type BootstrapOptions, DEFAULT_SEED, mulberry32, type StatCI } from "./bootstrap";

const LOG_FACTORIAL_TABLE = (() => {
  const t = new Float64Array(256);
  for (let k = 2; k < 256; k++) t[k] = t[k - 1] + Math.log(k);
  return t;
})();

/** ln k!: a table below 256, Stirling's series above (relative error below 1e-16 there). */
export function logFactorial(k: number): number {
  if (k < 256) return LOG_FACTORIAL_TABLE[k];
  const k2 = k * k;
  return (
    k * Math.log(k) -
    k +
    0.5 * Math.log(2 * Math.PI * k) +
    1 / (12 * k) -
    1 / (360 * k * k2) +
    1 / (1260 * k2 * k2 * k)
  );
}

/**
 * One draw from Binomial(n, p) by inversion, searched outwards from the mode (Kemp's chop-down from
 * the mode): the unit interval is cut into the probabilities of m, m + 1, m − 1, m + 2, … and the
 * uniform draw picks one. Exact; about 1.6 standard deviations of steps on average.
 */
export function binomialDraw(n: number, p: number, rng: () => number): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  const m = Math.min(n, Math.floor((n + 1) * p));
  const q = 1 - p;
  const pm = Math.exp(
    logFactorial(n) - logFactorial(m) - logFactorial(n - m) + m * Math.log(p) + (n - m) * Math.log(q),
  );
  let u = rng() - pm;
  if (u < 0) return m;
  const ratio = p / q;
  let lo = m;
  let hi = m;
  let pLo = pm;
  let pHi = pm;
  for (;;) {
    let moved = false;
    if (hi < n) {
      pHi *= ((n - hi) / (hi + 1)) * ratio;
      hi++;
      u -= pHi;
      if (u < 0) return hi;
      moved = true;
    }
    if (lo > 0) {
      pLo *= lo / (n - lo + 1) / ratio;
      lo--;
      u -= pLo;
      if (u < 0) return lo;
      moved = true;
    }
    // rounding left a sliver of the unit interval unassigned: it belongs to the mode
    if (!moved || (pHi < 1e-300 && pLo < 1e-300)) return m;
  }
}

/**
 * Fills `out` with a draw of cell counts from Multinomial(total, counts / total): each cell a binomial
 * of what is left, at its share of the cells not yet drawn.
 */
export function multinomialDraw(
  counts: ArrayLike<number>,
  total: number,
  rng: () => number,
  out: Float64Array,
): void {
  let left = total;
  let rest = total;
  const k = counts.length;
  for (let i = 0; i < k - 1; i++) {
    const c = counts[i];
    const x = left === 0 || c === 0 ? 0 : c === rest ? left : binomialDraw(left, c / rest, rng);
    out[i] = x;
    left -= x;
    rest -= c;
  }
  if (k > 0) out[k - 1] = left;
}

/** A statistic of cell counts (aligned with the cells given), null where undefined. */
export type CountStat = (counts: Float64Array) => number | null;

const quantileSorted = (sorted: readonly number[], p: number): number => {
  const pos = p * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
};

/**
 * Percentile bootstrap intervals of several statistics of the same cells, from one shared resample
 * per iteration. `points` are the statistics on the observed data, computed by the caller with the
 * item-based functions so the point estimates stay exactly theirs; a null point has no interval.
 * Where there are many cells for the items (continuous values), the resample draws items into cells
 * instead (O(N)), which is the same distribution.
 */
export function bootstrapCountsCI(
  counts: readonly number[],
  stats: readonly CountStat[],
  points: readonly (number | null)[],
  opts: BootstrapOptions = {},
): StatCI[] {
  const { iterations = 2000, confidence = 0.95, seed = DEFAULT_SEED } = opts;
  if (!Number.isInteger(iterations) || iterations < 1)
    throw new RangeError(`iterations must be a positive integer, got ${iterations}`);
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  const n = counts.reduce((a, b) => a + b, 0);
  const value = points.map((p) => (p === null || Number.isNaN(p) ? null : p));
  const live = value.map((v) => n > 0 && v !== null);
  if (!live.some(Boolean)) return value.map((v) => ({ value: v, low: null, high: null, n }));
  const rng = mulberry32(seed);
  const draws = stats.map(() => [] as number[]);
  const sample = new Float64Array(counts.length);
  const byItem = counts.length * 8 > n;
  const cellOf = byItem ? new Int32Array(n) : null;
  if (cellOf) {
    let at = 0;
    counts.forEach((c, i) => {
      cellOf.fill(i, at, at + c);
      at += c;
    });
  }
  for (let it = 0; it < iterations; it++) {
    if (cellOf) {
      sample.fill(0);
      for (let i = 0; i < n; i++) sample[cellOf[Math.floor(rng() * n)]]++;
    } else multinomialDraw(counts, n, rng, sample);
    for (let s = 0; s < stats.length; s++) {
      if (!live[s]) continue;
      const v = stats[s](sample);
      if (v !== null && !Number.isNaN(v)) draws[s].push(v);
    }
  }
  const alpha = 1 - confidence;
  return value.map((v, s) => {
    const d = draws[s];
    if (!live[s] || d.length * 2 < iterations) return { value: v, low: null, high: null, n };
    d.sort((a, b) => a - b);
    return { value: v, low: quantileSorted(d, alpha / 2), high: quantileSorted(d, 1 - alpha / 2), n };
  });
}
