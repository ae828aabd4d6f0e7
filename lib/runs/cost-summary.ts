import type { RunCostRow } from "@/db/queries/runs";

/** A run's cost as `--json` and the run page give it: what was paid, and what caching and batches saved. */
export type RunCost = {
  /** model calls the figures rest on (answers from Jury's response cache cost nothing and are left out) */
  calls: number;
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  /** of the input tokens, read from the providers' prompt caches */
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  /** cache_read_tokens / input_tokens, or null with no input */
  cached_share: number | null;
  /** what the prompt cache saved against full-price input, in USD (write premiums counted against it) */
  cache_saved_usd: number;
  /** calls answered through a provider's batch API, at its batch rate */
  batched_calls: number;
};

export function runCost(row: RunCostRow): RunCost {
  return {
    calls: row.calls,
    cost_usd: row.costUsd,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cache_read_tokens: row.cacheReadTokens,
    cache_write_tokens: row.cacheWriteTokens,
    reasoning_tokens: row.reasoningTokens,
    cached_share: row.inputTokens > 0 ? row.cacheReadTokens / row.inputTokens : null,
    cache_saved_usd: row.cacheSavedUsd,
    batched_calls: row.batchedCalls,
  };
}

/** "42 % of 120,000 input tokens from the prompt cache (saved $0.0123) · 30 of 45 calls batched" */
export function cacheText(c: RunCost): string {
  const parts: string[] = [];
  if (c.cached_share !== null && c.cache_read_tokens > 0)
    parts.push(
      `${Math.round(c.cached_share * 100)} % of ${c.input_tokens.toLocaleString("en-US")} input tokens from the prompt cache (saved $${c.cache_saved_usd.toFixed(4)})`,
    );
  else if (c.calls > 0) parts.push(`no input from the prompt cache (${c.calls} calls)`);
  if (c.batched_calls > 0) parts.push(`${c.batched_calls} of ${c.calls} calls batched`);
  return parts.join(" · ");
}
