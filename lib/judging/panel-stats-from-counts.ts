import { getOrInsert } from "../map-utils";
import type { CellJudgeStats } from "../runs/triage";
import { krippendorffAlphaInterval } from "../stats/krippendorff";
import { krippendorffAlphaIntervalFromMoments } from "../stats/krippendorff-moments";
import type { CriterionPanelStats } from "./panel-stats";

const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * panelStats (lib/judging/panel-stats.ts) from per case × criterion × judge counts and sums, so the
 * run page gets them from SQL aggregates instead of every sample: the same figures (α across the
 * judges' means per case, each judge's self-consistency α over its own samples per case, its mean
 * offset from the panel, cases, samples answered and failed), deterministic checks left out.
 */
export function panelStatsFromCounts(
  cells: readonly CellJudgeStats[],
  judges: readonly string[],
): CriterionPanelStats[] {
  // criterion → case → judge → the judge's answered samples there
  const byCriterion = new Map<string, Map<string, Map<string, CellJudgeStats>>>();
  const counts = new Map<string, { answered: number; failed: number }>();
  for (const g of cells) {
    if (g.judge === "deterministic") continue;
    const c = getOrInsert(counts, `${g.criterionId}\u0000${g.judge}`, () => ({ answered: 0, failed: 0 }));
    c.answered += g.answered;
    c.failed += g.failed;
    // a criterion whose every sample failed still gets its row: "0 answered" says more than nothing
    const byCase = getOrInsert(byCriterion, g.criterionId, () => new Map());
    if (g.answered > 0) getOrInsert(byCase, g.caseId, () => new Map()).set(g.judge, g);
  }
  const out: CriterionPanelStats[] = [];
  for (const [criterionId, byCase] of byCriterion) {
    const caseIds = [...byCase.keys()].sort();
    const meansByCase = caseIds.map((c) =>
      judges.map((j) => {
        const g = byCase.get(c)?.get(j);
        return g && g.sum !== null ? g.sum / g.answered : null;
      }),
    );
    const across = krippendorffAlphaInterval(meansByCase);
    const judgeStats = judges.map((judge, ji) => {
      const units = caseIds.flatMap((c) => {
        const g = byCase.get(c)?.get(judge);
        return g && g.sum !== null
          ? [{ m: g.answered, sum: g.sum, sumSq: g.sumSq ?? 0, min: g.min ?? 0, max: g.max ?? 0 }]
          : [];
      });
      const self = krippendorffAlphaIntervalFromMoments(units);
      const offsets: number[] = [];
      for (const row of meansByCase) {
        const present = row.filter((x): x is number => x !== null);
        const mine = row[ji];
        if (mine !== null && present.length > 1) offsets.push(mine - avg(present));
      }
      const c = counts.get(`${criterionId}\u0000${judge}`) ?? { answered: 0, failed: 0 };
      return {
        judge,
        selfConsistency: self.alpha,
        meanOffset: offsets.length ? avg(offsets) : null,
        cases: units.length,
        samplesAnswered: c.answered,
        samplesFailed: c.failed,
      };
    });
    out.push({ criterionId, alphaAcrossJudges: across.alpha, cases: caseIds.length, judges: judgeStats });
  }
  return out.sort((a, b) => a.criterionId.localeCompare(b.criterionId));
}
