import { z } from "zod";
import { endpointKeyEnv, secretOwner } from "../env/secrets";
import { COLLECTION_NAME } from "../memory/collection";
import { MEMORY_JUDGE_DEFAULTS as D, MEMORY_JUDGE_LIMITS as L } from "./memory-judge-defaults";

const modelId = z.string().trim().min(1, "Model id cannot be empty").max(200);

import { builtinProviderIds } from "./providers";

export { enabledJudges } from "./providers";

const providerToggle = z.object({
  enabled: z.boolean(),
  models: z.array(modelId).max(50),
});

const endpointName = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9-]{0,31}$/, "Lowercase letters, digits and dashes, starting with a letter")
  .refine(
    (n) => !(builtinProviderIds as readonly string[]).includes(n),
    "This name is taken by a built-in provider",
  );

/**
 * Why a custom endpoint may not take its key from `value`, or undefined when it may. The only
 * allowed variable is the endpoint's own `JURY_<NAME>_API_KEY`: a dashboard request must never
 * be able to send another provider's key, the access token or any other variable to a URL of
 * its choosing.
 */
export function endpointKeyEnvProblem(name: string, value: string): string | undefined {
  const allowed = endpointKeyEnv(name);
  if (value === allowed) return undefined;
  const owner = secretOwner(value);
  return `Key variable ${JSON.stringify(value)} is not allowed${owner ? ` (it is ${owner})` : ""}: endpoint "${name}" may only send ${allowed}, or no key.`;
}

/**
 * A named OpenAI-compatible endpoint. `apiKeyEnv` is empty (no key) or exactly `JURY_<NAME>_API_KEY`
 * (see lib/env/secrets.ts): the field stays a variable name so stored settings keep their shape,
 * and any other name, including one an older version accepted, fails validation here.
 */
export const customEndpointSchema = z
  .object({
    name: endpointName,
    baseUrl: z.url({ protocol: /^https?$/, error: "Must be an http(s) URL, like http://127.0.0.1:11434/v1" }),
    apiKeyEnv: z
      .string()
      .trim()
      .max(200)
      .optional()
      .transform((v) => v || undefined),
    enabled: z.boolean(),
    models: z.array(modelId).max(50),
  })
  .superRefine((e, ctx) => {
    if (e.apiKeyEnv === undefined) return;
    const problem = endpointKeyEnvProblem(e.name, e.apiKeyEnv);
    if (problem) ctx.addIssue({ code: "custom", path: ["apiKeyEnv"], message: problem });
  });

const verification = z.enum(["strict", "lenient"]);

/** The memory-judge block, with its defaults; a mode may set its own candidate pool size. */
const modeSchema = z.object({
  verification,
  max_output: z.int().min(L.max_output.min).max(L.max_output.max),
  candidate_pool_size: z.int().min(L.candidate_pool_size.min).max(L.candidate_pool_size.max).optional(),
});
export const memoryJudgeSchema = z.object({
  enabled: z.boolean().default(D.enabled),
  model: modelId.default(D.model),
  timeout_per_call: z.number().positive().max(L.timeout_per_call.max).default(D.timeout_per_call),
  fallback_top_k: z.int().min(L.fallback_top_k.min).max(L.fallback_top_k.max).default(D.fallback_top_k),
  candidate_pool_size: z
    .int()
    .min(L.candidate_pool_size.min)
    .max(L.candidate_pool_size.max)
    .default(D.candidate_pool_size),
  dual_verification: z.boolean().default(D.dual_verification),
  include_conversation_context: z.boolean().default(D.include_conversation_context),
  context_turns: z.int().min(L.context_turns.min).max(L.context_turns.max).default(D.context_turns),
  /** the judge sees each memory's body, not only its title and tags */
  include_body: z.boolean().default(D.include_body),
  /** candidates shown in an order shuffled by the prompt (false: BM25 order) */
  shuffle: z.boolean().default(D.shuffle),
  /** judge samples per prompt: a memory is kept when a majority keeps it */
  samples: z.int().min(L.samples.min).max(L.samples.max).default(D.samples),
  /**
   * the collection promoted from a study ("Use for the hook"); the hook and `jury memory` read it
   * unless --collection, JURY_MEMORY_COLLECTION or a collection named after the project says otherwise
   */
  collection: z
    .string()
    .trim()
    .transform((v) => v || undefined)
    .pipe(
      z
        .string()
        .regex(COLLECTION_NAME, "Not a collection name: a letter or digit, then letters, digits, _ . -")
        .optional(),
    )
    .optional(),
  modes: z
    .object({ auto: modeSchema, search: modeSchema })
    .default({ auto: { ...D.modes.auto }, search: { ...D.modes.search } }),
});

/** A judge as `provider:model` (lib/providers/get-model.ts parseJudgeId's rule). */
const judgeId = modelId.regex(/^[^:]+:.+$/, "Write a judge as provider:model, like openai:gpt-5-mini");
/** A criterion's folder name (lib/criteria/definition.ts). */
export const criterionIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*$/, "A criterion id: lowercase letters, digits, _ and -")
  .max(100);
const judgeList = z
  .array(judgeId)
  .max(20)
  .refine((l) => new Set(l).size === l.length, "A judge is listed twice");

/** Where a promoted value came from: what measured it, its figures with their intervals, and when. */
export const PROVENANCE_SOURCES = ["experiment", "run", "agreement"] as const;
const figureSchema = z.object({
  /** null where the figure is undefined on its items (n = 0, or every item in one category) */
  value: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  n: z.int().min(0),
});
export const provenanceEntrySchema = z.object({
  /** an experiment of the memory study, a run (its agreement with people's labels), an imported set */
  source: z.enum(PROVENANCE_SOURCES),
  id: z.string().trim().min(1).max(200),
  /** what was promoted, in words (the configuration's label, "panel on correctness") */
  label: z.string().max(500).optional(),
  figures: z.record(z.string().min(1).max(100), figureSchema),
  at: z.iso.datetime(),
  /** who promoted it (a user's name, "local", "<os user> (cli)"); absent: before authors were kept */
  by: z.string().trim().min(1).max(200).optional(),
  /** the values promoted at this path: a hand edit that changes one of them marks the entry overridden */
  value: z.unknown(),
  /** when a hand edit changed a promoted value: the figures no longer describe what is set */
  overriddenAt: z.iso.datetime().optional(),
});
/** Paths a value can be promoted to: the memory judge, a criterion's panel, the review judges. */
export const provenancePathSchema = z
  .string()
  .regex(
    /^(memoryJudge|reviewJudges|(criteriaPanels|criteriaSamples)\.[a-z0-9][a-z0-9_-]*)$/,
    "memoryJudge, reviewJudges, criteriaPanels.<criterion> or criteriaSamples.<criterion>",
  );

export const priceSchema = z.object({
  inputPerMTok: z.number().min(0).max(10_000),
  outputPerMTok: z.number().min(0).max(10_000),
  /** input read from the provider's prompt cache; absent: the input rate */
  cachedInputPerMTok: z.number().min(0).max(10_000).optional(),
  /** input written to the provider's prompt cache; absent: the input rate */
  cacheWritePerMTok: z.number().min(0).max(10_000).optional(),
  /** the share off every rate through the provider's batch API (0.5: half price); absent: none */
  batchDiscount: z.number().min(0, "Must be ≥ 0").max(1, "Must be ≤ 1").optional(),
});

export const settingsSchema = z.object({
  providers: z.object({
    openai: providerToggle,
    anthropic: providerToggle,
    google: providerToggle,
    local: providerToggle,
    mock: providerToggle,
  }),
  endpoints: z
    .array(customEndpointSchema)
    .max(20)
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((e, i) => {
        if (seen.has(e.name))
          ctx.addIssue({
            code: "custom",
            path: [i, "name"],
            message: `Another endpoint is named "${e.name}"`,
          });
        seen.add(e.name);
      });
    }),
  judging: z.object({
    samples: z.int("N must be a whole number").min(1, "N must be at least 1").max(10, "N must be at most 10"),
    temperature: z.number().min(0, "Temperature must be ≥ 0").max(2, "Temperature must be ≤ 2"),
    concurrency: z.int().min(1).max(256),
    perProviderConcurrency: z.int().min(1).max(256),
    timeoutMs: z.int().min(100).max(600_000),
    maxRetries: z.int().min(0).max(10),
    /**
     * the most output tokens a judge's answer may take, sent with every call (reasoning models get
     * lib/judging/output-limit.ts's headroom on top); a judge listed in maxOutputTokensByJudge uses its own
     */
    maxOutputTokens: z
      .int("Must be a whole number")
      .min(16, "At least 16")
      .max(128_000, "At most 128,000")
      .default(1024),
    maxOutputTokensByJudge: z.record(judgeId, z.int().min(16).max(128_000)).default({}),
    // the panel options; a suite's criterion may override them
    consensusThreshold: z.number().min(0, "Must be ≥ 0").max(9, "Must be ≤ 9").default(1.5),
    flagLowConsensus: z.boolean().default(true),
    reportUncertainty: z.boolean().default(true),
    /** ask the providers to cache each judge prompt's stable prefix (cache breakpoints, a cache key) */
    promptCaching: z.boolean().default(true),
  }),
  memoryJudge: memoryJudgeSchema,
  prices: z.record(modelId, priceSchema),
  /** a criterion's default panel for `jury eval` without --judges (promoted from the agreement view) */
  criteriaPanels: z
    .record(criterionIdSchema, judgeList.min(1, "A panel needs at least one judge"))
    .default({}),
  /** a criterion's default N (samples per judge) for `jury eval` without --n (promoted from the panel optimizer) */
  criteriaSamples: z
    .record(
      criterionIdSchema,
      z.int("N must be a whole number").min(1, "N must be at least 1").max(10, "N must be at most 10"),
    )
    .default({}),
  /** the judges `jury review` uses when neither --judges nor JUDGE_MODEL names one (empty: the enabled judges) */
  reviewJudges: judgeList.default([]),
  /** where each promoted value came from, by setting path; set only by promotion (lib/settings/promote.ts) */
  provenance: z.record(provenancePathSchema, provenanceEntrySchema).default({}),
});

export type Settings = z.infer<typeof settingsSchema>;
export type CustomEndpoint = z.infer<typeof customEndpointSchema>;
export type MemoryJudgeSettings = z.infer<typeof memoryJudgeSchema>;
export type ProvenanceEntry = z.infer<typeof provenanceEntrySchema>;
export type ProvenanceFigure = z.infer<typeof figureSchema>;

export const defaultSettings: Settings = {
  providers: {
    openai: { enabled: false, models: ["gpt-5-mini"] },
    anthropic: { enabled: false, models: ["claude-sonnet-4-5"] },
    google: { enabled: false, models: ["gemini-2.5-flash"] },
    local: { enabled: false, models: ["llama3.1:8b"] },
    // never a default: the mock provider answers only when a judge names it and it is enabled here
    mock: { enabled: false, models: ["judge"] },
  },
  endpoints: [],
  judging: {
    samples: 3,
    temperature: 0.8,
    concurrency: 8,
    perProviderConcurrency: 4,
    timeoutMs: 60_000,
    maxRetries: 4,
    maxOutputTokens: 1024,
    maxOutputTokensByJudge: {},
    consensusThreshold: 1.5,
    flagLowConsensus: true,
    reportUncertainty: true,
    promptCaching: true,
  },
  memoryJudge: memoryJudgeSchema.parse({}),
  // USD per million tokens, from the providers' published prices (standard tier). Edit them in
  // Settings: prices change, and these are only a start. Cache reads cost a tenth of input at all
  // three; Anthropic charges 1.25× input for a cache write (5-minute lifetime), OpenAI and Google
  // bill it as input; the batch APIs take half off.
  prices: {
    "openai:gpt-5-mini": {
      inputPerMTok: 0.25,
      cachedInputPerMTok: 0.025,
      outputPerMTok: 2,
      batchDiscount: 0.5,
    },
    "anthropic:claude-sonnet-4-5": {
      inputPerMTok: 3,
      cachedInputPerMTok: 0.3,
      cacheWritePerMTok: 3.75,
      outputPerMTok: 15,
      batchDiscount: 0.5,
    },
    "anthropic:claude-haiku-4-5-20251001": {
      inputPerMTok: 1,
      cachedInputPerMTok: 0.1,
      cacheWritePerMTok: 1.25,
      outputPerMTok: 5,
      batchDiscount: 0.5,
    },
    "google:gemini-2.5-flash": {
      inputPerMTok: 0.3,
      cachedInputPerMTok: 0.03,
      outputPerMTok: 2.5,
      batchDiscount: 0.5,
    },
  },
  criteriaPanels: {},
  criteriaSamples: {},
  reviewJudges: [],
  provenance: {},
};

/** Zod issues as `{ "judging.samples": "N must be at most 10" }`, first message per path. */
export function fieldErrorsOf(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join(".") || "_";
    out[key] ??= issue.message;
  }
  return out;
}
