import type { BudgetWarning } from "../judging/budget";
import { costOf, type Price } from "../pricing";

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
  error?: string;
};

export type RunEstimate = {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** null when a judge has no price in the price table */
  costUsd: number | null;
  unpricedJudges: string[];
  seconds: number;
  /** case fields over the per-field budget: the judge gets them cut, with a truncation marker */
  warnings: BudgetWarning[];
};

/** Assumed until a judge has history: a typical answer length and call latency. */
export const ASSUMED_OUTPUT_TOKENS = 80;
export const ASSUMED_LATENCY_MS = 2000;

/** Seed 004's cost table, per run: calls = cases × LLM criteria × judges × N. */
export function estimateRun(
  s: SuiteSummary,
  judges: string[],
  n: number,
  prices: Record<string, Price>,
  concurrency: number,
  latencyMsByJudge: Record<string, number> = {},
): RunEstimate {
  const perJudge = s.cases * s.llmCriteria * n;
  const calls = perJudge * judges.length;
  const inPerCall = Math.ceil(s.meanPromptChars / 4);
  let cost = 0;
  const unpriced: string[] = [];
  for (const j of judges) {
    const p = prices[j];
    if (!p) {
      if (!j.startsWith("mock:")) unpriced.push(j);
      continue;
    }
    cost += costOf(p, perJudge * inPerCall, perJudge * ASSUMED_OUTPUT_TOKENS);
  }
  const latency = judges.length
    ? Math.max(...judges.map((j) => latencyMsByJudge[j] ?? ASSUMED_LATENCY_MS))
    : 0;
  return {
    calls,
    inputTokens: calls * inPerCall,
    outputTokens: calls * ASSUMED_OUTPUT_TOKENS,
    costUsd: unpriced.length ? null : cost,
    unpricedJudges: unpriced,
    seconds: Math.ceil(calls / Math.max(1, concurrency)) * (latency / 1000),
    warnings: s.llmCriteria > 0 ? (s.warnings ?? []) : [],
  };
}
