/**
 * Krippendorff's alpha for interval data, from the coincidence-matrix formulation in
 * K. Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011):
 *
 *   alpha = 1 - D_o / D_e
 *         = 1 - (n - 1) * sum_u [ 1/(m_u - 1) * sum_{i != j in u} (v_i - v_j)^2 ]
 *                       / sum_{i != j over all pairable values} (v_i - v_j)^2
 *
 * where a unit u is pairable when it holds m_u >= 2 values, and n is the total number of values in
 * pairable units. Both inner sums run over ordered pairs of distinct positions (i, j), i != j.
 */

export type KrippendorffResult = {
  /**
   * Alpha, in (-inf, 1]; 1 is perfect agreement, 0 is agreement at chance level.
   * `null` when it is undefined: fewer than 2 pairable values, or no expected disagreement
   * (every pairable value identical, so D_e = 0 and alpha would be 0/0). We return null
   * rather than 1 in that case because identical values carry no information about reliability.
   */
  alpha: number | null;
  /** n: the number of pairable values (values in units that hold at least 2 values). */
  pairable: number;
};

/**
 * Sum over ordered pairs i != j of (v_i - v_j)^2, computed stably as 2 * m * sum((v - mean)^2).
 */
function orderedPairSquaredDiffs(values: readonly number[]): number {
  const m = values.length;
  if (m < 2) return 0;
  let sum = 0;
  for (const v of values) sum += v;
  const avg = sum / m;
  let ss = 0;
  for (const v of values) ss += (v - avg) * (v - avg);
  return 2 * m * ss;
}

/**
 * Krippendorff's alpha with the interval metric delta(a, b) = (a - b)^2.
 *
 * @param units one array per unit (item being judged), holding one value per coder (judge).
 *   Missing values are `null` or `undefined`; non-finite numbers (NaN, Infinity) are treated as
 *   missing too. Coders need not be aligned across units: only the multiset of values in each unit
 *   matters. Units with fewer than 2 values are not pairable and are ignored.
 */
export function krippendorffAlphaInterval(units: (number | null | undefined)[][]): KrippendorffResult {
  const pairableUnits: number[][] = [];
  for (const unit of units) {
    const values = unit.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
    if (values.length >= 2) pairableUnits.push(values);
  }

  const all = pairableUnits.flat();
  const n = all.length;
  if (n < 2) return { alpha: null, pairable: n };

  let observed = 0;
  for (const values of pairableUnits) {
    observed += orderedPairSquaredDiffs(values) / (values.length - 1);
  }
  const expected = orderedPairSquaredDiffs(all);
  if (expected === 0) return { alpha: null, pairable: n };

  return { alpha: 1 - ((n - 1) * observed) / expected, pairable: n };
}

/**
 * Krippendorff's alpha with the nominal metric (delta = 0 when two values are equal, 1 otherwise),
 * from the coincidence matrix of the same paper:
 *
 *   o_ck = sum_u (number of ordered pairs (c, k) in u) / (m_u - 1),  n_c = sum_k o_ck
 *   alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c * n_k
 *
 * Values may be numbers, strings or booleans (compared with ===). Missing: null or undefined (and
 * non-finite numbers). Same `null` rules as the interval version.
 */
export function krippendorffAlphaNominal(
  units: (number | string | boolean | null | undefined)[][],
): KrippendorffResult {
  const present = (v: unknown): v is number | string | boolean =>
    v !== null && v !== undefined && (typeof v !== "number" || Number.isFinite(v));
  const coincidence = new Map<string, Map<string, number>>();
  const add = (c: string, k: string, w: number) => {
    let row = coincidence.get(c);
    if (!row) {
      row = new Map();
      coincidence.set(c, row);
    }
    row.set(k, (row.get(k) ?? 0) + w);
  };
  let n = 0;
  for (const unit of units) {
    const values = unit.filter(present).map((v) => `${typeof v}:${String(v)}`);
    const m = values.length;
    if (m < 2) continue;
    n += m;
    for (let i = 0; i < m; i++)
      for (let j = 0; j < m; j++) if (i !== j) add(values[i], values[j], 1 / (m - 1));
  }
  if (n < 2) return { alpha: null, pairable: n };
  const totals = new Map<string, number>();
  let observed = 0;
  for (const [c, row] of coincidence)
    for (const [k, o] of row) {
      totals.set(c, (totals.get(c) ?? 0) + o);
      if (c !== k) observed += o;
    }
  let expected = 0;
  for (const [c, nc] of totals) for (const [k, nk] of totals) if (c !== k) expected += nc * nk;
  if (expected <= 1e-12) return { alpha: null, pairable: n };
  return { alpha: 1 - ((n - 1) * observed) / expected, pairable: n };
}

/**
 * Nominal α of two coders from their confusion matrix (rows one coder, columns the other, the same
 * categories): every unit holds two values, so the coincidence matrix is O + Oᵀ. Equals
 * krippendorffAlphaNominal over the units the matrix counts.
 */
export function krippendorffAlphaNominalFromConfusion(m: ArrayLike<ArrayLike<number>>): number | null {
  const k = m.length;
  let units = 0;
  let disagree = 0;
  const totals = new Float64Array(k);
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++) {
      const c = m[i][j];
      units += c;
      totals[i] += c;
      totals[j] += c;
      if (i !== j) disagree += 2 * c;
    }
  const n = 2 * units;
  if (n < 2) return null;
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < k; i++) {
    sum += totals[i];
    squares += totals[i] * totals[i];
  }
  const expected = sum * sum - squares;
  if (expected <= 1e-12) return null;
  return 1 - ((n - 1) * disagree) / expected;
}

/**
 * Interval α of two coders from weighted pairs of values (a, b), weight = how many units hold that
 * pair: a unit's ordered-pair squared differences are 2(a − b)², and the expected disagreement is
 * 2n·Σ(v − mean)² over all 2·Σweight values. Equals krippendorffAlphaInterval over those units.
 */
export function krippendorffAlphaIntervalFromPairs(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  weight: ArrayLike<number>,
): number | null {
  let n = 0;
  let sum = 0;
  let observed = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < weight.length; i++) {
    const w = weight[i];
    if (w === 0) continue;
    n += 2 * w;
    sum += w * (a[i] + b[i]);
    observed += w * 2 * (a[i] - b[i]) ** 2;
    min = Math.min(min, a[i], b[i]);
    max = Math.max(max, a[i], b[i]);
  }
  if (n < 2 || min === max) return null;
  const avg = sum / n;
  let ss = 0;
  for (let i = 0; i < weight.length; i++) {
    const w = weight[i];
    if (w !== 0) ss += w * ((a[i] - avg) ** 2 + (b[i] - avg) ** 2);
  }
  const expected = 2 * n * ss;
  if (expected === 0) return null;
  return 1 - ((n - 1) * observed) / expected;
}
