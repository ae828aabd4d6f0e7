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
import { type MetricCI, MIN_JUDGE_ANSWERED } from "../memory/study-metrics";
import { studyReport } from "../memory/study-report";
import { wilsonInterval } from "../stats/wilson";
import { MEMORY_JUDGE_LIMITS } from "./memory-judge-defaults";
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
  enabled: boolean;
  model?: string;
  dual_verification?: boolean;
  fallback_top_k: number;
  modes: Partial<
    Record<
      "auto" | "search",
      { verification?: "strict" | "lenient"; max_output: number; candidate_pool_size?: number }
    >
  >;
};

/**
 * What a configuration sets in the memory-judge block:
 * - BM25: the judge off; the mode's max_output is its top-k, and so is fallback_top_k (the BM25
 *   top-k measured, used if the judge is turned on and fails); the pool grows to the top-k if smaller.
 * - a judge: the judge on, its model, single or dual; the mode's verification for a dual judge
 *   (strict: intersection, lenient: union; a single judge ran with the verification Settings had and
 *   keeps it), max_output = top-k, the mode's candidate pool = the pool it saw; fallback_top_k at
 *   most the top-k (a fallback never injects more than the judge would).
 * The timeout, the conversation context and the other mode are left as they are.
 */
export function promotedMemoryJudge(
  config: ExperimentConfig,
  current: MemoryJudgeSettings,
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
    enabled: true,
    model: config.model ?? current.model,
    dual_verification: config.kind !== "single",
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

/** What a promotion sets, in words: "judge on · local:judge · single · auto: strict, max 3, pool 15 · fallback top 2". */
export function describePromotedMemoryJudge(p: PromotedMemoryJudge): string {
  const parts = [p.enabled ? "judge on" : "judge off (BM25 top-k)"];
  if (p.model) parts.push(p.model);
  if (p.dual_verification !== undefined) parts.push(p.dual_verification ? "dual" : "single");
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
};

/** Why a finished configuration is not called best, for the confirmation; null when it is. */
export function notBestReason(
  best: { best: string | null; reason: string },
  id: string,
  answered?: { answered: number; asked: number; share: number },
): string | null {
  if (best.best === id) return null;
  const parts: string[] = [];
  if (answered && answered.asked > 0 && !(answered.share >= MIN_JUDGE_ANSWERED))
    parts.push(
      `its judge answered only ${answered.answered} of ${answered.asked} queries asked (below ${Math.round(MIN_JUDGE_ANSWERED * 100)} %)`,
    );
  parts.push(best.best ? `another configuration measured best (${best.reason})` : best.reason);
  return parts.join("; ");
}

/**
 * Sets the memory judge from a finished experiment and records its provenance. A configuration the
 * study does not call best needs `acknowledgeNotBest` (the page asks first and says why); without
 * it the refusal (`needs_confirmation`) carries the reason.
 */
export function promoteExperiment(
  db: Db,
  experimentId: string,
  opts: { acknowledgeNotBest?: boolean; now?: Date } = {},
): ExperimentPromotion {
  const e = getExperiment(db, experimentId);
  if (!e)
    throw new JuryError("not_found", `No experiment "${experimentId}" (jury memory experiments lists them)`);
  const settings = readSettings(db);
  const report = studyReport(db, e.collection, settings.prices);
  const r = report.experiments.find((x) => x.experiment.id === experimentId);
  if (!r) throw new JuryError("not_found", `No experiment "${experimentId}" in ${e.collection}`);
  if (!r.complete)
    throw new JuryError(
      "invalid:promote",
      `${experimentId} is not finished (${r.notice ?? e.status}): only a finished configuration can be used`,
    );
  const config = e.config as ExperimentConfig;
  const mix = r.metrics.pathMix;
  const why = notBestReason(report.best, experimentId, {
    answered: mix.answered,
    asked: mix.asked,
    share: mix.answeredShare,
  });
  if (why && !opts.acknowledgeNotBest)
    throw new JuryError("needs_confirmation", `${experimentId} is not called best: ${why}`);
  // refused before anything is written (a top-k the block cannot hold)
  let promoted = promotedMemoryJudge(config, settings.memoryJudge);
  const figures: Record<string, ProvenanceFigure> = {
    precision: figureOf(r.metrics.precision as MetricCI),
    recall: figureOf(r.metrics.recall as MetricCI),
  };
  if (config.kind !== "bm25") {
    const w = wilsonInterval(mix.answered, mix.asked);
    figures["judge answered"] = figureOf(w);
  }
  const stored = writePromotion(
    db,
    "memoryJudge",
    (s) => {
      // from the settings as they are under the write lock
      promoted = promotedMemoryJudge(config, s.memoryJudge);
      return { ...s, memoryJudge: applyMemoryJudge(s.memoryJudge, promoted) };
    },
    {
      source: "experiment",
      id: experimentId,
      label: `${e.label} · ${e.collection}${why ? " · not called best" : ""}`,
      figures,
      at: (opts.now ?? new Date()).toISOString(),
    },
    (next) => promotedValue(promoted, next.memoryJudge),
  );
  return { settings: stored, promoted, best: why === null };
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
  return {
    enabled: block.enabled,
    ...(p.model !== undefined ? { model: block.model } : {}),
    ...(p.dual_verification !== undefined ? { dual_verification: block.dual_verification } : {}),
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
export function promotePanel(
  db: Db,
  input: { runId: string; criterionId: string; judge: string; target: PanelTarget; now?: Date },
): { settings: Settings; judges: string[] } {
  const { runId, criterionId, judge, target } = input;
  const run = getRunById(db, { id: runId });
  if (!run) throw new JuryError("not_found", `No run "${runId}"`);
  const report = showRunAgreement(db, runId);
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
  const settings = writePromotion(
    db,
    path,
    (s) =>
      target === "criterion"
        ? { ...s, criteriaPanels: { ...s.criteriaPanels, [criterionId]: judges } }
        : { ...s, reviewJudges: judges },
    {
      source: "run",
      id: runId,
      label: `${who} against people's labels on ${criterionId}`,
      figures,
      at: (input.now ?? new Date()).toISOString(),
    },
    () => judges,
  );
  return { settings, judges };
}
