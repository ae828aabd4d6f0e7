/**
 * A run's judges against the labels people gave its verdicts. Per criterion, for the panel (the
 * run's verdict) and for each judge (the mean of its answered samples, passing at the criterion's
 * threshold): agreement on pass/fail over the labelled cells, and on scores over the cells labelled
 * with a score. A run can be labelled partly: every figure says on how many labelled cells it rests,
 * and a labelled cell a judge did not answer is named, never guessed.
 */
import type { BootstrapOptions } from "../stats/bootstrap";
import { type LabelPair, type PointwiseReport, pointwiseAgreement } from "./metrics";

/** The name the run's own verdict (the panel's aggregate) goes by in the figures. */
export const PANEL = "panel";

type CaseLike = {
  caseId: string;
  criteria: { id: string; type: string; scale: [number, number]; threshold: number }[];
};
type ResultLike = { caseId: string; criterionId: string; finalScore: number | null; passed: boolean };
type SampleLike = {
  caseId: string;
  criterionId: string;
  judge: string;
  score: number | null;
  error: string | null;
};
type LabelLike = { caseId: string; criterionId: string; passed: boolean; score: number | null };

export type RunJudgeAgreement = {
  judge: string;
  /** pass/fail against the people's pass/fail, over labelled cells this judge answered */
  passFail: PointwiseReport;
  /** scores against the people's scores (rounded to the scale's whole points), where they gave one */
  scores: PointwiseReport | null;
  /** labelled cells this judge gave no answer for */
  noAnswer: string[];
};

export type CriterionAgreement = {
  criterionId: string;
  type: string;
  scale: [number, number];
  threshold: number;
  /** cases of the run judged on this criterion */
  cells: number;
  /** of them, labelled by a person */
  labelled: number;
  /** of the labelled, with a score */
  scored: number;
  judges: RunJudgeAgreement[];
};

export type RunAgreement = { runId: string; cells: number; labelled: number; criteria: CriterionAgreement[] };

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The whole points of a scale whose ends are whole numbers (at most 101 of them), else null. */
export function scalePoints(scale: readonly [number, number]): number[] | null {
  const [lo, hi] = scale;
  if (!Number.isInteger(lo) || !Number.isInteger(hi) || hi - lo > 100) return null;
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

export function runAgreement(
  runId: string,
  cases: readonly CaseLike[],
  results: readonly ResultLike[],
  samples: readonly SampleLike[],
  labels: readonly LabelLike[],
  opts: { judges?: readonly string[]; bootstrap?: BootstrapOptions } = {},
): RunAgreement {
  const key = (caseId: string, criterionId: string) => `${caseId}\u0000${criterionId}`;
  const labelOf = new Map(labels.map((l) => [key(l.caseId, l.criterionId), l]));
  const resultOf = new Map(results.map((r) => [key(r.caseId, r.criterionId), r]));
  const scoresOf = new Map<string, Map<string, number[]>>();
  for (const s of samples) {
    if (s.score === null || s.error) continue;
    const k = key(s.caseId, s.criterionId);
    let m = scoresOf.get(k);
    if (!m) {
      m = new Map();
      scoresOf.set(k, m);
    }
    const list = m.get(s.judge) ?? [];
    list.push(s.score);
    m.set(s.judge, list);
  }
  const criterionIds: string[] = [];
  for (const c of cases)
    for (const cr of c.criteria) if (!criterionIds.includes(cr.id)) criterionIds.push(cr.id);

  const criteria = criterionIds.map((criterionId): CriterionAgreement => {
    const cells = cases.flatMap((c) => {
      const cr = c.criteria.find((x) => x.id === criterionId);
      return cr ? [{ caseId: c.caseId, cr }] : [];
    });
    const def = cells[0].cr;
    const labelled = cells.filter((c) => labelOf.has(key(c.caseId, criterionId)));
    const judgeNames = [
      ...new Set([
        ...(def.type === "deterministic" ? [] : (opts.judges ?? [])),
        ...labelled.flatMap((c) => [...(scoresOf.get(key(c.caseId, criterionId))?.keys() ?? [])]),
      ]),
    ].sort();
    const points = scalePoints(def.scale);
    const judge = (name: string): RunJudgeAgreement => {
      const pf: LabelPair[] = [];
      const sc: LabelPair[] = [];
      const noAnswer: string[] = [];
      for (const { caseId, cr } of labelled) {
        const k = key(caseId, criterionId);
        const label = labelOf.get(k) as LabelLike;
        let score: number | null;
        let passed: boolean;
        if (name === PANEL) {
          const r = resultOf.get(k);
          score = r?.finalScore ?? null;
          passed = r?.passed ?? false;
        } else {
          const xs = scoresOf.get(k)?.get(name);
          score = xs?.length ? mean(xs) : null;
          passed = score !== null && score >= cr.threshold;
        }
        if (score === null) {
          noAnswer.push(caseId);
          continue;
        }
        pf.push({ itemId: caseId, gold: label.passed ? 1 : 0, judge: passed ? 1 : 0, judgeRaw: score });
        if (label.score !== null && points) {
          const [lo, hi] = cr.scale;
          const round = (x: number) => Math.min(hi, Math.max(lo, Math.round(x)));
          sc.push({ itemId: caseId, gold: round(label.score), judge: round(score), judgeRaw: score });
        }
      }
      return {
        judge: name,
        passFail: pointwiseAgreement(pf, { kind: "pass_fail", bootstrap: opts.bootstrap }),
        scores:
          points && labelled.some((c) => labelOf.get(key(c.caseId, criterionId))?.score !== null)
            ? pointwiseAgreement(sc, { kind: "graded", scale: points, bootstrap: opts.bootstrap })
            : null,
        noAnswer,
      };
    };
    return {
      criterionId,
      type: def.type,
      scale: def.scale,
      threshold: def.threshold,
      cells: cells.length,
      labelled: labelled.length,
      scored: labelled.filter((c) => labelOf.get(key(c.caseId, criterionId))?.score !== null).length,
      judges: labelled.length ? [judge(PANEL), ...judgeNames.filter((j) => j !== PANEL).map(judge)] : [],
    };
  });
  return {
    runId,
    cells: criteria.reduce((a, c) => a + c.cells, 0),
    labelled: criteria.reduce((a, c) => a + c.labelled, 0),
    criteria,
  };
}
