/**
 * A configuration of the panel optimizer made a criterion's default: its judges become the
 * criterion's panel (`criteriaPanels.<criterion>`) and its N the criterion's N
 * (`criteriaSamples.<criterion>`), each with the evidence recorded as its provenance, so the next
 * `jury eval` and the run form use them. The figures are recomputed here from the stored run, never
 * taken from the caller; weak evidence is refused until the person confirms each warning.
 */
import type { Db } from "@/db/client";
import { JuryError } from "../errors";
import { confirmedWords, figureOf, needsConfirmation } from "../settings/promote";
import { type GuardWarning, MIN_PANEL_LABELS, type PromotionGuard } from "../settings/promote-guard";
import type { ProvenanceFigure, Settings } from "../settings/schema";
import { readSettings, writePromotion } from "../settings/store";
import { configId, type PanelConfig, type PanelReport } from "./engine";
import { optimizeRun } from "./run-panel";
import { kappaFigure } from "./stats";

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/** The figures and warnings of promoting `c` of `r`: few labels, κ's interval reaching 0, not the recommendation. */
export function configGuard(r: PanelReport, c: PanelConfig): PromotionGuard {
  const k = c.kappa;
  const figures = [
    `accuracy ${c.accuracy.value === null ? "—" : pct(c.accuracy.value)}${c.accuracy.low !== null && c.accuracy.high !== null ? ` [${pct(c.accuracy.low)}, ${pct(c.accuracy.high)}]` : ""} n=${c.labelled}`,
    `Cohen's κ ${k.value === null ? "—" : k.value.toFixed(2)}${k.low !== null && k.high !== null ? ` [${k.low.toFixed(2)}, ${k.high.toFixed(2)}]` : ""} n=${k.n}`,
    `against the full panel: ${pct(c.test.difference)} accuracy, one-sided 95 % lower bound ${pct(c.test.lower)} (margin ${pct(r.margin)})`,
    `cost per verdict ${c.costUsd === null ? `unknown (no price for ${c.unpriced.join(", ")})` : `$${c.costUsd.toFixed(6)}`}, ${c.calls} call${c.calls === 1 ? "" : "s"}`,
  ];
  const warnings: GuardWarning[] = [];
  if (c.labelled < MIN_PANEL_LABELS)
    warnings.push({
      code: "few_labels",
      text: `It rests on ${c.labelled} labelled verdict${c.labelled === 1 ? "" : "s"} (fewer than ${MIN_PANEL_LABELS}).`,
    });
  if (k.value === null || k.low === null || k.low <= 0)
    warnings.push({
      code: "weak_agreement",
      text:
        k.value === null
          ? "Cohen's κ is undefined on these labels: nothing shows it agrees with people beyond chance."
          : "Cohen's κ's interval reaches 0: agreement no better than chance is not ruled out.",
    });
  const rec = r.recommendation;
  if (!(rec.status === "recommended" && rec.config === c.id))
    warnings.push({
      code: "not_best",
      text:
        rec.status === "recommended"
          ? `Not the recommendation (${rec.config}).`
          : `No configuration is recommended yet: ${rec.reason}.`,
    });
  return { figures, warnings, keptNothing: false };
}

export async function promotePanelConfig(
  db: Db,
  input: {
    runId: string;
    criterionId: string;
    judges: readonly string[];
    n: number;
    margin?: number;
    confirmed?: readonly string[];
    now?: Date;
    /** who promotes */
    by?: string;
  },
): Promise<{ settings: Settings; config: PanelConfig; guard: PromotionGuard }> {
  const { runId, criterionId } = input;
  const r = (
    await optimizeRun(db, runId, {
      prices: (await readSettings(db)).prices,
      criterion: criterionId,
      margin: input.margin,
    })
  ).criteria[0];
  if (!r) throw new JuryError("invalid:promote", `${criterionId} of ${runId} has no judges to choose`);
  if (r.labelled === 0)
    throw new JuryError(
      "invalid:promote",
      `No verdict of ${runId} on ${criterionId} is labelled by a person: there is no agreement to promote on`,
    );
  const wanted = configId(
    r.judges.filter((j) => input.judges.includes(j)),
    input.n,
  );
  const c = r.configs.find((x) => x.id === wanted && x.judges.length === input.judges.length);
  if (!c)
    throw new JuryError(
      "not_found",
      `${input.judges.join(" + ")} × ${input.n} is not a configuration of ${runId} on ${criterionId} (its judges: ${r.judges.join(", ")}; N up to ${r.n})`,
    );
  // the figures recorded carry an interval, also for a configuration off the frontier
  if (c.kappa.low === null && c.kappa.value !== null) c.kappa = kappaFigure(c.counts);
  const guard = configGuard(r, c);
  needsConfirmation(`${c.id} on ${criterionId}`, guard, input.confirmed ?? []);
  const figures: Record<string, ProvenanceFigure> = {
    accuracy: figureOf(c.accuracy),
    "Cohen's κ": figureOf(c.kappa),
    "accuracy − full panel": { value: c.test.difference, low: c.test.lower, high: null, n: c.labelled },
  };
  if (c.costUsd !== null)
    figures["USD per verdict"] = { value: c.costUsd, low: null, high: null, n: r.verdicts };
  const entry = {
    source: "run" as const,
    id: runId,
    label: `${c.id} from the panel optimizer against people's labels on ${criterionId}${confirmedWords(guard)}`,
    figures,
    at: (input.now ?? new Date()).toISOString(),
    ...(input.by ? { by: input.by } : {}),
  };
  // the panel and its N together, in one transaction with one audit entry
  const settings = await writePromotion(
    db,
    "promote.panel-config",
    (s) => ({
      ...s,
      criteriaPanels: { ...s.criteriaPanels, [criterionId]: [...c.judges] },
      criteriaSamples: { ...s.criteriaSamples, [criterionId]: c.n },
    }),
    entry,
    { [`criteriaPanels.${criterionId}`]: () => [...c.judges], [`criteriaSamples.${criterionId}`]: () => c.n },
  );
  return { settings, config: c, guard };
}
