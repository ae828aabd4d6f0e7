/**
 * Wilson score interval of a binomial proportion (Wilson 1927): the interval a proportion such as an
 * accuracy or an agreement rate is shown with. Unlike the normal ("Wald") interval it stays inside
 * [0, 1] and is honest for small n and for rates near 0 or 1.
 *
 *   centre = (p̂ + z²/2n) / (1 + z²/n),   half = z √(p̂(1 − p̂)/n + z²/4n²) / (1 + z²/n)
 */

/** z for a two-sided 95 % interval. */
export const Z95 = 1.959963984540054;

export type ProportionCI = { value: number; low: number; high: number; n: number; successes: number };

/** The proportion successes / n with its Wilson interval; NaN for everything when n = 0. */
export function wilsonInterval(successes: number, n: number, z = Z95): ProportionCI {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a whole number ≥ 0, got ${n}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > n)
    throw new RangeError(`successes must be a whole number from 0 to n (${n}), got ${successes}`);
  if (n === 0) return { value: Number.NaN, low: Number.NaN, high: Number.NaN, n, successes };
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // at the edges the bound is exactly 0 or 1 (rounding would leave 0.9999999999999999)
  const low = successes === 0 ? 0 : Math.max(0, centre - half);
  const high = successes === n ? 1 : Math.min(1, centre + half);
  return { value: p, low, high, n, successes };
}
