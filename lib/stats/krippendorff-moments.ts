/**
 * Krippendorff's interval alpha (lib/stats/krippendorff.ts) from each unit's count, sum and sum of
 * squares instead of its values, so a run's figures can come from SQL aggregates. The same formula:
 * a unit's ordered-pair squared differences are 2·m·Σ(v − mean)², and Σ(v − mean)² = Σv² − (Σv)²/m.
 * `min` and `max` make a unit (or the whole set) whose values are all equal exactly 0, as the
 * value-based version gives, instead of a rounding residue.
 */

import type { KrippendorffResult } from "./krippendorff";

export type UnitMoments = { m: number; sum: number; sumSq: number; min: number; max: number };

const squares = (u: Pick<UnitMoments, "m" | "sum" | "sumSq" | "min" | "max">) =>
  u.m < 2 || u.min === u.max ? 0 : Math.max(0, u.sumSq - (u.sum * u.sum) / u.m);

export function krippendorffAlphaIntervalFromMoments(units: readonly UnitMoments[]): KrippendorffResult {
  const pairable = units.filter((u) => u.m >= 2);
  const n = pairable.reduce((a, u) => a + u.m, 0);
  if (n < 2) return { alpha: null, pairable: n };
  let observed = 0;
  for (const u of pairable) observed += (2 * u.m * squares(u)) / (u.m - 1);
  const all = {
    m: n,
    sum: pairable.reduce((a, u) => a + u.sum, 0),
    sumSq: pairable.reduce((a, u) => a + u.sumSq, 0),
    min: Math.min(...pairable.map((u) => u.min)),
    max: Math.max(...pairable.map((u) => u.max)),
  };
  const expected = 2 * n * squares(all);
  if (expected === 0) return { alpha: null, pairable: n };
  return { alpha: 1 - ((n - 1) * observed) / expected, pairable: n };
}
