import { z } from "zod";

/** A suite's reference to a criterion, with per-suite (or per-case) overrides. */
export const criterionRefSchema = z.object({
  id: z.string().min(1),
  threshold: z.number().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  // the panel options for this criterion (default: Settings → Judging)
  consensus_threshold: z.number().min(0).max(9).optional(),
  flag_low_consensus: z.boolean().optional(),
  report_uncertainty: z.boolean().optional(),
});

/** An output fetched from the system under test (called with a setup payload). */
export const outputHttpSchema = z.object({
  url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  method: z.enum(["GET", "POST"]).default("POST"),
  /** JSON body sent to the system under test (the setup payload) */
  setup: z.unknown().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  timeout_ms: z.int().min(1).max(600_000).default(30_000),
});

/** Where the output to judge comes from. */
export const outputSourceSchema = z.union([
  z.string(),
  z.object({ file: z.string().min(1) }),
  z.object({ http: outputHttpSchema }),
  // any other JSON value is judged as its JSON text
  z.record(z.string(), z.unknown()),
  z.array(z.unknown()),
]);

export const caseSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9][\w.-]*$/, "letters, digits, _ . -"),
  name: z.string().min(1),
  description: z.string().optional(),
  input: z
    .object({
      prompt: z.string().optional(),
      profile: z.unknown().optional(),
      context: z.string().optional(),
      reference: z.string().optional(),
    })
    .default({}),
  output: outputSourceSchema,
  /** overrides of the suite's criteria for this case (threshold, params) */
  criteria: z.array(criterionRefSchema).optional(),
  llm_prompt_hint: z.string().optional(),
  /** The test case's block: what the LLM judges should focus on (prompt_hint wins over llm_prompt_hint) */
  llm_criteria: z
    .object({
      focus_areas: z.array(z.string().min(1)).max(50).optional(),
      prompt_hint: z.string().optional(),
    })
    .optional(),
});

export const suiteSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  criteria: z.array(criterionRefSchema).min(1, "a suite needs at least one criterion"),
  llm_prompt_hint: z.string().optional(),
  /** inline cases; more are read from cases/*.json beside suite.json */
  cases: z.array(caseSchema).optional(),
});

export type CriterionRef = z.infer<typeof criterionRefSchema>;
export type TestCase = z.infer<typeof caseSchema>;
