/**
 * Descriptive statistics with numpy semantics.
 *
 * Both functions return NaN for an empty array (numpy returns nan, with a warning).
 */

/** Arithmetic mean; NaN for an empty array (like `np.mean([])`). */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/**
 * Population standard deviation, `np.std(values)` (ddof = 0): sqrt(sum((x - mean)^2) / n).
 * NaN for an empty array; 0 for a single value.
 */
export function populationStd(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return Math.sqrt(ss / values.length);
}
