/**
 * Promoting what measured best into the settings, with where it came from:
 *
 * - a memory-study configuration becomes the memory judge the hook (auto mode) or memory search
 *   (search mode) uses, its figures (precision and recall with their intervals, the share of queries
 *   the judge answered) recorded under `provenance.memoryJudge`;
 * - a run's panel, or one of its judges, becomes a criterion's default panel for `jury eval`
 *   (`criteriaPanels.<criterion>`) or the review judges (`reviewJudges`), with its agreement with
 *   people's labels on that criterion.
 *
 * Every figure is recomputed here from the stored data, never taken from the caller.
 */
import type { Db } from "@/db/client";
import { getExperiment } from "@/db/queries/experiments";
import { getRunById } from "@/db/queries/runs";
import { PANEL } from "../agreement/run-agreement";
import { showRunAgreement } from "../agreement/service";
import { JuryError } from "../errors";
import type { ExperimentConfig } from "../memory/experiment";
import type { MetricCI } from "../memory/study-metrics";
import { studyReport } from "../memory/study-report";
import { wilsonInterval } from "../stats/wilson";
import { MEMORY_JUDGE_LIMITS } from "./memory-judge-defaults";
import {
  experimentGuard,
  type GuardCode,
  type PromotionGuard,
  panelGuard,
  unconfirmed,
} from "./promote-guard";
import type { MemoryJudgeSettings, ProvenanceFigure, Settings } from "./schema";
import { readSettings, writePromotion } from "./store";

const num = (x: number | null | undefined): number | null =>
  x === null || x === undefined || !Number.isFinite(x) ? null : x;

/** A figure as provenance keeps it (NaN, undefined: null). */
export function figureOf(f: {
  value?: number | null;
  mean?: number;
  low: number | null;
  high: number | null;
  n: number;
}): ProvenanceFigure {
  return { value: num(f.value ?? f.mean), low: num(f.low), high: num(f.high), n: f.n };
}

/** The part of the memory-judge block a configuration sets, as provenance records it. */
export type PromotedMemoryJudge = {
  /** the study's collection: what the hook and `jury memory` read (docs/memory.md gives the full rule) */
  collection: string;
  enabled: boolean;
  model?: string;
  dual_verification?: boolean;
  /** a judge configuration's own knobs: memory bodies shown, shuffled order, samples per prompt */
  include_body?: boolean;
  shuffle?: boolean;
  samples?: number;
  fallback_top_k: number;
  modes: Partial<
    Record<
      "auto" | "search",
      { verification?: "strict" | "lenient"; max_output: number; candidate_pool_size?: number }
    >
  >;
};

/**
 * What a configuration of the study of `collection` sets in the memory-judge block: the collection,
 * then
 * - BM25: the judge off; the mode's max_output is its top-k, and so is fallback_top_k (the BM25
 *   top-k measured, used if the judge is turned on and fails); the pool grows to the top-k if smaller.
 * - a judge: the judge on, its model, single or dual; the mode's verification for a dual judge
 *   (strict: intersection, lenient: union; a single judge ran with the verification Settings had and
 *   keeps it), max_output = top-k, the mode's candidate pool = the pool it saw; fallback_top_k at
 *   most the top-k (a fallback never injects more than the judge would); whether it saw memory
 *   bodies, shuffled or BM25 order, and its N samples (a majority keeps a memory).
 * The timeout, the conversation context and the other mode are left as they are; so is the shuffle's
 * salt, which only picks which of the shuffled orders was measured.
 */
export function promotedMemoryJudge(
  config: ExperimentConfig,
  current: MemoryJudgeSettings,
  collection: string,
): PromotedMemoryJudge {
  const L = MEMORY_JUDGE_LIMITS;
  if (config.topK > L.max_output.max)
    throw new JuryError(
      "invalid:promote",
      `top-k ${config.topK} is more than the memory judge's max_output allows (${L.max_output.max}): a configuration with top-k ≤ ${L.max_output.max} can be used`,
    );
  const mode = current.modes[config.mode];
  const pool = mode.candidate_pool_size ?? current.candidate_pool_size;
  if (config.kind === "bm25")
    return {
      collection,
      enabled: false,
      fallback_top_k: Math.min(config.topK, L.fallback_top_k.max),
      modes: {
        [config.mode]: {
          max_output: config.topK,
          ...(pool < config.topK ? { candidate_pool_size: config.topK } : {}),
        },
      },
    };
  return {
    collection,
    enabled: true,
    model: config.model ?? current.model,
    dual_verification: config.kind !== "single",
    include_body: config.includeBody ?? false,
    shuffle: config.shuffle,
    samples: Math.max(1, config.n ?? 1),
    fallback_top_k: Math.min(current.fallback_top_k, config.topK),
    modes: {
      [config.mode]: {
        ...(config.kind === "dual_strict"
          ? { verification: "strict" as const }
          : config.kind === "dual_lenient"
            ? { verification: "lenient" as const }
            : {}),
        max_output: config.topK,
        candidate_pool_size: config.poolSize,
      },
    },
  };
}

/** What a promotion sets, in words: "collection shop-api · judge on · local:judge · single · auto mode: strict, max 3, pool 15 · fallback top 2". */
export function describePromotedMemoryJudge(p: PromotedMemoryJudge): string {
  const parts = [`collection ${p.collection}`, p.enabled ? "judge on" : "judge off (BM25 top-k)"];
  if (p.model) parts.push(p.model);
  if (p.dual_verification !== undefined) parts.push(p.dual_verification ? "dual" : "single");
  if (p.samples !== undefined && p.samples > 1) parts.push(`N=${p.samples} (majority)`);
  if (p.include_body) parts.push("with memory bodies");
  if (p.shuffle === false) parts.push("BM25 order");
  for (const [mode, m] of Object.entries(p.modes)) {
    if (!m) continue;
    const bits = [
      m.verification,
      `max ${m.max_output}`,
      m.candidate_pool_size !== undefined ? `pool ${m.candidate_pool_size}` : undefined,
    ].filter(Boolean);
    parts.push(`${mode} mode: ${bits.join(", ")}`);
  }
  parts.push(`fallback top ${p.fallback_top_k}`);
  return parts.join(" · ");
}

/** The memory-judge block with a promotion laid over it. */
export function applyMemoryJudge(current: MemoryJudgeSettings, p: PromotedMemoryJudge): MemoryJudgeSettings {
  const { modes, ...top } = p;
  return {
    ...current,
    ...top,
    modes: {
      auto: { ...current.modes.auto, ...modes.auto },
      search: { ...current.modes.search, ...modes.search },
    },
  };
}

export type ExperimentPromotion = {
  settings: Settings;
  promoted: PromotedMemoryJudge;
  /** whether the study calls this configuration best */
  best: boolean;
  /** the figures it rests on, and what was confirmed */
  guard: PromotionGuard;
};

/** How a confirmed warning reads in the provenance's label. */
const CONFIRMED_WORDS: Record<GuardCode, string> = {
  not_best: "not called best",
  kept_nothing: "kept nothing",
  few_labels: "few labels",
  weak_agreement: "κ interval reaches 0",
  low_coverage: "low judge coverage",
};

/** " · few labels, confirmed" for each warning a promotion went ahead with. */
export const confirmedWords = (guard: PromotionGuard) =>
  guard.warnings.map((w) => ` · ${CONFIRMED_WORDS[w.code]}, confirmed`).join("");

/**
 * The refusal of a promotion whose warnings were not all confirmed: its message lists them, and
 * `details.guard` holds the figures and warnings for the page to show.
 */
export function needsConfirmation(what: string, guard: PromotionGuard, confirmed: readonly string[]): void {
  const open = unconfirmed(guard, confirmed);
  if (open.length === 0) return;
  throw new JuryError(
    "needs_confirmation",
    `${what}: ${open.map((w) => w.text).join(" ")} Figures: ${guard.figures.join("; ")}. Confirm to use it anyway.`,
    { guard },
  );
}

/**
 * Sets the memory judge (and the collection it reads) from a finished experiment and records its
 * provenance. A configuration the study's figures do not support (not called best, or it kept
 * nothing) needs each warning confirmed by its code in `confirmed` (the page shows the figures and
 * asks); without them the refusal (`needs_confirmation`) carries the figures and warnings.
 */
export async function promoteExperiment(
  db: Db,
  experimentId: string,
  opts: { confirmed?: readonly string[]; now?: Date; by?: string } = {},
): Promise<ExperimentPromotion> {
  const e = await getExperiment(db, experimentId);
  if (!e)
    throw new JuryError("not_found", `No experiment "${experimentId}" (jury memory experiments lists them)`);
  const settings = await readSettings(db);
  const report = await studyReport(db, e.collection, settings.prices);
  const r = report.experiments.find((x) => x.experiment.id === experimentId);
  if (!r) throw new JuryError("not_found", `No experiment "${experimentId}" in ${e.collection}`);
  if (!r.complete)
    throw new JuryError(
      "invalid:promote",
      `${experimentId} is not finished (${r.notice ?? e.status}): only a finished configuration can be used`,
    );
  const config = e.config as ExperimentConfig;
  const mix = r.metrics.pathMix;
  const guard = experimentGuard(report, experimentId);
  needsConfirmation(`${experimentId} (${e.label})`, guard, opts.confirmed ?? []);
  const notBest = guard.warnings.some((w) => w.code === "not_best");
  // refused before anything is written (a top-k the block cannot hold)
  let promoted = promotedMemoryJudge(config, settings.memoryJudge, e.collection);
  const figures: Record<string, ProvenanceFigure> = {
    precision: figureOf(r.metrics.precision as MetricCI),
    recall: figureOf(r.metrics.recall as MetricCI),
  };
  if (config.kind !== "bm25") {
    const w = wilsonInterval(mix.answered, mix.asked);
    figures["judge answered"] = figureOf(w);
  }
  const stored = await writePromotion(
    db,
    "promote.experiment",
    (s) => {
      // from the settings as they are under the write lock
      promoted = promotedMemoryJudge(config, s.memoryJudge, e.collection);
      return { ...s, memoryJudge: applyMemoryJudge(s.memoryJudge, promoted) };
    },
    {
      source: "experiment",
      id: experimentId,
      label: `${e.label} · ${e.collection}${guard.warnings.map((w) => ` · ${CONFIRMED_WORDS[w.code]}, confirmed`).join("")}`,
      figures,
      at: (opts.now ?? new Date()).toISOString(),
      ...(opts.by ? { by: opts.by } : {}),
    },
    { memoryJudge: (next) => promotedValue(promoted, next.memoryJudge) },
  );
  return { settings: stored, promoted, best: !notBest, guard };
}

/** The promoted part as the stored block holds it (what a later hand edit is compared with). */
function promotedValue(p: PromotedMemoryJudge, block: MemoryJudgeSettings): PromotedMemoryJudge {
  const modes: PromotedMemoryJudge["modes"] = {};
  for (const [m, v] of Object.entries(p.modes) as [
    "auto" | "search",
    NonNullable<PromotedMemoryJudge["modes"]["auto"]>,
  ][]) {
    const stored = block.modes[m];
    modes[m] = {
      ...(v.verification ? { verification: stored.verification } : {}),
      max_output: stored.max_output,
      ...(v.candidate_pool_size !== undefined ? { candidate_pool_size: stored.candidate_pool_size } : {}),
    };
  }
  const kept = <K extends "include_body" | "shuffle" | "samples">(k: K) =>
    p[k] !== undefined ? { [k]: block[k] } : {};
  return {
    collection: block.collection ?? "",
    enabled: block.enabled,
    ...(p.model !== undefined ? { model: block.model } : {}),
    ...(p.dual_verification !== undefined ? { dual_verification: block.dual_verification } : {}),
    ...kept("include_body"),
    ...kept("shuffle"),
    ...kept("samples"),
    fallback_top_k: block.fallback_top_k,
    modes,
  };
}

export type PanelTarget = "criterion" | "review";

/**
 * Makes a run's panel (`judge` = "panel") or one of its judges the default panel of a criterion
 * (`target` "criterion") or the review judges ("review"), with its agreement with people's labels
 * on that criterion (accuracy, Cohen's κ, Krippendorff's α on pass/fail, each with n and interval).
 */
export async function promotePanel(
  db: Db,
  input: {
    runId: string;
    criterionId: string;
    judge: string;
    target: PanelTarget;
    /** the guard's warnings the person confirmed, by code */
    confirmed?: readonly string[];
    now?: Date;
    /** who promotes */
    by?: string;
  },
): Promise<{ settings: Settings; judges: string[]; guard: PromotionGuard }> {
  const { runId, criterionId, judge, target } = input;
  const run = await getRunById(db, { id: runId });
  if (!run) throw new JuryError("not_found", `No run "${runId}"`);
  const report = await showRunAgreement(db, runId);
  const c = report?.criteria.find((x) => x.criterionId === criterionId);
  if (!c) throw new JuryError("not_found", `Run ${runId} has no criterion "${criterionId}"`);
  if (c.type === "deterministic")
    throw new JuryError(
      "invalid:promote",
      `${criterionId} is a deterministic check: it has no judges to promote`,
    );
  if (c.labelled === 0)
    throw new JuryError(
      "invalid:promote",
      `No verdict of ${runId} on ${criterionId} is labelled by a person: there is no agreement to promote on`,
    );
  const row = c.judges.find((j) => j.judge === judge);
  if (!row) throw new JuryError("not_found", `${judge} did not judge ${criterionId} in ${runId}`);
  if (row.passFail.n === 0)
    throw new JuryError(
      "invalid:promote",
      `${judge} answered none of the ${c.labelled} labelled cells of ${criterionId} in ${runId}: there is no agreement to promote on`,
    );
  const guard = panelGuard(c, row);
  needsConfirmation(
    `${judge === PANEL ? "The run's panel" : judge} on ${criterionId}`,
    guard,
    input.confirmed ?? [],
  );
  const panel =
    (run.options as { criterionJudges?: Record<string, string[]> }).criterionJudges?.[criterionId] ??
    run.options.judges;
  const judges = judge === PANEL ? [...panel] : [judge];
  const pf = row.passFail;
  const figures: Record<string, ProvenanceFigure> = {
    accuracy: figureOf(pf.accuracy),
    "Cohen's κ": figureOf(pf.kappa),
    "Krippendorff's α": figureOf(pf.alpha),
  };
  if (row.scores?.weightedKappa) figures["quadratic κ (scores)"] = figureOf(row.scores.weightedKappa);
  const path = target === "criterion" ? `criteriaPanels.${criterionId}` : "reviewJudges";
  const who = judge === PANEL ? `the run's panel (${judges.join(", ")})` : judge;
  const settings = await writePromotion(
    db,
    "promote.panel",
    (s) =>
      target === "criterion"
        ? { ...s, criteriaPanels: { ...s.criteriaPanels, [criterionId]: judges } }
        : { ...s, reviewJudges: judges },
    {
      source: "run",
      id: runId,
      label: `${who} against people's labels on ${criterionId}${guard.warnings.map((w) => ` · ${CONFIRMED_WORDS[w.code]}, confirmed`).join("")}`,
      figures,
      at: (input.now ?? new Date()).toISOString(),
      ...(input.by ? { by: input.by } : {}),
    },
    { [path]: () => judges },
  );
  return { settings, judges, guard };
}
