import type { Db } from "@/db/client";
import { getCachedResponse, type SampleRecord, type SampleWrite } from "@/db/queries/runs";
import type { RunCase, RunOptions, Task } from "@/db/schema";
import type { CaseInput, Criterion, LlmCriterion } from "../criteria/definition";
import type { CriteriaRegistry } from "../criteria/registry";
import { deterministicTimeoutMs, type LogicPool, sharedLogicPool } from "../criteria/worker-pool";
import { errorMessage, isJuryError, JuryError } from "../errors";
import type { CallScheduler } from "../jobs/scheduler";
import { callJudge } from "../judging/call-judge";
import { type CallResult, partialReply } from "../judging/call-model";
import { parseJudgment } from "../judging/parse-json";
import { buildJudgePrompt, type JudgeRequest } from "../judging/prompt";
import { promptCacheKey } from "../judging/prompt-cache";
import { getOrInsert } from "../map-utils";
import { costOf, type Price, resolvePrice, type TokenUsage, uncachedCostOf } from "../pricing";
import type { Settings } from "../settings/schema";
import { judgeCacheKey } from "./cache-key";

/** What one task of a run stores: its sample's fields (the task's own ids aside) and the cache row. */
export type TaskOutcome = {
  sample: Omit<SampleWrite, "taskId" | "runId" | "caseId" | "criterionId" | "judge" | "sampleIndex">;
  cache?: SampleRecord["cache"];
  /** the AI SDK's warnings about the call (see CallResult.warnings) */
  warnings?: string[];
};

/** What the tasks of one run share: built once per run, read by every task. */
export type TaskEnv = {
  db: Db;
  options: RunOptions;
  settings: Settings;
  registry: CriteriaRegistry;
  cases: Map<string, RunCase>;
  scheduler: CallScheduler;
  signal: AbortSignal;
  /** the judge prompt of each case × criterion, built on its first sample */
  prompts: Map<string, JudgeRequest>;
};

const EMPTY: TaskOutcome["sample"] = {
  score: null,
  reasoning: null,
  rawText: null,
  latencyMs: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  attempts: 0,
  cached: false,
  error: null,
};

type CaseCriterion = RunCase["criteria"][number];
type DeterministicCriterion = Extract<Criterion, { type: "deterministic" }>;
type Input = CaseInput & { hint?: string; focusAreas?: string[] };

/**
 * Does one task: a deterministic criterion's check, a cached answer, or a judge's call. Undefined
 * when the run was stopped meanwhile: the task stays pending and a resume does it.
 */
export async function performTask(env: TaskEnv, task: Task): Promise<TaskOutcome | undefined> {
  const c = env.cases.get(task.caseId);
  const cc = c?.criteria.find((x) => x.id === task.criterionId);
  const def = env.registry.criteria.get(task.criterionId);
  if (!c || !cc || !def)
    return { sample: { ...EMPTY, error: `criterion ${task.criterionId} is no longer available` } };
  if (def.type === "deterministic") return checkDeterministic(env, def, c, cc);
  return askJudge(env, task, def as LlmCriterion, c, cc);
}

async function checkDeterministic(
  env: TaskEnv,
  def: DeterministicCriterion,
  c: RunCase,
  cc: CaseCriterion,
): Promise<TaskOutcome | undefined> {
  try {
    // never on this thread: a regex or loop that does not return would hang it (and the server)
    const r = await logicPool(env.registry).run(
      { criterionId: def.id, fn: def.function, output: c.output, input: c.input as Input, params: cc.params },
      env.signal,
    );
    const outOfScale = !Number.isFinite(r.score) || r.score < cc.scale[0] || r.score > cc.scale[1];
    return {
      sample: {
        ...EMPTY,
        score: outOfScale ? null : r.score,
        reasoning: r.details,
        attempts: 1,
        error: outOfScale ? `score ${r.score} is outside the scale ${cc.scale.join("–")}` : null,
      },
    };
  } catch (err) {
    if (env.signal.aborted) return undefined; // left pending: a resume picks it up
    const timedOut = isJuryError(err) && err.code === "deterministic_timeout";
    return {
      sample: {
        ...EMPTY,
        attempts: 1,
        error: timedOut ? errorMessage(err) : `deterministic criterion failed: ${errorMessage(err)}`,
      },
    };
  }
}

/**
 * Deterministic criteria run in a worker thread, the process's shared one (started on the first such
 * task of any run, kept for the runs that follow, ended after a minute idle).
 */
function logicPool(registry: CriteriaRegistry): LogicPool {
  if (!registry.logicWorker)
    throw new JuryError(
      "no_logic_worker",
      "these criteria were loaded without a worker bundle for their logic",
    );
  return sharedLogicPool(registry.logicWorker, deterministicTimeoutMs());
}

async function askJudge(
  env: TaskEnv,
  task: Task,
  def: LlmCriterion,
  c: RunCase,
  cc: CaseCriterion,
): Promise<TaskOutcome | undefined> {
  const { options, signal } = env;
  const { req, cacheKey } = judgeRequestOf(env, task, def, c);
  const answer = answerOf(cc.scale);
  // a re-sampled task (fresh) asks anew: its stored answer would only repeat the old sample
  if (!options.noCache && !task.fresh) {
    const hit = await getCachedResponse(env.db, cacheKey);
    if (hit) {
      const sample = { ...EMPTY, ...answer(hit.text).fields, rawText: hit.text, cached: true };
      return {
        sample: {
          ...sample,
          inputTokens: hit.inputTokens,
          outputTokens: hit.outputTokens,
          requestKey: cacheKey,
        },
      };
    }
  }
  try {
    const r = await callJudge({
      judge: task.judge,
      request: req,
      settings: env.settings,
      scheduler: env.scheduler,
      temperature: options.temperature,
      signal,
      promptCacheKey: promptCachingOn(env) ? promptCacheKey(req) : undefined,
    });
    return outcomeOfCall(env, task, cc.scale, cacheKey, r);
  } catch (err) {
    if (signal.aborted) return undefined; // left pending: a resume picks it up
    // the attempts made; and a reply over the size cap, a refusal or a cut-off answer is stored once
    // (its text, cut to the cap) with the tokens it cost, as this sample's error
    const p = partialReply(err);
    const price = resolvePrice(env.settings.prices, task.judge);
    const cost =
      p.inputTokens !== undefined
        ? priced(price, { ...p, inputTokens: p.inputTokens, outputTokens: p.outputTokens ?? 0 })
        : {};
    return { sample: { ...EMPTY, ...p, ...cost, error: errorMessage(err), requestKey: cacheKey } };
  }
}

/** Prompt caching for this run: its own choice, else Settings' (on by default). */
export function promptCachingOn(env: Pick<TaskEnv, "options" | "settings">): boolean {
  return env.options.promptCaching ?? env.settings.judging.promptCaching;
}

/**
 * A call's cost fields: its cost at the price (0 when unpriced: the run lists the judge as unpriced),
 * its cache and reasoning tokens, and what the prompt cache saved against full-price input.
 */
export function priced(price: Price | undefined, u: TokenUsage, opts: { batch?: boolean } = {}) {
  const cost = price ? costOf(price, u, opts) : 0;
  return {
    costUsd: cost,
    cacheReadTokens: u.cacheReadTokens ?? 0,
    cacheWriteTokens: u.cacheWriteTokens ?? 0,
    reasoningTokens: u.reasoningTokens ?? 0,
    cacheSavedUsd: price ? uncachedCostOf(price, u, opts) - cost : 0,
    batched: opts.batch ?? false,
  };
}

/** The judge prompt of a task's case × criterion (built once per run) and the call's response-cache key. */
export function judgeRequestOf(env: TaskEnv, task: Task, def: LlmCriterion, c: RunCase) {
  const input = c.input as Input;
  const req = getOrInsert(env.prompts, `${task.caseId}\u0000${task.criterionId}`, () =>
    buildJudgePrompt(def, input, c.output, { hint: input.hint, focusAreas: input.focusAreas }),
  );
  return { req, cacheKey: judgeCacheKey(task.judge, req, env.options.temperature, task.sampleIndex) };
}

function answerOf(scale: [number, number] | number[]) {
  return (text: string) => {
    const p = parseJudgment(text, scale as [number, number]);
    return { ok: p.ok, fields: p.ok ? { score: p.score, reasoning: p.reasoning } : { error: p.error } };
  };
}

/** A judge's answer as its task stores it: score or error, tokens, cost (at the batch rate when batched). */
export function outcomeOfCall(
  env: TaskEnv,
  task: Task,
  scale: [number, number] | number[],
  cacheKey: string,
  r: CallResult,
  opts: { batch?: boolean } = {},
): TaskOutcome {
  const price = resolvePrice(env.settings.prices, task.judge);
  const parsed = answerOf(scale)(r.text);
  return {
    sample: {
      ...EMPTY,
      ...parsed.fields,
      rawText: r.text,
      latencyMs: r.latencyMs,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      ...priced(price, r, opts),
      attempts: r.attempts,
      requestKey: cacheKey,
    },
    // only an answer that parsed is cached: a broken one is asked again next time
    cache: parsed.ok ? { key: cacheKey, ...r } : undefined,
    warnings: r.warnings,
  };
}

/** A failed call's sample (a batch request that expired, was cancelled or errored). */
export function failedOutcome(cacheKey: string, error: string): TaskOutcome {
  return { sample: { ...EMPTY, error, requestKey: cacheKey } };
}
