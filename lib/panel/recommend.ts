/**
 * The recommendation: the cheapest configuration whose agreement with people is not worse than the
 * full panel's by more than the margin (the paired test of stats.ts, over the same labelled
 * verdicts). The full panel is the reference and always qualifies. Where the labels are too few to
 * tell, it says how many labelled verdicts would be needed instead of recommending: fewer than the
 * minimum labelled verdicts at all, or a cheaper configuration whose observed agreement is within the
 * margin but whose bound is not yet.
 */
import type { PanelConfig } from "./engine";

export type Recommendation =
  | {
      status: "recommended";
      config: string;
      /** in words: why this one */
      reason: string;
    }
  | {
      status: "needs_labels";
      /** labelled verdicts needed in all, and how many more than now */
      needed: number;
      more: number;
      /** the configuration more labels would decide on (null: too few labels for any) */
      candidate: string | null;
      reason: string;
    };

export function recommend(
  configs: readonly PanelConfig[],
  cost: (c: PanelConfig) => number,
  labelled: number,
  minLabels: number,
): Recommendation {
  if (labelled < minLabels)
    return {
      status: "needs_labels",
      needed: minLabels,
      more: minLabels - labelled,
      candidate: null,
      reason: `${labelled} labelled verdict${labelled === 1 ? "" : "s"}: label at least ${minLabels} before a panel is recommended`,
    };
  const byCost = (a: PanelConfig, b: PanelConfig) =>
    cost(a) - cost(b) || a.calls - b.calls || b.correct - a.correct || a.id.localeCompare(b.id);
  const eligible = configs.filter((c) => c.full || c.test.nonInferior).sort(byCost);
  const pick = eligible[0];
  const cheaper = configs.filter((c) => cost(c) < cost(pick) && c.test.labelsNeeded !== null).sort(byCost);
  if (pick.full && cheaper.length) {
    const best = [...cheaper].sort(
      (a, b) => (a.test.labelsNeeded as number) - (b.test.labelsNeeded as number) || byCost(a, b),
    )[0];
    const needed = best.test.labelsNeeded as number;
    return {
      status: "needs_labels",
      needed,
      more: needed - labelled,
      candidate: best.id,
      reason: `${best.id} agrees within the margin on these ${labelled} labels, but the test cannot tell yet: about ${needed - labelled} more labelled verdicts would (the full panel stays until then)`,
    };
  }
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  return {
    status: "recommended",
    config: pick.id,
    reason: pick.full
      ? `no cheaper configuration agrees with people within the margin on ${labelled} labelled verdicts: the full panel stays`
      : `the cheapest configuration not worse than the full panel by more than ${pct(pick.test.margin)} (accuracy difference ${pct(pick.test.difference)}, one-sided 95 % lower bound ${pct(pick.test.lower)}, n=${labelled})`,
  };
}
