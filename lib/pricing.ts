/** USD per million input and output tokens, as the settings' price table holds them. */
export type Price = { inputPerMTok: number; outputPerMTok: number };

/** The one price formula: a call's (or a batch's) cost in USD from its tokens. */
export function costOf(price: Price, inputTokens: number, outputTokens: number): number {
  return (inputTokens * price.inputPerMTok + outputTokens * price.outputPerMTok) / 1e6;
}
