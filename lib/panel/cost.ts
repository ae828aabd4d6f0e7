/**
 * What a verdict costs, per judge and per number of samples, from the samples a run stored: the one
 * place the panel optimizer turns stored tokens into dollars (with the price formula of
 * lib/pricing.ts: cache reads and writes at their rates, a batched call at the batch rate). A judge with no price has no cost: it is named, never counted as $0.
 */
import { costOf, type Price, resolvePrice } from "../pricing";

export type StoredSampleCost = {
  caseId: string;
  judge: string;
  sampleIndex: number;
  inputTokens: number;
  outputTokens: number;
  /** of the input, read from and written to the provider's prompt cache */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** answered through the provider's batch API (its batch rate) */
  batched?: boolean;
};

/** A judge's mean cost per verdict of its first n samples (index n − 1), or null when unpriced. */
export type JudgeCost = { judge: string; perN: number[] | null };

/**
 * Per judge: the mean over `verdicts` of the cost of its first 1, 2, …, `n` samples (by sample
 * index) of that verdict. A sample the run did not store costs nothing (it was never called).
 */
export function costPerVerdict(
  samples: readonly StoredSampleCost[],
  prices: Readonly<Record<string, Price>>,
  judges: readonly string[],
  n: number,
  verdicts: number,
): JudgeCost[] {
  return judges.map((judge) => {
    const price = resolvePrice(prices as Record<string, Price>, judge);
    if (!price) return { judge, perN: null };
    const byIndex = new Array<number>(n).fill(0);
    for (const s of samples)
      if (s.judge === judge && s.sampleIndex < n)
        byIndex[s.sampleIndex] += costOf(
          price,
          {
            inputTokens: s.inputTokens,
            outputTokens: s.outputTokens,
            cacheReadTokens: s.cacheReadTokens,
            cacheWriteTokens: s.cacheWriteTokens,
          },
          { batch: Boolean(s.batched) },
        );
    const perN: number[] = [];
    let sum = 0;
    for (let i = 0; i < n; i++) {
      sum += byIndex[i];
      perN.push(verdicts > 0 ? sum / verdicts : 0);
    }
    return { judge, perN };
  });
}
