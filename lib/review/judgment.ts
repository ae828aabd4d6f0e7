import { z } from "zod";

export const DIMENSIONS = ["correctness", "scope_adherence", "code_quality", "completeness"] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export type Weights = Record<Dimension, number>;

/** The default weights: correctness 0.4, the other three dimensions 0.2 each. */
export const DEFAULT_WEIGHTS: Weights = {
  correctness: 0.4,
  scope_adherence: 0.2,
  code_quality: 0.2,
  completeness: 0.2,
};
/** A pass requires every dimension ≥ 0.7. */
export const PASS_THRESHOLD = 0.7;

const unit = z.number().min(0).max(1);

export const weightsSchema = z
  .object({ correctness: unit, scope_adherence: unit, code_quality: unit, completeness: unit })
  .refine((w) => Math.abs(DIMENSIONS.reduce((s, d) => s + w[d], 0) - 1) < 1e-6, {
    message: "weights must sum to 1",
  });

/** The scored judgment, as the judge must return it. */
export const judgmentSchema = z.object({
  schema_version: z.literal("1.0.0"),
  verdict: z.enum(["pass", "partial", "fail"]),
  score: unit,
  dimensions: z.object({ correctness: unit, scope_adherence: unit, code_quality: unit, completeness: unit }),
  issues: z
    .array(
      z.object({
        severity: z.enum(["major", "minor"]),
        description: z.string().min(1),
        file: z.string().nullish(),
      }),
    )
    .max(50),
  summary: z.string(),
  confidence: z.enum(["high", "medium", "low"]),
});
export type Judgment = z.infer<typeof judgmentSchema>;

/** One dimension scored on its own call. */
export const dimensionAnswerSchema = z.object({
  score: unit,
  reasoning: z.string(),
  issues: judgmentSchema.shape.issues.nullish(),
});

/** The gate: pass or fail, when in doubt, pass. */
export const gateAnswerSchema = z.object({ verdict: z.enum(["pass", "fail"]), reasoning: z.string() });

/**
 * The transcript diagnosis, as the judge must return it. The files the agent read and edited are
 * not asked for: they come from the transcript's own tool calls.
 */
export const diagnosisAnswerSchema = z.object({
  approach: z.string().trim().min(1),
  point_of_failure: z.string().trim().min(1),
  root_cause: z.string().trim().min(1),
  suggestion: z.string().trim().min(1),
});

export function parseWeights(input: unknown): Weights {
  const r = weightsSchema.safeParse(input);
  if (!r.success)
    throw new Error(
      `Invalid weights: ${r.error.issues.map((i) => `${i.path.join(".") || "weights"}: ${i.message}`).join("; ")}`,
    );
  return r.data;
}

export function compositeScore(d: Record<Dimension, number>, w: Weights = DEFAULT_WEIGHTS): number {
  return DIMENSIONS.reduce((s, k) => s + d[k] * w[k], 0);
}

/** pass when every dimension ≥ 0.7; otherwise partial when the composite is ≥ 0.5, else fail. */
export function verdictFor(
  d: Record<Dimension, number>,
  w: Weights = DEFAULT_WEIGHTS,
): "pass" | "partial" | "fail" {
  if (DIMENSIONS.every((k) => d[k] >= PASS_THRESHOLD)) return "pass";
  return compositeScore(d, w) >= 0.5 ? "partial" : "fail";
}

/** The blend: 0.6 × mechanical + 0.4 × judge by default. */
export function blendedScore(mechanical: number, judge: number, mechanicalWeight = 0.6): number {
  return mechanicalWeight * mechanical + (1 - mechanicalWeight) * judge;
}
