/**
 * The providers' published list prices, per million tokens in USD, and the model facts the simulators
 * enforce (largest max output tokens, minimum cacheable prompt length). Kept apart from lib/pricing.ts
 * on purpose: the simulators' ledger is the independent check of what Jury bills.
 *
 * Sources: openai.com/api/pricing (cached input = the "cached input" column; batch = 50 %),
 * docs.anthropic.com pricing + prompt caching (5-minute cache write 1.25 × input, 1-hour write 2 ×,
 * cache read 0.1 ×; Message Batches 50 %; minimum cacheable length per model), ai.google.dev pricing
 * and caching (cached input 10 % of input for 2.5 models; batch 50 %; implicit-cache minimum per
 * model). Prices for prompts ≤ 200k tokens where a provider has tiers.
 */

export type SimProvider = "openai" | "anthropic" | "google";

export type ModelFacts = {
  provider: SimProvider;
  /** USD per million uncached input tokens */
  input: number;
  /** USD per million input tokens read from the prompt cache */
  cachedInput: number;
  /** USD per million output tokens (reasoning / thinking tokens are billed as output) */
  output: number;
  /** the largest max output tokens the API accepts for the model */
  maxOutputTokens: number;
  /** the shortest prefix, in tokens, the provider caches */
  minCacheTokens: number;
  /** reasoning (OpenAI) or thinking-by-default (Gemini) model: spends reasoning tokens before answering */
  reasoning: boolean;
  /** Anthropic only: accepts output_config.format (structured outputs) */
  structuredOutputs?: boolean;
};

/** Anthropic cache-write multipliers of the input price, by cache_control ttl. */
export const ANTHROPIC_CACHE_WRITE = { "5m": 1.25, "1h": 2 } as const;
/** Every provider's batch API bills half the live price, cache rates included. */
export const BATCH_DISCOUNT = 0.5;

const oa = (
  input: number,
  cachedInput: number,
  output: number,
  maxOutputTokens: number,
  reasoning: boolean,
) =>
  ({
    provider: "openai",
    input,
    cachedInput,
    output,
    maxOutputTokens,
    minCacheTokens: 1024,
    reasoning,
  }) as const;
const an = (
  input: number,
  output: number,
  maxOutputTokens: number,
  minCacheTokens: number,
  structured = true,
) =>
  ({
    provider: "anthropic",
    input,
    cachedInput: input * 0.1,
    output,
    maxOutputTokens,
    minCacheTokens,
    reasoning: false,
    structuredOutputs: structured,
  }) as const;
const gg = (input: number, cachedInput: number, output: number, minCacheTokens: number, reasoning: boolean) =>
  ({
    provider: "google",
    input,
    cachedInput,
    output,
    maxOutputTokens: 65_536,
    minCacheTokens,
    reasoning,
  }) as const;

/** Canonical model ids; dated snapshots resolve to them (see resolveSimModel). */
export const SIM_MODELS: Record<string, ModelFacts> = {
  "gpt-5": oa(1.25, 0.125, 10, 128_000, true),
  "gpt-5-mini": oa(0.25, 0.025, 2, 128_000, true),
  "gpt-5-nano": oa(0.05, 0.005, 0.4, 128_000, true),
  "gpt-4.1": oa(2, 0.5, 8, 32_768, false),
  "gpt-4.1-mini": oa(0.4, 0.1, 1.6, 32_768, false),
  "gpt-4.1-nano": oa(0.1, 0.025, 0.4, 32_768, false),
  "gpt-4o": oa(2.5, 1.25, 10, 16_384, false),
  "gpt-4o-mini": oa(0.15, 0.075, 0.6, 16_384, false),
  o3: oa(2, 0.5, 8, 100_000, true),
  "o4-mini": oa(1.1, 0.275, 4.4, 100_000, true),
  "claude-opus-4-5": an(5, 25, 64_000, 4096),
  "claude-opus-4-1": an(15, 75, 32_000, 1024, false),
  "claude-sonnet-4-5": an(3, 15, 64_000, 1024),
  "claude-sonnet-4": an(3, 15, 64_000, 1024, false),
  "claude-haiku-4-5": an(1, 5, 64_000, 4096),
  "claude-3-5-haiku": an(0.8, 4, 8192, 2048, false),
  "gemini-2.5-pro": gg(1.25, 0.125, 10, 4096, true),
  "gemini-2.5-flash": gg(0.3, 0.03, 2.5, 1024, true),
  "gemini-2.5-flash-lite": gg(0.1, 0.01, 0.4, 2048, false),
};

/** Dated snapshot ids the providers publish for the models above. */
const SNAPSHOTS: Record<string, string> = {
  "gpt-5-2025-08-07": "gpt-5",
  "gpt-5-mini-2025-08-07": "gpt-5-mini",
  "gpt-5-nano-2025-08-07": "gpt-5-nano",
  "gpt-4.1-2025-04-14": "gpt-4.1",
  "gpt-4.1-mini-2025-04-14": "gpt-4.1-mini",
  "gpt-4.1-nano-2025-04-14": "gpt-4.1-nano",
  "gpt-4o-2024-08-06": "gpt-4o",
  "gpt-4o-mini-2024-07-18": "gpt-4o-mini",
  "o3-2025-04-16": "o3",
  "o4-mini-2025-04-16": "o4-mini",
  "claude-opus-4-5-20251101": "claude-opus-4-5",
  "claude-opus-4-1-20250805": "claude-opus-4-1",
  "claude-sonnet-4-5-20250929": "claude-sonnet-4-5",
  "claude-sonnet-4-20250514": "claude-sonnet-4",
  "claude-haiku-4-5-20251001": "claude-haiku-4-5",
  "claude-3-5-haiku-20241022": "claude-3-5-haiku",
  "claude-3-5-haiku-latest": "claude-3-5-haiku",
};

/** The canonical id and facts of a model the provider serves, or undefined (the API's "model not found"). */
export function resolveSimModel(
  provider: SimProvider,
  model: string,
): { id: string; facts: ModelFacts } | undefined {
  const id = SNAPSHOTS[model] ?? model;
  const facts = SIM_MODELS[id];
  return facts && facts.provider === provider ? { id, facts } : undefined;
}
