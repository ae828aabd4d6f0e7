import type { Db } from "@/db/client";
import { putCachedResponse } from "@/db/queries/response-cache";
import { getCachedResponse } from "@/db/queries/runs";
import { errorMessage, JuryError } from "../errors";
import { createCallScheduler } from "../jobs/scheduler";
import { aggregateAcrossModels, type CriterionVerdict } from "../judging/aggregate";
import { callJudge } from "../judging/call-judge";
import { partialReply } from "../judging/call-model";
import { parseJudgment } from "../judging/parse-json";
import { buildJudgePrompt } from "../judging/prompt";
import { costOf, resolvePrice, type TokenUsage } from "../pricing";
import { judgeCacheKey } from "../runs/cache-key";
import { panelOptionsOf } from "../runs/plan-run";
import { enabledJudges } from "../settings/providers";
import type { Settings } from "../settings/schema";
import type { CaseInput } from "./definition";
import type { CriteriaRegistry } from "./registry";
import { deterministicTimeoutMs, LogicPool } from "./worker-pool";

/** The judge name a deterministic criterion's one sample is stored under (as in a run). */
export const DETERMINISTIC_JUDGE = "deterministic";
export const PLAYGROUND_MAX_N = 10;

/** One try of one criterion on one input, without a run: nothing is stored but the response cache. */
export type PlaygroundRequest = {
  criterionId: string;
  /** `provider:model` ids, each enabled in Settings; ignored for a deterministic criterion */
  judges: string[];
  /** samples per judge (1–10); a deterministic criterion takes one */
  n: number;
  input: CaseInput;
  output: string;
  /** a deterministic criterion's parameters, over its definition's defaults */
  params?: Record<string, unknown>;
  /** true: call every judge afresh (the answers still go to the cache) */
  noCache?: boolean;
};

export type PlaygroundSample = {
  judge: string;
  sampleIndex: number;
  score: number | null;
  reasoning: string | null;
  error: string | null;
  cached: boolean;
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  /**
   * null when the judge has no price in Settings (unpriced, never $0); for a cached answer, the cost
   * its original call had (the run's calls total counts live calls only)
   */
  costUsd: number | null;
};

export type PlaygroundResult = {
  criterion: {
    id: string;
    type: "llm" | "deterministic";
    version: string;
    scale: [number, number];
    threshold: number;
  };
  samples: PlaygroundSample[];
  /** the same two-stage aggregate a run computes, with Settings' panel options */
  verdict: CriterionVerdict;
  /** what each judge was sent (LLM criteria) */
  request?: { system: string; prompt: string };
  /** the parameters a deterministic criterion ran with */
  params?: Record<string, unknown>;
  calls: { live: number; cached: number; costUsd: number; unpriced: string[] };
};

/**
 * The response cache's key for one call: the run's own (lib/runs/cache-key.ts), so a try here and a
 * run's call of the same case share their answers.
 */
export const playgroundCacheKey = judgeCacheKey;

const empty = {
  score: null,
  reasoning: null,
  error: null,
  cached: false,
  latencyMs: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
};

/**
 * Tries a criterion on one input: an LLM criterion is sent to each judge N times, through the same
 * prompt, scheduler, retry policy, parser and response cache as a run; a deterministic one runs once
 * in the criteria worker. The samples are aggregated as a run aggregates them. Nothing but the cache
 * is written; a judge that fails gives a failed sample, never an exception.
 */
export async function tryCriterion(
  db: Db,
  registry: CriteriaRegistry,
  settings: Settings,
  req: PlaygroundRequest,
  opts: { signal?: AbortSignal } = {},
): Promise<PlaygroundResult> {
  const def = registry.criteria.get(req.criterionId);
  if (!def) throw new JuryError("not_found", `No criterion "${req.criterionId}" in the criteria folder`);
  const scale = def.scoring.scale;
  const threshold = def.scoring.default_threshold;
  const criterion = { id: def.id, type: def.type, version: def.version, scale, threshold };
  const panel = panelOptionsOf(settings.judging);

  if (def.type === "deterministic") {
    if (!registry.logicWorker)
      throw new JuryError(
        "no_logic_worker",
        "these criteria were loaded without a worker bundle for their logic",
      );
    const params = { ...def.parameters, ...req.params };
    const pool = new LogicPool({ script: registry.logicWorker, timeoutMs: deterministicTimeoutMs() });
    let sample: PlaygroundSample;
    try {
      const r = await pool.run(
        { criterionId: def.id, fn: def.function, output: req.output, input: req.input, params },
        opts.signal,
      );
      const outOfScale = !Number.isFinite(r.score) || r.score < scale[0] || r.score > scale[1];
      sample = {
        ...empty,
        judge: DETERMINISTIC_JUDGE,
        sampleIndex: 0,
        score: outOfScale ? null : r.score,
        reasoning: r.details,
        error: outOfScale ? `score ${r.score} is outside the scale ${scale.join("–")}` : null,
      };
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      sample = { ...empty, judge: DETERMINISTIC_JUDGE, sampleIndex: 0, error: errorMessage(err) };
    } finally {
      await pool.close();
    }
    return {
      criterion,
      samples: [sample],
      params,
      verdict: aggregateAcrossModels({
        criterionId: def.id,
        criterionType: "deterministic",
        scale,
        threshold,
        samplesByModel: { [DETERMINISTIC_JUDGE]: [sample] },
        panel,
      }),
      calls: { live: 0, cached: 0, costUsd: 0, unpriced: [] },
    };
  }

  const judges = [...new Set(req.judges)];
  if (judges.length === 0)
    throw new JuryError("invalid:playground", "Pick at least one judge", { field: "judges" });
  const enabled = enabledJudges(settings);
  const off = judges.filter((j) => !enabled.includes(j));
  if (off.length)
    throw new JuryError("invalid:playground", `Not enabled in Settings: ${off.join(", ")}`, {
      field: "judges",
    });
  if (!Number.isInteger(req.n) || req.n < 1 || req.n > PLAYGROUND_MAX_N)
    throw new JuryError(
      "invalid:playground",
      `N must be a whole number from 1 to ${PLAYGROUND_MAX_N}, got ${req.n}`,
      {
        field: "n",
      },
    );

  const request = buildJudgePrompt(def, req.input, req.output);
  const j = settings.judging;
  const scheduler = createCallScheduler({
    concurrency: j.concurrency,
    perProviderConcurrency: j.perProviderConcurrency,
  });
  const one = async (judge: string, sampleIndex: number): Promise<PlaygroundSample> => {
    const base = { ...empty, judge, sampleIndex };
    const key = playgroundCacheKey(judge, request, j.temperature, sampleIndex);
    const price = resolvePrice(settings.prices, judge);
    // the mock provider costs nothing; a judge without a price is unpriced, never $0
    const cost = (u: Partial<TokenUsage>) =>
      price
        ? costOf(price, { ...u, inputTokens: u.inputTokens ?? 0, outputTokens: u.outputTokens ?? 0 })
        : judge.startsWith("mock:")
          ? 0
          : null;
    if (!req.noCache) {
      const hit = await getCachedResponse(db, key);
      if (hit) {
        const p = parseJudgment(hit.text, scale);
        return {
          ...base,
          ...(p.ok ? { score: p.score, reasoning: p.reasoning } : { error: p.error }),
          inputTokens: hit.inputTokens,
          outputTokens: hit.outputTokens,
          // the cost the original call had (its tokens at today's price); nothing is spent now
          costUsd: cost({ inputTokens: hit.inputTokens, outputTokens: hit.outputTokens }),
          cached: true,
        };
      }
    }
    try {
      const r = await callJudge({
        judge,
        request,
        settings,
        scheduler,
        temperature: j.temperature,
        signal: opts.signal,
      });
      const p = parseJudgment(r.text, scale);
      // only an answer that parsed is worth reusing (as in a run)
      if (p.ok)
        await putCachedResponse(db, {
          key,
          text: r.text,
          inputTokens: r.inputTokens,
          outputTokens: r.outputTokens,
        });
      return {
        ...base,
        ...(p.ok ? { score: p.score, reasoning: p.reasoning } : { error: p.error }),
        latencyMs: r.latencyMs,
        inputTokens: r.inputTokens,
        outputTokens: r.outputTokens,
        costUsd: cost(r),
      };
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const partial = partialReply(err);
      return {
        ...base,
        error: errorMessage(err),
        latencyMs: partial.latencyMs ?? 0,
        inputTokens: partial.inputTokens ?? 0,
        outputTokens: partial.outputTokens ?? 0,
        costUsd: cost(partial),
      };
    }
  };
  const samples = await Promise.all(
    judges.flatMap((judge) => Array.from({ length: req.n }, (_, i) => one(judge, i))),
  );
  const samplesByModel: Record<string, PlaygroundSample[]> = {};
  for (const judge of judges) samplesByModel[judge] = samples.filter((s) => s.judge === judge);
  const live = samples.filter((s) => !s.cached);
  return {
    criterion,
    samples,
    request: { system: request.system, prompt: request.prompt },
    verdict: aggregateAcrossModels({
      criterionId: def.id,
      criterionType: "llm",
      scale,
      threshold,
      samplesByModel,
      asked: { judges, samplesPerJudge: req.n },
      panel,
    }),
    calls: {
      live: live.length,
      cached: samples.length - live.length,
      costUsd: live.reduce((a, s) => a + (s.costUsd ?? 0), 0),
      unpriced: judges.filter((judge) => !resolvePrice(settings.prices, judge) && !judge.startsWith("mock:")),
    },
  };
}
