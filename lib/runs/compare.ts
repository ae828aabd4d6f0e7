import type { CriterionVerdict } from "../judging/aggregate";

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
};

function meanWithinStd(data: Record<string, unknown>): number | null {
  const mr = (data as Partial<CriterionVerdict>).model_results ?? {};
  const stds = Object.values(mr).flatMap((m) => ("std" in m ? [m.std] : []));
  return stds.length ? stds.reduce((x, y) => x + y, 0) / stds.length : null;
}

/** Cells present in both runs: score deltas, pass flips and spreads, so repeated runs show verdict instability. */
export function compareRuns(
  a: R[],
  b: R[],
): { cells: ComparedCell[]; flips: number; meanAbsDelta: number | null } {
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
    });
  }
  cells.sort((x, y) => Math.abs(y.delta ?? 0) - Math.abs(x.delta ?? 0));
  const deltas = cells.flatMap((c) => (c.delta === null ? [] : [Math.abs(c.delta)]));
  return {
    cells,
    flips: cells.filter((c) => c.flipped).length,
    meanAbsDelta: deltas.length ? deltas.reduce((x, y) => x + y, 0) / deltas.length : null,
  };
}
