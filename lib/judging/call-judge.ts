import type { CallScheduler } from "../jobs/scheduler";
import { cachingProvider } from "../pricing";
import { getModel } from "../providers/get-model";
import type { Settings } from "../settings/schema";
import { type CallResult, callModel } from "./call-model";
import { maxOutputTokensFor } from "./output-limit";

/** What a judge is sent: its system prompt, the prompt, and the JSON schema of the answer. */
export type JudgeCall = { system?: string; prompt: string; schema?: Record<string, unknown> };

/**
 * One judge call the way every engine makes it (runs, the criteria playground, pairwise audits): the
 * judge's model, a slot of the one call scheduler (none started once `signal` is aborted), and
 * callModel's retries, time limit and redaction with the Settings' judging limits.
 */
export async function callJudge(opts: {
  judge: string;
  request: JudgeCall;
  settings: Settings;
  scheduler: CallScheduler;
  temperature: number;
  signal?: AbortSignal;
  /**
   * The prompt cache key of calls sharing this prompt (a case × criterion), when prompt caching is on:
   * a judge of a provider that caches prefixes is asked to (see callModel's `promptCache`).
   */
  promptCacheKey?: string;
}): Promise<CallResult> {
  const model = getModel(opts.judge, { settings: opts.settings });
  const j = opts.settings.judging;
  const provider = cachingProvider(opts.judge);
  const promptCache = opts.promptCacheKey && provider ? { provider, key: opts.promptCacheKey } : undefined;
  return opts.scheduler.schedule(opts.judge, () => {
    opts.signal?.throwIfAborted(); // a slot freed after a stop starts no new call
    return callModel({
      model,
      system: opts.request.system,
      prompt: opts.request.prompt,
      schema: opts.request.schema,
      temperature: opts.temperature,
      maxOutputTokens: maxOutputTokensFor(opts.judge, j),
      timeoutMs: j.timeoutMs,
      maxRetries: j.maxRetries,
      signal: opts.signal,
      promptCache,
    });
  });
}
