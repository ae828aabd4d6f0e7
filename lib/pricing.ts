/**
 * USD per million tokens, as the settings' price table holds them. `cachedInputPerMTok` is the rate of
 * input read from the provider's prompt cache, `cacheWritePerMTok` of input written to it (Anthropic
 * charges a premium; OpenAI and Google bill a write as ordinary input). Absent, both are the input rate:
 * a price without cache rates never undercharges. `batchDiscount` is the share taken off every rate for
 * a call sent through the provider's batch API (0.5: half price).
 */
export type Price = {
  inputPerMTok: number;
  outputPerMTok: number;
  cachedInputPerMTok?: number;
  cacheWritePerMTok?: number;
  batchDiscount?: number;
};

/**
 * A call's tokens, as the AI SDK reports them for every provider: `inputTokens` counts every input
 * token, those read from and written to the prompt cache included (Anthropic's own `input_tokens`
 * leaves them out; the SDK adds them back, and so does `usageFromProvider`). `outputTokens` counts
 * reasoning tokens too: they are billed as output.
 */
export type TokenUsage = {
  inputTokens: number;
  outputTokens: number;
  /** input read from the provider's prompt cache */
  cacheReadTokens?: number;
  /** input written to the provider's prompt cache */
  cacheWriteTokens?: number;
  /** of the output, the model's reasoning */
  reasoningTokens?: number;
};

/**
 * The one price formula: a call's (or a batch's) cost in USD from its tokens. Uncached input at the
 * input rate, cache reads at the cached rate, cache writes at the write rate, output at the output
 * rate; a batched call with the batch discount off all of them.
 */
export function costOf(price: Price, usage: TokenUsage, opts: { batch?: boolean } = {}): number {
  const read = Math.max(0, usage.cacheReadTokens ?? 0);
  const write = Math.max(0, usage.cacheWriteTokens ?? 0);
  const fresh = Math.max(0, usage.inputTokens - read - write);
  const micro =
    fresh * price.inputPerMTok +
    read * (price.cachedInputPerMTok ?? price.inputPerMTok) +
    write * (price.cacheWritePerMTok ?? price.inputPerMTok) +
    usage.outputTokens * price.outputPerMTok;
  const factor = opts.batch ? 1 - (price.batchDiscount ?? 0) : 1;
  return (micro * factor) / 1e6;
}

/** What the same tokens would have cost with no prompt cache: every input token at the input rate. */
export function uncachedCostOf(price: Price, usage: TokenUsage, opts: { batch?: boolean } = {}): number {
  return costOf(price, { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }, opts);
}

/**
 * The model ids a judge id may be priced under: itself, then its alias or dated id. Anthropic dates
 * its snapshots (`claude-haiku-4-5-20251001` is `claude-haiku-4-5`), OpenAI too
 * (`gpt-4.1-2025-04-14`), Google names versions (`gemini-2.0-flash-001`) and `-latest` aliases.
 */
export function priceKeys(judge: string): string[] {
  const keys = [judge];
  const undated = judge
    .replace(/-(\d{8})$/, "")
    .replace(/-(\d{4}-\d{2}-\d{2})$/, "")
    .replace(/-(\d{3})$/, "")
    .replace(/-latest$/, "");
  if (undated !== judge) keys.push(undated);
  return keys;
}

/** The undated id a model id names (its alias); itself when it has no date. */
function aliasOf(key: string): string {
  return priceKeys(key).at(-1) ?? key;
}

/**
 * A judge's price: under its own id, else under the id it is an alias or a dated snapshot of
 * (`anthropic:claude-haiku-4-5` finds `anthropic:claude-haiku-4-5-20251001` and the other way round).
 * Undefined when none is in the table: the cost is "unpriced", never $0.
 */
export function resolvePrice(prices: Record<string, Price>, judge: string): Price | undefined {
  const own = prices[judge];
  if (own) return own;
  const alias = aliasOf(judge);
  if (alias !== judge && prices[alias]) return prices[alias];
  // a dated entry for the alias asked for (or another snapshot of the same model): the newest date
  const matches = Object.keys(prices)
    .filter((k) => k !== judge && aliasOf(k) === alias)
    .sort();
  const last = matches.at(-1);
  return last ? prices[last] : undefined;
}

/** The providers whose APIs cache a prompt's prefix (and bill cache reads at a lower rate). */
export function cachingProvider(judge: string): "openai" | "anthropic" | "google" | undefined {
  const provider = judge.slice(0, judge.indexOf(":"));
  return provider === "openai" || provider === "anthropic" || provider === "google" ? provider : undefined;
}

/**
 * The shortest prompt, in tokens, each provider caches: Anthropic 1,024 for Sonnet and Opus, 2,048
 * for Haiku 3 and 3.5, 4,096 for Haiku 4.5 and Opus 4.5; OpenAI 1,024; Gemini 1,024 for Flash and
 * 4,096 for Pro (implicit caching). A shorter prompt is billed in full every time.
 */
export function cacheMinimumTokens(judge: string): number | undefined {
  const provider = cachingProvider(judge);
  const model = judge.slice(judge.indexOf(":") + 1);
  if (provider === "anthropic") {
    if (/haiku-4|opus-4-5/.test(model)) return 4096;
    if (/haiku/.test(model)) return 2048;
    return 1024;
  }
  if (provider === "openai") return 1024;
  if (provider === "google") return /pro/.test(model) ? 4096 : 1024;
  return undefined;
}

/** The providers whose batch APIs Jury sends a batched run's calls through (the others run live). */
export function batchProvider(judge: string): "openai" | "anthropic" | undefined {
  const p = cachingProvider(judge);
  return p === "openai" || p === "anthropic" ? p : undefined;
}

/**
 * The one way a call's cost is shown: USD to 5 decimals, "unpriced" when the judge has no price
 * (never $0), and "· cached" after the cost the original call had when the answer came from the
 * response cache (nothing was spent this time).
 */
export function formatCost(costUsd: number | null, { cached = false }: { cached?: boolean } = {}): string {
  const cost = costUsd === null ? "unpriced" : `$${costUsd.toFixed(5)}`;
  return cached ? `${cost} · cached` : cost;
}
