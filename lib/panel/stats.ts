/**
 * The figures of one panel configuration against people's pass/fail labels, from counts: Cohen's κ
 * with a percentile bootstrap over the labelled verdicts (resampled from the 2×2 table, which is
 * exactly resampling the verdicts), and the paired non-inferiority test against the full panel.
 *
 * Non-inferiority (one-sided, 95 %): over the same labelled verdicts, b = verdicts the candidate gets
 * right and the full panel wrong, c = the reverse. The difference in accuracy is (b − c) / n; its
 * lower bound is the Agresti–Min adjusted Wald bound for paired proportions (0.5 added to each cell
 * of the paired table, so a table with no discordant verdict still has a spread):
 *
 *   d = (b − c) / (n + 2),  se = √((b + c + 1) − (b − c)² / (n + 2)) / (n + 2),  lower = d − 1.645 se
 *
 * The candidate is not worse than the full panel by more than the margin when lower > −margin.
 */
import type { Figure } from "../agreement/metrics";
import { DEFAULT_SEED, mulberry32 } from "../stats/bootstrap";

/** z of a one-sided 95 % bound. */
export const Z_ONE_SIDED_95 = 1.6448536269514722;

/** Counts of a 2×2 table, gold (rows: pass, fail) × panel (columns: pass, fail). */
export type PassFailCounts = { pp: number; pf: number; fp: number; ff: number };

export const countsTotal = (c: PassFailCounts) => c.pp + c.pf + c.fp + c.ff;

/** Cohen's κ of a 2×2 table (as cohenKappaFromConfusion, without allocating: the bootstrap calls it often). */
export function kappa2x2(pp: number, pf: number, fp: number, ff: number): number | null {
  const n = pp + pf + fp + ff;
  if (n === 0) return null;
  const po = (pp + ff) / n;
  const pe = ((pp + pf) / n) * ((pp + fp) / n) + ((fp + ff) / n) * ((pf + ff) / n);
  if (1 - pe <= 1e-12) return null;
  return (po - pe) / (1 - pe);
}

export function kappaOfCounts(c: PassFailCounts): number | null {
  return kappa2x2(c.pp, c.pf, c.fp, c.ff);
}

/** ln k! for k = 0..n. */
function logFactorials(n: number): Float64Array {
  const t = new Float64Array(n + 1);
  for (let k = 2; k <= n; k++) t[k] = t[k - 1] + Math.log(k);
  return t;
}

/**
 * One draw of Binomial(m, p) by inversion, searching outward from the mode (pmf by the recurrences,
 * the mode's from the log-factorials): exact, and about √(m p (1 − p)) steps instead of m draws.
 */
export function binomialDraw(m: number, p: number, u: number, lf: Float64Array): number {
  if (m === 0 || p <= 0) return 0;
  if (p >= 1) return m;
  const q = 1 - p;
  const mode = Math.min(m, Math.floor((m + 1) * p));
  const pm = Math.exp(lf[m] - lf[mode] - lf[m - mode] + mode * Math.log(p) + (m - mode) * Math.log(q));
  let sum = pm;
  if (u < sum) return mode;
  let lo = mode;
  let hi = mode;
  let plo = pm;
  let phi = pm;
  while (lo > 0 || hi < m) {
    if (hi < m) {
      phi *= ((m - hi) / (hi + 1)) * (p / q);
      hi++;
      sum += phi;
      if (u < sum) return hi;
    }
    if (lo > 0) {
      plo *= (lo / (m - lo + 1)) * (q / p);
      lo--;
      sum += plo;
      if (u < sum) return lo;
    }
  }
  return mode; // u beyond the summed mass by rounding: the most likely count
}

/**
 * κ with its 95 % percentile bootstrap interval over the labelled verdicts (seeded: reproducible).
 * Resampling n verdicts with replacement is drawing the 2×2 table from Multinomial(n, observed
 * shares), done as three conditional binomial draws.
 */
export function kappaFigure(c: PassFailCounts, opts: { iterations?: number; seed?: number } = {}): Figure {
  const n = countsTotal(c);
  const value = kappaOfCounts(c);
  const iterations = opts.iterations ?? 1000;
  if (n === 0 || value === null) return { value, low: null, high: null, n, method: "bootstrap" };
  const rng = mulberry32(opts.seed ?? DEFAULT_SEED);
  const lf = logFactorials(n);
  const p1 = c.pp / n;
  const p2 = c.pf / (n - c.pp || 1);
  const p3 = c.fp / (n - c.pp - c.pf || 1);
  const stats: number[] = [];
  for (let it = 0; it < iterations; it++) {
    const pp = binomialDraw(n, p1, rng(), lf);
    const pf = binomialDraw(n - pp, p2, rng(), lf);
    const fp = binomialDraw(n - pp - pf, p3, rng(), lf);
    const k = kappa2x2(pp, pf, fp, n - pp - pf - fp);
    if (k !== null) stats.push(k);
  }
  if (stats.length === 0) return { value, low: null, high: null, n, method: "bootstrap" };
  stats.sort((a, b) => a - b);
  const q = (p: number) => {
    const pos = p * (stats.length - 1);
    const lo = Math.floor(pos);
    const hi = Math.min(lo + 1, stats.length - 1);
    return stats[lo] + (pos - lo) * (stats[hi] - stats[lo]);
  };
  return { value, low: q(0.025), high: q(0.975), n, method: "bootstrap" };
}

export type NonInferiority = {
  /** labelled verdicts compared */
  n: number;
  /** right where the full panel is wrong */
  better: number;
  /** wrong where the full panel is right */
  worse: number;
  /** (better − worse) / n */
  difference: number;
  /** the one-sided 95 % lower bound of the difference (Agresti–Min) */
  lower: number;
  margin: number;
  /** lower > −margin */
  nonInferior: boolean;
  /** when not shown but the observed difference is within the margin: labelled verdicts needed in all */
  labelsNeeded: number | null;
};

export function nonInferiority(better: number, worse: number, n: number, margin: number): NonInferiority {
  const m = n + 2;
  const d = (better - worse) / m;
  const se = Math.sqrt(Math.max(0, better + worse + 1 - (better - worse) ** 2 / m)) / m;
  const lower = d - Z_ONE_SIDED_95 * se;
  const nonInferior = lower > -margin;
  const observed = n > 0 ? (better - worse) / n : 0;
  // se shrinks as 1/√n: the n at which the same difference and spread would clear the margin
  const labelsNeeded =
    !nonInferior && observed > -margin && d + margin > 0
      ? Math.ceil(m * ((Z_ONE_SIDED_95 * se) / (d + margin)) ** 2) - 2
      : null;
  return {
    n,
    better,
    worse,
    difference: observed,
    lower,
    margin,
    nonInferior,
    labelsNeeded: labelsNeeded === null ? null : Math.max(labelsNeeded, n + 1),
  };
}
