/**
 * Seed 004's two-stage aggregation: mean and std within each model, then the mean of the model
 * means as the final score, the std of the model means as cross-model disagreement, a consensus
 * level, and a review flag. std is the population std (numpy's np.std, ddof = 0).
 */

import { mean, populationStd } from "../stats/descriptive";

export { mean, populationStd };

export type SampleScore = { score: number | null; error?: string | null; reasoning?: string | null };

export type ModelResult =
  | { samples: number[]; mean_score: number; std: number; n: number; errors: number }
  | { error: string; skipped: true; n: 0 };

export type ConsensusLevel = "STRONG" | "GOOD" | "PARTIAL" | "LOW";

export type CriterionVerdict = {
  criterion_id: string;
  criterion_type: "llm" | "deterministic";
  model_results: Record<string, ModelResult>;
  final_score: number | null;
  cross_model_std: number | null;
  consensus_level: ConsensusLevel | null;
  threshold: number;
  passed: boolean;
  flag_for_review: boolean;
  /** beyond the seed: some samples fall below the threshold and some at or above it */
  straddles_threshold: boolean;
  error?: string;
};

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Seed 004's bands, on its 1–10 scale: STRONG < 0.5 ≤ GOOD < 1.0 ≤ PARTIAL < 1.5 ≤ LOW. */
export function consensusLevel(std: number): ConsensusLevel {
  if (std < 0.5) return "STRONG";
  if (std < 1.0) return "GOOD";
  if (std < 1.5) return "PARTIAL";
  return "LOW";
}

/**
 * The seed's bands and its review flag (std > 1.5) are in points of a 1–10 scale (9 points wide).
 * A std on another scale is expressed in those points before it is banded.
 */
export function stdOnSeedScale(std: number, scale: readonly [number, number]): number {
  return (std * 9) / (scale[1] - scale[0]);
}

export function aggregateWithinModel(samples: readonly SampleScore[]): ModelResult {
  const scores = samples.filter((s) => s.score !== null && !s.error).map((s) => s.score as number);
  const errors = samples.length - scores.length;
  if (scores.length === 0) {
    const first = samples.find((s) => s.error)?.error ?? "no samples";
    return { error: `All ${samples.length} samples failed: ${first}`, skipped: true, n: 0 };
  }
  return { samples: scores, mean_score: mean(scores), std: populationStd(scores), n: scores.length, errors };
}

export function aggregateAcrossModels(args: {
  criterionId: string;
  criterionType: "llm" | "deterministic";
  scale: readonly [number, number];
  threshold: number;
  samplesByModel: Record<string, readonly SampleScore[]>;
}): CriterionVerdict {
  const model_results: Record<string, ModelResult> = {};
  for (const [judge, s] of Object.entries(args.samplesByModel))
    model_results[judge] = aggregateWithinModel(s);
  const valid = Object.values(model_results).filter(
    (r): r is Extract<ModelResult, { mean_score: number }> => !("skipped" in r),
  );
  const base = {
    criterion_id: args.criterionId,
    criterion_type: args.criterionType,
    model_results,
    threshold: args.threshold,
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
      error: "All judges failed",
    };
  }
  const means = valid.map((r) => r.mean_score);
  const final = mean(means);
  const std = populationStd(means);
  const onSeed = stdOnSeedScale(std, args.scale);
  const all = valid.flatMap((r) => r.samples);
  return {
    ...base,
    final_score: round2(final),
    cross_model_std: round2(std),
    consensus_level: consensusLevel(onSeed),
    passed: final >= args.threshold,
    flag_for_review: onSeed > 1.5,
    straddles_threshold: all.some((x) => x >= args.threshold) && all.some((x) => x < args.threshold),
  };
}
