/**
 * Two-stage aggregation: mean and std within each model, then the mean of the model
 * means as the final score, the std of the model means as cross-model disagreement, a consensus
 * level, and a review flag. std is the population std (numpy's np.std, ddof = 0).
 *
 * Every verdict also carries its coverage (judges answered of judges asked, samples
 * answered of samples asked): a failed sample never enters a mean or a spread, and a consensus
 * level is given only where at least two judges answered.
 */

import { mean, populationStd } from "../stats/descriptive";

export { mean, populationStd };

export type SampleScore = { score: number | null; error?: string | null; reasoning?: string | null };

export type ModelResult =
  | { samples: number[]; mean_score: number; std: number; n: number; errors: number }
  | { error: string; skipped: true; n: 0; errors?: number };

export type ConsensusLevel = "STRONG" | "GOOD" | "PARTIAL" | "LOW";

/** What a verdict rests on. A sample neither answered nor failed is still pending. */
export type Coverage = {
  judges_asked: number;
  /** judges with at least one answered sample */
  judges_answered: number;
  samples_asked: number;
  samples_answered: number;
  /** errors, refusals, invalid or out-of-scale answers: counted apart, never scored */
  samples_failed: number;
};

/**
 * What a verdict can say about agreement: a consensus level (two or more judges answered), or why
 * there is none.
 */
export type Agreement =
  | ConsensusLevel
  | "single judge"
  | "no judge answered"
  | "deterministic"
  | "not reported";

/** The panel options, per panel and per criterion. */
export type PanelOptions = {
  /** cross-model std (in points of a 1–10 scale) above which a verdict is flagged for review */
  consensus_threshold: number;
  /** false: never flag a verdict for low consensus */
  flag_low_consensus: boolean;
  /** false: the cross-model std and the consensus level are not reported */
  report_uncertainty: boolean;
};

export const DEFAULT_PANEL_OPTIONS: PanelOptions = {
  consensus_threshold: 1.5,
  flag_low_consensus: true,
  report_uncertainty: true,
};

export type CriterionVerdict = {
  criterion_id: string;
  criterion_type: "llm" | "deterministic";
  model_results: Record<string, ModelResult>;
  final_score: number | null;
  cross_model_std: number | null;
  /** null unless at least two judges answered (and uncertainty is reported) */
  consensus_level: ConsensusLevel | null;
  threshold: number;
  passed: boolean;
  flag_for_review: boolean;
  /** beyond the seed: some samples fall below the threshold and some at or above it */
  straddles_threshold: boolean;
  coverage: Coverage;
  /** the consensus level, or why there is none ("single judge", "no judge answered", …) */
  agreement: Agreement;
  /** the panel options this verdict was computed with */
  panel: PanelOptions;
  error?: string;
};

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The consensus bands, on a 1–10 scale: STRONG < 0.5 ≤ GOOD < 1.0 ≤ PARTIAL < 1.5 ≤ LOW. */
export function consensusLevel(std: number): ConsensusLevel {
  if (std < 0.5) return "STRONG";
  if (std < 1.0) return "GOOD";
  if (std < 1.5) return "PARTIAL";
  return "LOW";
}

/**
 * The bands and the review flag (std > 1.5) are in points of a 1–10 scale (9 points wide).
 * A std on another scale is expressed in those points before it is banded.
 */
export function stdOnSeedScale(std: number, scale: readonly [number, number]): number {
  return (std * 9) / (scale[1] - scale[0]);
}

const answered = (s: SampleScore) => s.score !== null && !s.error;

export function aggregateWithinModel(samples: readonly SampleScore[]): ModelResult {
  const scores = samples.filter(answered).map((s) => s.score as number);
  const errors = samples.length - scores.length;
  if (scores.length === 0) {
    const first = samples.find((s) => s.error)?.error ?? "no samples";
    return { error: `All ${samples.length} samples failed: ${first}`, skipped: true, n: 0, errors };
  }
  return { samples: scores, mean_score: mean(scores), std: populationStd(scores), n: scores.length, errors };
}

/**
 * The second stage's score and pass/fail, from the means of the judges that answered (at least one):
 * the mean of the model means, reported to 2 decimals, passing when the unrounded mean reaches the
 * threshold. The panel optimizer calls it for every sub-panel (lib/panel/).
 */
export function panelScore(
  modelMeans: readonly number[],
  threshold: number,
): { final_score: number; passed: boolean } {
  const final = mean(modelMeans);
  return { final_score: round2(final), passed: final >= threshold };
}

export function aggregateAcrossModels(args: {
  criterionId: string;
  criterionType: "llm" | "deterministic";
  scale: readonly [number, number];
  threshold: number;
  samplesByModel: Record<string, readonly SampleScore[]>;
  /**
   * What was asked: the panel's judges and samples per judge. A judge asked with no sample yet
   * counts as asked, not answered. Default: the judges and samples given.
   */
  asked?: { judges: readonly string[]; samplesPerJudge: number };
  panel?: Partial<PanelOptions>;
}): CriterionVerdict {
  const panel: PanelOptions = { ...DEFAULT_PANEL_OPTIONS, ...args.panel };
  const model_results: Record<string, ModelResult> = {};
  for (const [judge, s] of Object.entries(args.samplesByModel))
    model_results[judge] = aggregateWithinModel(s);
  const valid = Object.values(model_results).filter(
    (r): r is Extract<ModelResult, { mean_score: number }> => !("skipped" in r),
  );
  const given = Object.values(args.samplesByModel);
  const judgesAsked = new Set([...(args.asked?.judges ?? []), ...Object.keys(args.samplesByModel)]);
  const coverage: Coverage = {
    judges_asked: judgesAsked.size,
    judges_answered: valid.length,
    samples_asked: args.asked
      ? Math.max(
          args.asked.judges.length * args.asked.samplesPerJudge,
          given.reduce((a, s) => a + s.length, 0),
        )
      : given.reduce((a, s) => a + s.length, 0),
    samples_answered: valid.reduce((a, r) => a + r.n, 0),
    samples_failed: given.reduce((a, s) => a + s.filter((x) => !answered(x)).length, 0),
  };
  const base = {
    criterion_id: args.criterionId,
    criterion_type: args.criterionType,
    model_results,
    threshold: args.threshold,
    coverage,
    panel,
  };
  if (valid.length === 0) {
    return {
      ...base,
      final_score: null,
      cross_model_std: null,
      consensus_level: null,
      passed: false,
      flag_for_review: false,
      straddles_threshold: false,
      agreement: "no judge answered",
      error: args.criterionType === "deterministic" ? "The check failed" : "No judge answered",
    };
  }
  const means = valid.map((r) => r.mean_score);
  const all = valid.flatMap((r) => r.samples);
  const straddles = all.some((x) => x >= args.threshold) && all.some((x) => x < args.threshold);
  const verdict = {
    ...base,
    ...panelScore(means, args.threshold),
    straddles_threshold: straddles,
  };
  if (args.criterionType === "deterministic")
    return {
      ...verdict,
      cross_model_std: null,
      consensus_level: null,
      flag_for_review: false,
      agreement: "deterministic",
    };
  // one judge's mean has no spread across judges: there is no consensus to speak of
  if (valid.length < 2)
    return {
      ...verdict,
      cross_model_std: null,
      consensus_level: null,
      flag_for_review: false,
      agreement: "single judge",
    };
  const std = populationStd(means);
  const onSeed = stdOnSeedScale(std, args.scale);
  const level = consensusLevel(onSeed);
  return {
    ...verdict,
    cross_model_std: panel.report_uncertainty ? round2(std) : null,
    consensus_level: panel.report_uncertainty ? level : null,
    flag_for_review: panel.flag_low_consensus && onSeed > panel.consensus_threshold,
    agreement: panel.report_uncertainty ? level : "not reported",
  };
}

/** "1 of 2 judges answered · 3 of 6 samples (3 failed)" */
export function coverageText(c: Coverage): string {
  const pending = c.samples_asked - c.samples_answered - c.samples_failed;
  return [
    `${c.judges_answered} of ${c.judges_asked} judge${c.judges_asked === 1 ? "" : "s"} answered`,
    `${c.samples_answered} of ${c.samples_asked} samples${c.samples_failed ? ` (${c.samples_failed} failed)` : ""}${pending > 0 ? ` (${pending} pending)` : ""}`,
  ].join(" · ");
}
