import { ANTHROPIC_CACHE_WRITE, BATCH_DISCOUNT, resolveSimModel, type SimProvider } from "./rates";

/**
 * What one billed request used, in the provider's own terms. `inputTokens` is the uncached input
 * (for OpenAI and Gemini: the prompt minus what was read from the cache; for Anthropic: the
 * `input_tokens` field, which already excludes cache reads and writes); `outputTokens` includes
 * reasoning / thinking tokens, as every provider bills them.
 */
export type LedgerEntry = {
  provider: SimProvider;
  /** the canonical model id (dated snapshots resolved) */
  model: string;
  mode: "live" | "batch";
  requestId: string;
  inputTokens: number;
  cachedInputTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** the provider's formula at its published rates, in USD, unrounded */
  costUsd: number;
};

export type LedgerUsage = Omit<LedgerEntry, "costUsd" | "provider" | "model" | "mode" | "requestId">;

/** The provider's formula: uncached × input + cached × cached rate + writes × write rate + output × output; batch halves it. */
export function simCost(
  provider: SimProvider,
  model: string,
  mode: "live" | "batch",
  u: LedgerUsage,
): number {
  const m = resolveSimModel(provider, model);
  if (!m) throw new Error(`no published rate for ${provider}:${model}`);
  const r = m.facts;
  const usd =
    (u.inputTokens * r.input +
      u.cachedInputTokens * r.cachedInput +
      u.cacheWrite5mTokens * r.input * ANTHROPIC_CACHE_WRITE["5m"] +
      u.cacheWrite1hTokens * r.input * ANTHROPIC_CACHE_WRITE["1h"] +
      u.outputTokens * r.output) /
    1e6;
  return mode === "batch" ? usd * BATCH_DISCOUNT : usd;
}

/** Every billed request the simulators answered (2xx with usage), in order. Errors are never billed. */
export class Ledger {
  readonly entries: LedgerEntry[] = [];

  record(e: Omit<LedgerEntry, "costUsd">): LedgerEntry {
    const entry = { ...e, costUsd: simCost(e.provider, e.model, e.mode, e) };
    this.entries.push(entry);
    return entry;
  }

  /** Total USD, optionally for one provider and/or mode. */
  total(filter: { provider?: SimProvider; mode?: "live" | "batch" } = {}): number {
    return this.select(filter).reduce((s, e) => s + e.costUsd, 0);
  }

  /** Summed token counts, optionally for one provider and/or mode. */
  tokens(
    filter: { provider?: SimProvider; mode?: "live" | "batch" } = {},
  ): LedgerUsage & { requests: number } {
    const out = {
      requests: 0,
      inputTokens: 0,
      cachedInputTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
    };
    for (const e of this.select(filter)) {
      out.requests++;
      out.inputTokens += e.inputTokens;
      out.cachedInputTokens += e.cachedInputTokens;
      out.cacheWrite5mTokens += e.cacheWrite5mTokens;
      out.cacheWrite1hTokens += e.cacheWrite1hTokens;
      out.outputTokens += e.outputTokens;
      out.reasoningTokens += e.reasoningTokens;
    }
    return out;
  }

  clear(): void {
    this.entries.length = 0;
  }

  private select(f: { provider?: SimProvider; mode?: "live" | "batch" }) {
    return this.entries.filter(
      (e) => (!f.provider || e.provider === f.provider) && (!f.mode || e.mode === f.mode),
    );
  }
}
