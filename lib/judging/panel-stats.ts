import { getOrInsert } from "../map-utils";
import { krippendorffAlphaInterval } from "../stats/krippendorff";

type S = {
  caseId: string;
  criterionId: string;
  judge: string;
  sampleIndex: number;
  score: number | null;
  error?: string | null;
};

export type JudgeStats = {
  judge: string;
  /** alpha across this judge's own N samples, over the suite's cases */
  selfConsistency: number | null;
  /** mean of (this judge's mean − the panel mean) over cases; positive = more lenient */
  meanOffset: number | null;
  cases: number;
  /** this judge's samples of the criterion that answered, and that failed (never scored) */
  samplesAnswered: number;
  samplesFailed: number;
};

export type CriterionPanelStats = {
  criterionId: string;
  /** interval alpha across the panel's judges (each judge's mean per case), over cases */
  alphaAcrossJudges: number | null;
  cases: number;
  judges: JudgeStats[];
};

const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Beyond the verdicts: agreement between judges, each judge's self-consistency and its offset from the panel. */
export function panelStats(samples: readonly S[], judges: readonly string[]): CriterionPanelStats[] {
  const byCriterion = new Map<string, Map<string, Map<string, (number | null)[]>>>();
  const counts = new Map<string, { answered: number; failed: number }>();
  for (const s of samples) {
    if (s.judge === "deterministic") continue;
    const c = getOrInsert(counts, `${s.criterionId}\u0000${s.judge}`, () => ({ answered: 0, failed: 0 }));
    if (s.score === null || s.error) {
      c.failed++;
      // a criterion whose every sample failed still gets its row: "0 answered" says more than nothing
      getOrInsert(byCriterion, s.criterionId, () => new Map());
      continue;
    }
    c.answered++;
    const byCase = getOrInsert(byCriterion, s.criterionId, () => new Map());
    const byJudge = getOrInsert(byCase, s.caseId, () => new Map<string, (number | null)[]>());
    const list = getOrInsert(byJudge, s.judge, (): (number | null)[] => []);
    list[s.sampleIndex] = s.score;
  }
  const out: CriterionPanelStats[] = [];
  for (const [criterionId, byCase] of byCriterion) {
    const caseIds = [...byCase.keys()].sort();
    const meansByCase = caseIds.map((c) =>
      judges.map((j) => {
        const xs = (byCase.get(c)?.get(j) ?? []).filter((x): x is number => typeof x === "number");
        return xs.length ? avg(xs) : null;
      }),
    );
    const across = krippendorffAlphaInterval(meansByCase);
    const judgeStats = judges.map((judge, ji) => {
      const units = caseIds.map((c) => byCase.get(c)?.get(judge) ?? []);
      const self = krippendorffAlphaInterval(units.map((u) => [...u]));
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
        cases: units.filter((u) => u.some((x) => typeof x === "number")).length,
        samplesAnswered: c.answered,
        samplesFailed: c.failed,
      };
    });
    out.push({ criterionId, alphaAcrossJudges: across.alpha, cases: caseIds.length, judges: judgeStats });
  }
  return out.sort((a, b) => a.criterionId.localeCompare(b.criterionId));
}
