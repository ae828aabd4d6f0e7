/**
 * Chance-corrected agreement between two raters on the same items: Cohen's κ (nominal) and the
 * weighted κ (quadratic weights by default), from a confusion matrix or from two label vectors.
 *
 *   κ   = (p_o − p_e) / (1 − p_e)
 *   κ_w = 1 − Σ w_ij O_ij / Σ w_ij E_ij,   E_ij = row_i · col_j / N,   w_ij = (i − j)² (quadratic)
 *
 * Both are `null` when undefined: no items, or no disagreement expected by chance (every item in one
 * category for both raters), where the formula is 0/0.
 */

export type KappaWeights = "quadratic" | "linear";

function sums(m: readonly (readonly number[])[]): { rows: number[]; cols: number[]; total: number } {
  const k = m.length;
  for (const row of m) {
    if (row.length !== k) throw new RangeError(`confusion matrix must be square, got ${k}×${row.length}`);
    for (const v of row)
      if (!Number.isFinite(v) || v < 0) throw new RangeError(`counts must be finite and ≥ 0, got ${v}`);
  }
  const rows = m.map((r) => r.reduce((a, b) => a + b, 0));
  const cols = Array.from({ length: k }, (_, j) => m.reduce((a, r) => a + r[j], 0));
  return { rows, cols, total: rows.reduce((a, b) => a + b, 0) };
}

/** Cohen's κ from a square confusion matrix (rows: rater A, columns: rater B, same category order). */
export function cohenKappaFromConfusion(m: readonly (readonly number[])[]): number | null {
  const { rows, cols, total } = sums(m);
  if (total === 0) return null;
  let po = 0;
  let pe = 0;
  for (let i = 0; i < m.length; i++) {
    po += m[i][i] / total;
    pe += (rows[i] / total) * (cols[i] / total);
  }
  if (1 - pe <= 1e-12) return null;
  return (po - pe) / (1 - pe);
}

/**
 * Weighted κ from a square confusion matrix whose categories are ordered. Quadratic weights (i − j)²
 * give the κ that equals the intraclass correlation under the usual assumptions; linear weights
 * |i − j|. The distance is between the categories' `values` where given (a scale with gaps: 0, 1, 3
 * keeps 3 two grades from 1), else between their indexes.
 */
export function weightedKappaFromConfusion(
  m: readonly (readonly number[])[],
  weights: KappaWeights = "quadratic",
  values?: readonly number[],
): number | null {
  const { rows, cols, total } = sums(m);
  if (total === 0) return null;
  if (values && values.length !== m.length)
    throw new RangeError(`${values.length} category values for a ${m.length}×${m.length} matrix`);
  const v = (i: number) => (values ? values[i] : i);
  const w = (i: number, j: number) => (weights === "quadratic" ? (v(i) - v(j)) ** 2 : Math.abs(v(i) - v(j)));
  let observed = 0;
  let expected = 0;
  for (let i = 0; i < m.length; i++)
    for (let j = 0; j < m.length; j++) {
      observed += w(i, j) * m[i][j];
      expected += (w(i, j) * rows[i] * cols[j]) / total;
    }
  if (expected <= 1e-12) return null;
  return 1 - observed / expected;
}

/**
 * The confusion matrix of two label vectors over `categories` (in that order; default: the sorted
 * distinct labels of both). A label outside the categories is an error naming it.
 */
export function confusionMatrix<T extends number | string | boolean>(
  a: readonly T[],
  b: readonly T[],
  categories?: readonly T[],
): { categories: T[]; matrix: number[][] } {
  if (a.length !== b.length)
    throw new RangeError(`label vectors differ in length: ${a.length} vs ${b.length}`);
  const cats = categories
    ? [...categories]
    : [...new Set([...a, ...b])].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const index = new Map<T, number>(cats.map((c, i) => [c, i]));
  const matrix = cats.map(() => cats.map(() => 0));
  for (let i = 0; i < a.length; i++) {
    const r = index.get(a[i]);
    const c = index.get(b[i]);
    if (r === undefined || c === undefined)
      throw new RangeError(
        `label ${r === undefined ? a[i] : b[i]} is not one of the categories ${cats.join(", ")}`,
      );
    matrix[r][c]++;
  }
  return { categories: cats, matrix };
}

/** Cohen's κ of two label vectors (paired by position). */
export function cohenKappa<T extends number | string | boolean>(
  a: readonly T[],
  b: readonly T[],
  categories?: readonly T[],
): number | null {
  return cohenKappaFromConfusion(confusionMatrix(a, b, categories).matrix);
}

/**
 * Weighted κ of two vectors of ordinal labels. `categories` is the ordered scale (default: the sorted
 * distinct values): pass the full scale (0, 1, 2, 3) so that the distance between labels is measured
 * on it even when a grade is never used.
 */
export function weightedKappa(
  a: readonly number[],
  b: readonly number[],
  categories?: readonly number[],
  weights: KappaWeights = "quadratic",
): number | null {
  const c = confusionMatrix(a, b, categories);
  return weightedKappaFromConfusion(c.matrix, weights, c.categories);
}
