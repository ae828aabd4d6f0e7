/** USD per million input and output tokens, as the settings' price table holds them. */
export type Price = { inputPerMTok: number; outputPerMTok: number };

/** The one price formula: a call's (or a batch's) cost in USD from its tokens. */
export function costOf(price: Price, inputTokens: number, outputTokens: number): number {
  return (inputTokens * price.inputPerMTok + outputTokens * price.outputPerMTok) / 1e6;
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
