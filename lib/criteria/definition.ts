import { z } from "zod";

/** Deterministic criterion logic: `criteria/<id>/logic.ts` exports a function of this shape under `function`'s name. */
export type DeterministicContext = {
  /** the output to judge, as text */
  output: string;
  /** the output parsed as JSON, or undefined when it is not JSON */
  parsed: unknown;
  input: CaseInput;
};
export type DeterministicResult = { score: number; details: string };
export type DeterministicFn = (
  ctx: DeterministicContext,
  params: Record<string, unknown>,
) => DeterministicResult;

export type CaseInput = { prompt?: string; profile?: unknown; context?: string; reference?: string };

const fieldType = z.enum(["number", "integer", "string", "boolean"]);

const base = {
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "lowercase letters, digits, _ and -"),
  name: z.string().min(1),
  version: z.string().min(1),
  description: z.string().min(1),
  scoring: z
    .object({
      scale: z
        .tuple([z.number(), z.number()])
        .refine(([lo, hi]) => lo < hi, "scale must be [low, high] with low < high"),
      default_threshold: z.number(),
    })
    .refine((s) => s.default_threshold >= s.scale[0] && s.default_threshold <= s.scale[1], {
      message: "default_threshold must lie inside scale",
      path: ["default_threshold"],
    }),
  parameters: z.record(z.string(), z.unknown()).default({}),
  tags: z.array(z.string()).default([]),
};

export const llmCriterionSchema = z.object({
  ...base,
  type: z.literal("llm"),
  prompt_template: z.string().min(20, "prompt_template is required for an llm criterion"),
  response_schema: z
    .record(z.string(), fieldType)
    .refine((r) => r.score === "number" || r.score === "integer", "response_schema must have a numeric score")
    .default({ score: "number", reasoning: "string" }),
});

export const deterministicCriterionSchema = z.object({
  ...base,
  type: z.literal("deterministic"),
  function: z.string().regex(/^[A-Za-z_$][\w$]*$/, "the name of a function exported by logic.ts"),
});

/**
 * A pairwise criterion: one input, two outputs, which is better (or a tie where `allow_tie`). It is
 * not one of a suite's criteria (those score one output, see `criterionSchema`): `jury agreement
 * pairwise` loads it with its items, judges each item in both orders (unless `both_orders` is false)
 * and audits position bias (lib/agreement/pairwise.ts).
 */
export const pairwiseCriterionSchema = z.object({
  id: base.id,
  name: base.name,
  version: base.version,
  description: base.description,
  type: z.literal("pairwise"),
  prompt_template: z.string().min(20, "prompt_template is required for a pairwise criterion"),
  allow_tie: z.boolean().default(false),
  both_orders: z.boolean().default(true),
  parameters: base.parameters,
  tags: base.tags,
});
export type PairwiseCriterion = z.infer<typeof pairwiseCriterionSchema>;

export const criterionSchema = z.discriminatedUnion(
  "type",
  [llmCriterionSchema, deterministicCriterionSchema],
  {
    error: (iss) => (iss.code === "invalid_union" ? 'type must be "llm" or "deterministic"' : undefined),
  },
);

export type LlmCriterion = z.infer<typeof llmCriterionSchema>;
export type Criterion = z.infer<typeof criterionSchema>;
