import { mean } from "../stats/descriptive";
import type { CellJudgeStats } from "./triage";

/**
 * How each judge scores each criterion across a run: for every LLM criterion, the distribution over
 * the run's cases of each judge's per-case score (the mean of its answered samples in that cell),
 * and the panel's (per case, the mean of the judges' means: the verdict's final score). Built from
 * the per cell × judge counts and sums the run page already reads (db/queries/run-page.ts), so it
 * costs nothing more at any size of run. Failed samples are counted apart, never scored.
 */

/** A five-number summary and the mean; the sorted values too while there are few enough to draw. */
export type Distribution = {
  n: number;
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
  mean: number;
  /** every value, ascending; absent past MAX_POINTS (the box alone is drawn) */
  values?: number[];
};

export type JudgeSpread = {
  judge: string;
  /** cases with at least one answered sample of this judge, of `casesAsked` */
  cases: number;
  samplesAnswered: number;
  samplesFailed: number;
  /** the cases × N the run planned for this judge */
  samplesAsked: number;
  dist: Distribution | null;
};

export type CriterionSpread = {
  criterionId: string;
  scale: [number, number];
  /** the criterion's threshold, or null when cases set different ones (see `thresholds`) */
  threshold: number | null;
  thresholds: [number, number];
  /** cases of the run that have this criterion */
  casesAsked: number;
  judges: JudgeSpread[];
  /** per case, the mean of the judges that answered: over the cases at least one judge answered */
  panel: { cases: number; dist: Distribution | null };
};

/** Past this many values a distribution keeps its summary only: the chart draws a box, no dots. */
export const MAX_POINTS = 200;

export type SpreadCase = {
  caseId: string;
  criteria: { id: string; type: "llm" | "deterministic"; threshold: number; scale: [number, number] }[];
};

/** The p-th quantile (0–1) of sorted values, linear between order statistics (numpy's default). */
export function quantile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

export function distributionOf(values: readonly number[]): Distribution | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0],
    q1: quantile(sorted, 0.25),
    median: quantile(sorted, 0.5),
    q3: quantile(sorted, 0.75),
    max: sorted[sorted.length - 1],
    mean: mean(sorted),
    ...(sorted.length <= MAX_POINTS ? { values: sorted } : {}),
  };
}

/**
 * The run-level spreads, criterion by criterion in the run's order, judges in the panel's order
 * (a judge with no sample yet is listed, with no distribution). `n`: samples per judge per cell.
 */
export function scoreSpreads(args: {
  cases: readonly SpreadCase[];
  cells: readonly CellJudgeStats[];
  judges: readonly string[];
  n: number;
}): CriterionSpread[] {
  const criteria = new Map<string, { scale: [number, number]; thresholds: number[]; cases: number }>();
  for (const c of args.cases)
    for (const cr of c.criteria) {
      if (cr.type !== "llm") continue;
      const e = criteria.get(cr.id) ?? { scale: cr.scale, thresholds: [], cases: 0 };
      e.thresholds.push(cr.threshold);
      e.cases++;
      criteria.set(cr.id, e);
    }
  // criterion → judge → per-case means; criterion → case → judge means (for the panel)
  const byJudge = new Map<string, Map<string, { means: number[]; answered: number; failed: number }>>();
  const byCase = new Map<string, Map<string, number[]>>();
  for (const g of args.cells) {
    if (!criteria.has(g.criterionId)) continue;
    const judges = byJudge.get(g.criterionId) ?? new Map();
    byJudge.set(g.criterionId, judges);
    const j = judges.get(g.judge) ?? { means: [], answered: 0, failed: 0 };
    judges.set(g.judge, j);
    j.answered += g.answered;
    j.failed += g.failed;
    if (g.answered > 0 && g.sum !== null) {
      const m = g.sum / g.answered;
      j.means.push(m);
      const cases = byCase.get(g.criterionId) ?? new Map<string, number[]>();
      byCase.set(g.criterionId, cases);
      cases.set(g.caseId, [...(cases.get(g.caseId) ?? []), m]);
    }
  }
  return [...criteria.entries()].map(([criterionId, c]) => {
    const judges = byJudge.get(criterionId) ?? new Map();
    const order = [...args.judges, ...[...judges.keys()].filter((j) => !args.judges.includes(j)).sort()];
    const panelValues = [...(byCase.get(criterionId)?.values() ?? [])].map((ms) => mean(ms));
    return {
      criterionId,
      scale: c.scale,
      threshold: Math.min(...c.thresholds) === Math.max(...c.thresholds) ? c.thresholds[0] : null,
      thresholds: [Math.min(...c.thresholds), Math.max(...c.thresholds)],
      casesAsked: c.cases,
      judges: order.map((judge) => {
        const j = judges.get(judge) ?? { means: [], answered: 0, failed: 0 };
        return {
          judge,
          cases: j.means.length,
          samplesAnswered: j.answered,
          samplesFailed: j.failed,
          samplesAsked: Math.max(c.cases * args.n, j.answered + j.failed),
          dist: distributionOf(j.means),
        };
      }),
      panel: { cases: panelValues.length, dist: distributionOf(panelValues) },
    };
  });
}
