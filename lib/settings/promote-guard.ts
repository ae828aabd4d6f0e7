/**
 * What a person sees before a promotion, and what they must confirm: the figures the promotion rests
 * on (precision and recall with their intervals and n, how often the judge answered; accuracy and
 * Cohen's κ with theirs) and the warnings they raise. A promotion with warnings is refused until the
 * person confirms each of them by its code, with the figures in front of them; the server recomputes
 * the guard from the stored data and never takes it from the caller.
 */
import type { CriterionAgreement, RunJudgeAgreement } from "../agreement/run-agreement";
import { type MetricCI, MIN_JUDGE_ANSWERED } from "../memory/study-metrics";
import type { StudyReport } from "../memory/study-report";

export const GUARD_CODES = [
  "not_best",
  "kept_nothing",
  "few_labels",
  "weak_agreement",
  "low_coverage",
] as const;
export type GuardCode = (typeof GUARD_CODES)[number];

export type GuardWarning = { code: GuardCode; text: string };

export type PromotionGuard = {
  /** the figures, one per entry: "precision 13 % [3–25 %] n=20" */
  figures: string[];
  warnings: GuardWarning[];
  /** the configuration would change nothing the hook injects: it kept nothing */
  keptNothing: boolean;
};

/** A labelled panel's promotion needs at least this many labelled cells before it goes without a warning. */
export const MIN_PANEL_LABELS = 10;

const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
const pts = (x: number) => (x * 100).toFixed(0);

/** "precision 13 % [3–25 %] n=20"; "precision — n=0 (nothing retrieved)" when undefined. */
export function studyFigure(name: string, m: MetricCI): string {
  if (m.n === 0 || !Number.isFinite(m.mean)) return `${name} — n=${m.n}${m.why ? ` (${m.why})` : ""}`;
  const ci = Number.isFinite(m.low) && Number.isFinite(m.high) ? ` [${pts(m.low)}–${pct(m.high)}]` : "";
  return `${name} ${pct(m.mean)}${ci} n=${m.n}`;
}

/** Why a finished configuration is not called best, for the confirmation; null when it is. */
export function notBestReason(
  best: { best: string | null; reason: string },
  id: string,
  answered?: { answered: number; asked: number; share: number },
): string | null {
  if (best.best === id) return null;
  const parts: string[] = [];
  if (answered && answered.asked > 0 && !(answered.share >= MIN_JUDGE_ANSWERED))
    parts.push(
      `its judge answered only ${answered.answered} of ${answered.asked} queries asked (below ${Math.round(MIN_JUDGE_ANSWERED * 100)} %)`,
    );
  parts.push(best.best ? `another configuration measured best (${best.reason})` : best.reason);
  return parts.join("; ");
}

/** The evidence behind using a finished study configuration for the hook (or memory search). */
export function experimentGuard(report: StudyReport, experimentId: string): PromotionGuard {
  const r = report.experiments.find((x) => x.experiment.id === experimentId);
  if (!r) return { figures: [], warnings: [], keptNothing: false };
  const m = r.metrics;
  const mix = m.pathMix;
  const kept = r.rows.reduce((a, row) => a + row.retrieved.length, 0);
  const figures = [
    studyFigure("precision", m.precision),
    studyFigure("recall", m.recall),
    `kept ${kept} memor${kept === 1 ? "y" : "ies"} over ${r.rows.length} quer${r.rows.length === 1 ? "y" : "ies"}`,
  ];
  if (m.judgeAnswered)
    figures.push(
      `judge answered ${mix.answered} of ${mix.asked} quer${mix.asked === 1 ? "y" : "ies"} asked${mix.asked ? ` (${pct(mix.answeredShare)})` : ""}`,
    );
  const warnings: GuardWarning[] = [];
  const keptNothing = r.rows.length > 0 && kept === 0;
  if (keptNothing)
    warnings.push({
      code: "kept_nothing",
      text: `It kept nothing: no memory on any of its ${r.rows.length} queries, so the hook would inject nothing (recall ${m.recall.n ? pct(m.recall.mean) : "—"}, precision n=${m.precision.n}).`,
    });
  const why = notBestReason(report.best, experimentId, {
    answered: mix.answered,
    asked: mix.asked,
    share: mix.answeredShare,
  });
  if (why) warnings.push({ code: "not_best", text: `Not called best: ${why}.` });
  return { figures, warnings, keptNothing };
}

/** "0.42 [0.10, 0.71] n=12"; "— n=2" when undefined. */
function figure(f: { value: number | null; low: number | null; high: number | null; n: number }): string {
  if (f.value === null) return `— n=${f.n}`;
  const ci = f.low !== null && f.high !== null ? ` [${f.low.toFixed(2)}, ${f.high.toFixed(2)}]` : "";
  return `${f.value.toFixed(2)}${ci} n=${f.n}`;
}

/**
 * The evidence behind making a run's panel (or one judge) a criterion's default or the review judges:
 * agreement with people's labels on that criterion. Warns when it rests on fewer than
 * MIN_PANEL_LABELS labelled cells, when κ's interval does not exclude chance agreement (its lower end
 * at or below 0, or κ undefined), and when the judge answered under 90 % of the labelled cells.
 */
export function panelGuard(c: CriterionAgreement, j: RunJudgeAgreement): PromotionGuard {
  const pf = j.passFail;
  const answered = c.labelled - j.noAnswer.length;
  const acc = pf.accuracy;
  const figures = [
    `accuracy ${acc.value === null ? `— n=${acc.n}` : `${pct(acc.value)}${acc.low !== null && acc.high !== null ? ` [${pts(acc.low)}–${pct(acc.high)}]` : ""} n=${acc.n}`}`,
    `Cohen's κ ${figure(pf.kappa)}`,
    `answered ${answered} of ${c.labelled} labelled cell${c.labelled === 1 ? "" : "s"}`,
  ];
  const warnings: GuardWarning[] = [];
  if (pf.n < MIN_PANEL_LABELS)
    warnings.push({
      code: "few_labels",
      text: `It rests on ${pf.n} labelled cell${pf.n === 1 ? "" : "s"} (fewer than ${MIN_PANEL_LABELS}).`,
    });
  const k = pf.kappa;
  if (k.value === null || k.low === null || k.low <= 0)
    warnings.push({
      code: "weak_agreement",
      text:
        k.value === null
          ? "Cohen's κ is undefined on these labels: nothing shows it agrees with people beyond chance."
          : `Cohen's κ ${figure(k)}: its interval reaches 0, so agreement no better than chance is not ruled out.`,
    });
  if (c.labelled > 0 && answered / c.labelled < MIN_JUDGE_ANSWERED)
    warnings.push({
      code: "low_coverage",
      text: `It answered only ${answered} of ${c.labelled} labelled cells (below ${pct(MIN_JUDGE_ANSWERED)}).`,
    });
  return { figures, warnings, keptNothing: false };
}

/** The warnings not confirmed (by code) among those the guard raises. */
export function unconfirmed(guard: PromotionGuard, confirmed: readonly string[]): GuardWarning[] {
  return guard.warnings.filter((w) => !confirmed.includes(w.code));
}
