import type { Coverage, CriterionVerdict } from "../judging/aggregate";
import { pairedBootstrapDiffCI, signFlipPValue } from "../stats/bootstrap";

type R = {
  caseId: string;
  criterionId: string;
  finalScore: number | null;
  passed: boolean;
  data: Record<string, unknown>;
};

export type ComparedCell = {
  caseId: string;
  criterionId: string;
  a: number | null;
  b: number | null;
  delta: number | null;
  passedA: boolean;
  passedB: boolean;
  flipped: boolean;
  /** mean within-judge std of each run's samples: how noisy each verdict was */
  spreadA: number | null;
  spreadB: number | null;
  /** what each run's verdict rests on (null for results stored before coverage existed) */
  coverageA: Coverage | null;
  coverageB: Coverage | null;
  /** each verdict's consensus level, or why there is none ("single judge", "no judge answered") */
  agreementA: string | null;
  agreementB: string | null;
};

const coverageOf = (data: Record<string, unknown>) => (data as Partial<CriterionVerdict>).coverage ?? null;
const agreementOf = (data: Record<string, unknown>) => {
  const v = data as Partial<CriterionVerdict>;
  return v.agreement ?? v.consensus_level ?? null;
};

function meanWithinStd(data: Record<string, unknown>): number | null {
  const mr = (data as Partial<CriterionVerdict>).model_results ?? {};
  const stds = Object.values(mr).flatMap((m) => ("std" in m ? [m.std] : []));
  return stds.length ? stds.reduce((x, y) => x + y, 0) / stds.length : null;
}

/**
 * The paired test over the cells both runs scored: the mean difference B − A with its percentile
 * bootstrap 95% interval, and the two-sided p-value of the paired sign-flip test (lib/stats/bootstrap).
 */
export type PairedTest = {
  n: number;
  meanDiff: number;
  low: number;
  high: number;
  p: number;
  exact: boolean;
};

export type RunComparison = {
  cells: ComparedCell[];
  flips: number;
  meanAbsDelta: number | null;
  /** null when no cell has a score in both runs */
  paired: PairedTest | null;
};

/** Cells present in both runs: score deltas, pass flips and spreads, so repeated runs show verdict instability. */
export function compareRuns(a: R[], b: R[]): RunComparison {
  const key = (r: R) => `${r.caseId}\u0000${r.criterionId}`;
  const bByKey = new Map(b.map((r) => [key(r), r]));
  const cells: ComparedCell[] = [];
  for (const ra of a) {
    const rb = bByKey.get(key(ra));
    if (!rb) continue;
    const delta =
      ra.finalScore !== null && rb.finalScore !== null
        ? Math.round((rb.finalScore - ra.finalScore) * 100) / 100
        : null;
    cells.push({
      caseId: ra.caseId,
      criterionId: ra.criterionId,
      a: ra.finalScore,
      b: rb.finalScore,
      delta,
      passedA: ra.passed,
      passedB: rb.passed,
      flipped: ra.passed !== rb.passed,
      spreadA: meanWithinStd(ra.data),
      spreadB: meanWithinStd(rb.data),
      coverageA: coverageOf(ra.data),
      coverageB: coverageOf(rb.data),
      agreementA: agreementOf(ra.data),
      agreementB: agreementOf(rb.data),
    });
  }
  cells.sort((x, y) => Math.abs(y.delta ?? 0) - Math.abs(x.delta ?? 0));
  const deltas = cells.flatMap((c) => (c.delta === null ? [] : [Math.abs(c.delta)]));
  const scored = cells.filter((c) => c.a !== null && c.b !== null);
  const xs = scored.map((c) => c.a as number);
  const ys = scored.map((c) => c.b as number);
  let paired: PairedTest | null = null;
  if (scored.length) {
    const ci = pairedBootstrapDiffCI(xs, ys);
    const t = signFlipPValue(xs, ys);
    paired = { n: ci.n, meanDiff: ci.meanDiff, low: ci.low, high: ci.high, p: t.p, exact: t.exact };
  }
  return {
    cells,
    flips: cells.filter((c) => c.flipped).length,
    meanAbsDelta: deltas.length ? deltas.reduce((x, y) => x + y, 0) / deltas.length : null,
    paired,
  };
}
