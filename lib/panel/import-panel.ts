/**
 * Panels of label sets on an agreement import (TREC qrels, JSONL): several sets label the same items,
 * and the gold labels say what is right. Every combination of up to MAX_PANEL_JUDGES sets is combined
 * into one label per item and measured against the gold labels with the agreement figures of
 * lib/agreement/metrics.ts: how agreement grows with panel size, and which combinations reach the
 * agreement of all the sets together.
 *
 * The combined label: the mean of the labels of the panel's sets that labelled the item, rounded half
 * up to a whole grade (on pass/fail: the majority, a tie passing). An item no set of the panel labelled
 * is left out (n says how many remain).
 */
import type { Db } from "@/db/client";
import { getAgreementItems, getAgreementJudgments, getAgreementSet } from "@/db/queries/agreement";
import { type Figure, type LabelPair, pointwiseAgreement, proportionFigure } from "../agreement/metrics";
import { JuryError } from "../errors";
import { getOrInsert } from "../map-utils";
import { cohenKappa } from "../stats/kappa";
import { DEFAULT_MARGIN, MAX_PANEL_JUDGES } from "./engine";

export const COMBINE_RULE =
  "mean label of the panel's sets that labelled the item, rounded half up to a whole grade (pass/fail: the majority, a tie passing)";

export type LabelSetPanel = {
  id: string;
  sets: string[];
  /** gold items at least one set of the panel labelled */
  n: number;
  accuracy: Figure;
  /** Cohen's κ on the labels as categories; its interval on each size's best panel and on all sets */
  kappa: Figure;
  /** κ within the margin of all the sets' κ */
  reachesAll: boolean;
};

export type PanelSize = {
  size: number;
  panels: number;
  /** mean κ over the panels of this size (those where κ is defined) */
  meanKappa: number | null;
  minKappa: number | null;
  maxKappa: number | null;
  /** the panel of this size with the highest κ, with its interval */
  best: string;
  bestKappa: Figure;
  bestAccuracy: Figure;
};

export type ImportPanelReport = {
  kind: "import";
  setId: string;
  name: string;
  labels: "pass_fail" | "graded";
  combine: string;
  sets: string[];
  /** sets beyond the first MAX_PANEL_JUDGES, left out */
  skippedSets: string[];
  goldItems: number;
  margin: number;
  all: string;
  panels: LabelSetPanel[];
  bySize: PanelSize[];
};

export async function optimizeImport(
  db: Db,
  setId: string,
  opts: { margin?: number } = {},
): Promise<ImportPanelReport> {
  const set = await getAgreementSet(db, setId);
  if (!set) throw new JuryError("not_found", `No import "${setId}"`);
  if (set.kind === "llmbar" || set.kind === "pairwise")
    throw new JuryError(
      "invalid:panel",
      `${setId} holds pairwise judgments (a winner per pair): there are no labels per item to combine`,
    );
  const o = set.options;
  const labels = o.kind === "graded" ? "graded" : "pass_fail";
  const scale = Array.isArray(o.scale) ? (o.scale as [number, number]) : labels === "graded" ? null : [0, 1];
  const categories = scale
    ? Array.from({ length: scale[1] - scale[0] + 1 }, (_, k) => scale[0] + k)
    : undefined;
  const items = (await getAgreementItems(db, setId)).filter((i) => i.gold !== null);
  const judgments = await getAgreementJudgments(db, setId);
  const allSets = [...new Set(judgments.map((j) => j.judge))].sort();
  const sets = allSets.slice(0, MAX_PANEL_JUDGES);
  const labelOf = new Map<string, Map<string, number>>();
  for (const j of judgments) {
    if (j.label === null || !sets.includes(j.judge)) continue;
    getOrInsert(labelOf, j.itemId, () => new Map<string, number>()).set(j.judge, j.label);
  }
  const margin = opts.margin ?? DEFAULT_MARGIN;
  const kind = labels === "graded" ? ("graded" as const) : ("pass_fail" as const);
  const cats = categories ?? [...new Set(items.map((i) => i.gold as number))].sort((a, b) => a - b);
  const pairsOf = (members: readonly string[]): LabelPair[] =>
    items.flatMap((i) => {
      const ls = members
        .map((s) => labelOf.get(i.itemId)?.get(s))
        .filter((x): x is number => x !== undefined);
      if (ls.length === 0) return [];
      const mean = ls.reduce((a, b) => a + b, 0) / ls.length;
      return [{ itemId: i.itemId, gold: i.gold as number, judge: Math.floor(mean + 0.5), judgeRaw: mean }];
    });
  const figures = (pairs: LabelPair[], withIntervals: boolean) => {
    if (withIntervals) {
      const r = pointwiseAgreement(pairs, { kind, scale: categories, cut: undefined });
      return { accuracy: r.accuracy, kappa: r.kappa };
    }
    const k = pairs.length
      ? cohenKappa(
          pairs.map((p) => p.gold),
          pairs.map((p) => p.judge),
          kind === "graded" ? cats : [1, 0],
        )
      : null;
    const kappa: Figure = { value: k, low: null, high: null, n: pairs.length, method: "bootstrap" };
    return {
      accuracy: proportionFigure(pairs.filter((p) => p.gold === p.judge).length, pairs.length),
      kappa,
    };
  };
  const panels: LabelSetPanel[] = [];
  for (let mask = 1; mask < 1 << sets.length; mask++) {
    const members = sets.filter((_, k) => mask & (1 << k));
    const pairs = pairsOf(members);
    const f = figures(pairs, false);
    panels.push({ id: members.join(" + "), sets: members, n: pairs.length, ...f, reachesAll: false });
  }
  const all = panels[panels.length - 1];
  all.kappa = figures(pairsOf(all.sets), true).kappa;
  for (const p of panels)
    p.reachesAll =
      p.kappa.value !== null && all.kappa.value !== null && p.kappa.value >= all.kappa.value - margin;
  const bySize: PanelSize[] = [];
  for (let size = 1; size <= sets.length; size++) {
    const mine = panels.filter((p) => p.sets.length === size);
    const ks = mine.map((p) => p.kappa.value).filter((x): x is number => x !== null);
    const best = [...mine].sort(
      (a, b) => (b.kappa.value ?? -2) - (a.kappa.value ?? -2) || a.id.localeCompare(b.id),
    )[0];
    const f = best === all ? { kappa: all.kappa, accuracy: all.accuracy } : figures(pairsOf(best.sets), true);
    bySize.push({
      size,
      panels: mine.length,
      meanKappa: ks.length ? ks.reduce((a, b) => a + b, 0) / ks.length : null,
      minKappa: ks.length ? Math.min(...ks) : null,
      maxKappa: ks.length ? Math.max(...ks) : null,
      best: best.id,
      bestKappa: f.kappa,
      bestAccuracy: f.accuracy,
    });
  }
  return {
    kind: "import",
    setId,
    name: set.name,
    labels,
    combine: COMBINE_RULE,
    sets,
    skippedSets: allSets.slice(MAX_PANEL_JUDGES),
    goldItems: items.length,
    margin,
    all: all.id,
    panels,
    bySize,
  };
}
