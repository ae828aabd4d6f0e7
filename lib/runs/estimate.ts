import type { BudgetWarning } from "../judging/budget";
import {
  batchProvider,
  cacheMinimumTokens,
  cachingProvider,
  costOf,
  type Price,
  resolvePrice,
  type TokenUsage,
} from "../pricing";

export type SuiteSummary = {
  dir: string;
  name: string;
  cases: number;
  llmCriteria: number;
  deterministicCriteria: number;
  /** mean characters of one judge prompt (template + case), to estimate input tokens */
  meanPromptChars: number;
  /** case fields over the per-field budget (sent cut, with a truncation marker) */
  warnings?: BudgetWarning[];
  /**
   * Calls already in the response cache, per judge: `cached[judge][i]` is how many case × LLM
   * criterion prompts have sample i cached (at `cachedTemperature`). A run takes those from the cache.
   */
  cached?: Record<string, number[]>;
  cachedTemperature?: number;
  error?: string;
};

export type RunEstimate = {
  /** every call the run plans */
  calls: number;
  /** of them, answered from the response cache: free and instant */
  cachedCalls: number;
  /** of them, the calls that reach a model (and cost) */
  callsToMake: number;
  /** tokens of the calls to make */
  inputTokens: number;
  outputTokens: number;
  /** the calls to make, priced; null when a judge with calls to make has no price in the table */
  costUsd: number | null;
  /** of the input tokens, those expected from the providers' prompt caches */
  cacheReadTokens: number;
  /** judges with calls to make and no price */
  unpricedJudges: string[];
  seconds: number;
  /** case fields over the per-field budget: the judge gets them cut, with a truncation marker */
  warnings: BudgetWarning[];
};

/** Assumed until a judge has history: a typical answer length and call latency. */
export const ASSUMED_OUTPUT_TOKENS = 80;
export const ASSUMED_LATENCY_MS = 2000;

/** Calls of one judge at N samples that the cache already holds. */
function cachedFor(s: SuiteSummary, judge: string, n: number, temperature?: number): number {
  if (!s.cached || (temperature !== undefined && temperature !== s.cachedTemperature)) return 0;
  return (s.cached[judge] ?? []).slice(0, n).reduce((a, b) => a + b, 0);
}

/**
 * The cost table, per run: calls = cases × LLM criteria × judges × N, of which those in the
 * response cache are counted apart ("40 cached, 80 to call") and only the calls to make are priced
 * and timed. `temperature`: the run's; the cache counts hold only at the temperature they were taken at.
 */
export function estimateRun(
  s: SuiteSummary,
  judges: string[],
  n: number,
  prices: Record<string, Price>,
  concurrency: number,
  latencyMsByJudge: Record<string, number> = {},
  temperature?: number,
  mode: EstimateMode = {},
): RunEstimate {
  const perJudge = s.cases * s.llmCriteria * n;
  const calls = perJudge * judges.length;
  const inPerCall = Math.ceil(s.meanPromptChars / 4);
  let cost = 0;
  let cachedCalls = 0;
  let cacheRead = 0;
  const unpriced: string[] = [];
  for (const j of judges) {
    const toMake = perJudge - Math.min(perJudge, cachedFor(s, j, n, temperature));
    cachedCalls += perJudge - toMake;
    if (toMake === 0) continue;
    const usage = expectedUsage(j, toMake, s.cases * s.llmCriteria, inPerCall, mode);
    cacheRead += usage.cacheReadTokens ?? 0;
    const p = resolvePrice(prices, j);
    if (!p) {
      if (!j.startsWith("mock:")) unpriced.push(j);
      continue;
    }
    cost += costOf(p, usage, { batch: mode.batch === true && batchProvider(j) !== undefined });
  }
  const callsToMake = calls - cachedCalls;
  const latency = judges.length
    ? Math.max(...judges.map((j) => latencyMsByJudge[j] ?? ASSUMED_LATENCY_MS))
    : 0;
  return {
    calls,
    cachedCalls,
    callsToMake,
    inputTokens: callsToMake * inPerCall,
    outputTokens: callsToMake * ASSUMED_OUTPUT_TOKENS,
    costUsd: unpriced.length ? null : cost,
    cacheReadTokens: cacheRead,
    unpricedJudges: unpriced,
    seconds: Math.ceil(callsToMake / Math.max(1, concurrency)) * (latency / 1000),
    warnings: s.llmCriteria > 0 ? (s.warnings ?? []) : [],
  };
}

/** How the run would call: with prompt caching (on unless false) and through the batch APIs. */
export type EstimateMode = { promptCaching?: boolean; batch?: boolean };

/**
 * The tokens a judge's calls to make are expected to use, by the formula billing uses: with prompt
 * caching on a provider that caches, a prompt past its cache minimum is written once (its first
 * sample) and read by its other samples; otherwise every input token is paid in full.
 */
export function expectedUsage(
  judge: string,
  calls: number,
  prompts: number,
  inPerCall: number,
  mode: EstimateMode,
): TokenUsage {
  const inputTokens = calls * inPerCall;
  const outputTokens = calls * ASSUMED_OUTPUT_TOKENS;
  const provider = cachingProvider(judge);
  const min = cacheMinimumTokens(judge);
  if (mode.promptCaching === false || !provider || min === undefined || inPerCall < min)
    return { inputTokens, outputTokens };
  const writes = Math.min(calls, prompts);
  const reads = calls - writes;
  return {
    inputTokens,
    outputTokens,
    cacheReadTokens: reads * inPerCall,
    // Anthropic bills the first call's prefix as a cache write; OpenAI and Google as input
    cacheWriteTokens: provider === "anthropic" ? writes * inPerCall : 0,
  };
}

/** "40 cached, 80 to call" (or just the count when nothing is cached). */
export function callsText(e: Pick<RunEstimate, "calls" | "cachedCalls" | "callsToMake">): string {
  return e.cachedCalls > 0
    ? `${e.cachedCalls.toLocaleString("en-US")} cached, ${e.callsToMake.toLocaleString("en-US")} to call`
    : `${e.calls.toLocaleString("en-US")} to call`;
}
