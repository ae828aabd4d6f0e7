import { APICallError } from "@ai-sdk/provider";
import {
  generateText,
  jsonSchema,
  type LanguageModel,
  type LanguageModelUsage,
  NoObjectGeneratedError,
  Output,
} from "ai";
import { MAX_REPLY_BYTES_ENV, maxReplyBytes } from "../env/limits";
import { isJuryError, JuryError } from "../errors";
import { redactSecrets } from "../redact";
import { isReasoningModel, maxOutputTokensFor } from "./output-limit";

// The SDK's warnings ("temperature is not supported…") would go to stdout and stderr on every call,
// breaking `--json`: callModel returns them instead, and each run prints and records them once.
(globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false;

export type CallOptions = {
  model: LanguageModel;
  system?: string;
  prompt: string;
  temperature?: number;
  /**
   * The most output tokens the answer may take, sent to every provider; default: the judge's from
   * lib/judging/output-limit.ts (1,024, plus headroom for a reasoning model's thinking).
   */
  maxOutputTokens?: number;
  /** JSON schema of the expected object; sent as the provider's structured-output format */
  schema?: Record<string, unknown>;
  timeoutMs: number;
  maxRetries: number;
  signal?: AbortSignal;
  /** injectable for tests */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Ask the provider to cache the prompt's prefix (system and prompt are the stable part): Anthropic
   * gets a cache breakpoint at the prompt's end, OpenAI the cache key (calls sharing it are routed
   * to the same cache), Gemini caches a repeated prefix by itself.
   */
  promptCache?: PromptCacheHint;
};

export type PromptCacheHint = { provider: "openai" | "anthropic" | "google"; key: string };

export type CallResult = {
  text: string;
  /** every input token, those read from or written to the provider's prompt cache included */
  inputTokens: number;
  outputTokens: number;
  /** input read from the provider's prompt cache */
  cacheReadTokens: number;
  /** input written to the provider's prompt cache */
  cacheWriteTokens: number;
  /** of the output, the model's reasoning */
  reasoningTokens: number;
  latencyMs: number;
  attempts: number;
  /** the AI SDK's warnings about the request, as lines ("openai:gpt-5: temperature is not supported…") */
  warnings: string[];
};

const MAX_BACKOFF_MS = 30_000;

/**
 * What a call that failed still has to store: the reply cut to the cap when it was too large
 * (`reply_too_large`), with the tokens it cost. Spread it into the sample written for the error.
 */
export type PartialReply = Partial<Omit<CallResult, "text" | "warnings">> & { rawText?: string };

/** Errors that come with the model's answer (and its tokens, which the provider bills): stored with it. */
const ANSWERED_ERRORS = new Set(["reply_too_large", "refusal", "truncated"]);

/**
 * What a failed call still has to store: the attempts it made (every error callModel throws carries
 * them), and for an answer that came back but cannot be used (`reply_too_large`, `refusal`,
 * `truncated`) its text and the tokens it cost.
 */
export function partialReply(err: unknown): PartialReply {
  if (!isJuryError(err) || !err.details) return {};
  const d = err.details as Partial<CallResult>;
  const attempts = typeof d.attempts === "number" ? { attempts: d.attempts } : {};
  if (!ANSWERED_ERRORS.has(err.code)) return attempts;
  return {
    rawText: typeof d.text === "string" ? d.text : undefined,
    inputTokens: d.inputTokens,
    outputTokens: d.outputTokens,
    cacheReadTokens: d.cacheReadTokens,
    cacheWriteTokens: d.cacheWriteTokens,
    reasoningTokens: d.reasoningTokens,
    latencyMs: d.latencyMs,
    ...attempts,
  };
}

/**
 * One model call with Jury's own retry policy: exponential backoff with full jitter, honouring
 * Retry-After on 429 and 5xx (and Google's `RetryInfo.retryDelay`, which comes in the error body
 * instead), a per-attempt timeout, and cancellation. A refusal (`refusal`) and an answer cut off at
 * the max output tokens (`truncated`) are failures of their own, not retried, that keep the text
 * and tokens. Every error thrown carries the attempts made (`details.attempts`, see partialReply). The AI SDK's own retries
 * are off so each attempt is counted once. The raw text comes back even when it is not the
 * JSON asked for: the caller's fallback parser decides.
 *
 * Every model answer enters Jury here (runs, the memory judge, reviews), so here it is made safe to
 * store: secrets redacted from the text and from error messages (a hostile or broken endpoint may
 * echo the key it was sent), and a reply over JURY_MAX_REPLY_BYTES (default 256 KiB) turned into
 * a `reply_too_large` error carrying the reply cut to the cap, never retried.
 */
export async function callModel(opts: CallOptions): Promise<CallResult> {
  const sleep = opts.sleep ?? abortableSleep;
  const cap = maxReplyBytes();
  const started = performance.now();
  let attempt = 0;
  for (;;) {
    attempt++;
    opts.signal?.throwIfAborted();
    try {
      const r = await attemptOnce(opts);
      const latencyMs = Math.round(performance.now() - started);
      // redacted before it is cut: a key across the cut would otherwise leave its first half
      const text = redactSecrets(r.text);
      const bytes = replyBytes(text, cap);
      if (bytes > cap) {
        throw new JuryError(
          "reply_too_large",
          `reply too large: ${bytes} bytes, cap ${cap} (${MAX_REPLY_BYTES_ENV}) (after ${attempt} attempt${attempt === 1 ? "" : "s"})`,
          { ...r, text: truncateUtf8(text, cap), latencyMs, attempts: attempt },
        );
      }
      return { ...r, text, latencyMs, attempts: attempt };
    } catch (err) {
      if (isJuryError(err) && ANSWERED_ERRORS.has(err.code) && err.details) {
        throw err.details.attempts === undefined
          ? withAttempts(err, attempt, Math.round(performance.now() - started))
          : err;
      }
      if (opts.signal?.aborted) throw opts.signal.reason ?? err;
      const wait = retryDelayMs(err, attempt);
      if (wait === undefined || attempt > opts.maxRetries) throw finalError(err, attempt);
      await sleep(wait, opts.signal);
    }
  }
}

/**
 * One attempt's signal: aborted by the caller's signal or at the attempt's time limit. Its timer and
 * its listener on the caller's signal are removed when the attempt ends (`done`): AbortSignal.timeout
 * would fire for every call long after it answered, and AbortSignal.any would keep a listener per call
 * on the run's signal.
 */
function attemptSignal(timeoutMs: number, outer?: AbortSignal) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`No answer within ${timeoutMs} ms`, "TimeoutError"));
  }, timeoutMs);
  const onOuter = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", onOuter, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuter);
    },
  };
}

/** The model's provider and id, as a judge names them (`openai`, `gpt-5`); empty for a model given by id. */
function modelName(model: LanguageModel): { provider: string; modelId: string } {
  if (typeof model === "string") return { provider: "", modelId: model };
  return { provider: model.provider.split(".")[0], modelId: model.modelId };
}

type Attempt = Omit<CallResult, "latencyMs" | "attempts">;

/**
 * A refusal or an answer cut off at the output limit is its own failure, with the text and tokens
 * it cost: neither is an answer to parse, and asking again would most likely give the same.
 */
function checkFinish(finishReason: string | undefined, r: Attempt, maxOutputTokens: number): Attempt {
  if (finishReason === "content-filter") {
    throw new JuryError(
      "refusal",
      "refused: the model declined to answer (a refusal or its provider's safety filter), so there is no score",
      { ...r },
    );
  }
  if (finishReason === "length") {
    throw new JuryError(
      "truncated",
      `truncated: the answer reached the max output tokens (${maxOutputTokens}) before it ended; raise the judge's max output tokens in Settings`,
      { ...r },
    );
  }
  return r;
}

async function attemptOnce(opts: CallOptions): Promise<Attempt> {
  const attempt = attemptSignal(opts.timeoutMs, opts.signal);
  const abortSignal = attempt.signal;
  const { provider, modelId } = modelName(opts.model);
  const maxOutputTokens = opts.maxOutputTokens ?? maxOutputTokensFor(`${provider}:${modelId}`);
  try {
    const result = await generateText({
      model: opts.model,
      system: opts.system,
      ...promptOf(opts),
      // reasoning models refuse a temperature: not sent, rather than sent and dropped with a warning
      temperature: isReasoningModel(provider, modelId) ? undefined : opts.temperature,
      maxOutputTokens,
      maxRetries: 0,
      abortSignal,
      ...(opts.schema ? { output: outputFor(opts.schema) } : {}),
    });
    return checkFinish(
      result.finishReason,
      {
        text: result.text,
        ...tokensOf(result.usage),
        warnings: warningLines(result.warnings, provider, modelId),
      },
      maxOutputTokens,
    );
  } catch (err) {
    // The model answered, but not with schema-valid JSON: keep its text for the fallback parser.
    if (NoObjectGeneratedError.isInstance(err) && err.text !== undefined) {
      return checkFinish(
        err.finishReason,
        { text: err.text, ...tokensOf(err.usage), warnings: [] },
        maxOutputTokens,
      );
    }
    if (attempt.timedOut() && !opts.signal?.aborted) {
      throw new JuryError("timeout", `No answer within ${opts.timeoutMs} ms`);
    }
    throw err;
  } finally {
    attempt.done();
  }
}

const EPHEMERAL = { anthropic: { cacheControl: { type: "ephemeral" } } } as const;

/**
 * The prompt as the SDK takes it: a plain prompt, or with prompt caching asked for, one user message
 * whose text ends with Anthropic's cache breakpoint (everything before it, the system prompt included,
 * is cached), or OpenAI's cache key.
 */
function promptOf(opts: CallOptions) {
  const hint = opts.promptCache;
  if (hint?.provider === "anthropic")
    return {
      messages: [
        {
          role: "user" as const,
          content: [{ type: "text" as const, text: opts.prompt, providerOptions: EPHEMERAL }],
        },
      ],
    };
  if (hint?.provider === "openai")
    return { prompt: opts.prompt, providerOptions: { openai: { promptCacheKey: hint.key } } };
  return { prompt: opts.prompt };
}

/** The SDK's usage as Jury stores it: its input total counts cache reads and writes for every provider. */
function tokensOf(usage: Partial<LanguageModelUsage> | undefined) {
  return {
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    cacheReadTokens: usage?.inputTokenDetails?.cacheReadTokens ?? usage?.cachedInputTokens ?? 0,
    cacheWriteTokens: usage?.inputTokenDetails?.cacheWriteTokens ?? 0,
    reasoningTokens: usage?.outputTokenDetails?.reasoningTokens ?? usage?.reasoningTokens ?? 0,
  };
}

/** The SDK's warnings as one line each, naming the judge. */
function warningLines(
  warnings: readonly { type: string; feature?: string; details?: string; message?: string }[] | undefined,
  provider: string,
  modelId: string,
): string[] {
  return (warnings ?? []).map((w) => {
    const what = w.details ?? w.message ?? (w.feature ? `${w.feature} is not supported` : w.type);
    return `${provider}:${modelId}: ${what}`;
  });
}

/** The error with the attempts made and the time spent, for the sample that stores it. */
function withAttempts(err: JuryError, attempts: number, latencyMs: number): JuryError {
  const n = `(after ${attempts} attempt${attempts === 1 ? "" : "s"})`;
  const text = err.details?.text;
  return new JuryError(err.code, `${err.message} ${n}`, {
    ...err.details,
    ...(typeof text === "string" ? { text: redactSecrets(text) } : {}),
    attempts,
    latencyMs,
  });
}

const outputs = new WeakMap<Record<string, unknown>, ReturnType<typeof Output.object>>();
/** The structured-output spec, built once per schema object: this sits on the judging hot path. */
function outputFor(schema: Record<string, unknown>) {
  let o = outputs.get(schema);
  if (!o) {
    o = Output.object({ schema: jsonSchema(schema) });
    outputs.set(schema, o);
  }
  return o;
}

/** Milliseconds to wait before the next attempt, or undefined when the error is not worth retrying. */
export function retryDelayMs(err: unknown, attempt: number, random = Math.random): number | undefined {
  const backoff = Math.min(MAX_BACKOFF_MS, 250 * 2 ** (attempt - 1));
  const jittered = Math.round(backoff / 2 + random() * (backoff / 2));
  if (isJuryError(err)) return err.code === "timeout" ? jittered : undefined;
  if (APICallError.isInstance(err)) {
    const status = err.statusCode ?? 0;
    // A 2xx whose body could not be read (truncated, not JSON) is worth another try.
    if (status >= 200 && status < 300) return jittered;
    if (status !== 0 && status !== 408 && status !== 409 && status !== 429 && status < 500) return undefined;
    const after = retryAfterMs(err.responseHeaders) ?? retryInfoMs(err.responseBody);
    return after !== undefined ? Math.min(after, 120_000) : jittered;
  }
  // Network failures (reset, truncated body, invalid JSON body) are transient in practice.
  return jittered;
}

export function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = headers["retry-after-ms"];
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const v = headers["retry-after"];
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Number(v) * 1000;
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Google's wait, which it sends in the error body rather than a Retry-After header: a
 * `google.rpc.RetryInfo` detail whose `retryDelay` is a duration like "22s" or "1.5s".
 */
export function retryInfoMs(body: string | undefined): number | undefined {
  if (!body?.includes("RetryInfo")) return undefined;
  try {
    const details = (JSON.parse(body) as { error?: { details?: unknown } }).error?.details;
    if (!Array.isArray(details)) return undefined;
    for (const d of details) {
      const t = (d as { "@type"?: unknown })["@type"];
      const delay = (d as { retryDelay?: unknown }).retryDelay;
      if (typeof t === "string" && t.endsWith("google.rpc.RetryInfo") && typeof delay === "string") {
        const m = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
        if (m) return Math.round(Number(m[1]) * 1000);
      }
    }
  } catch {
    // not JSON: no wait named
  }
  return undefined;
}

function finalError(err: unknown, attempts: number): Error {
  // redacted before it is cut: a key across the cut would otherwise leave its first half
  const short = (m: string) => truncate(redactSecrets(m), 300);
  const base = isJuryError(err)
    ? err.message
    : APICallError.isInstance(err)
      ? `HTTP ${err.statusCode ?? "error"}: ${short(err.message)}`
      : err instanceof Error
        ? short(err.message)
        : String(err);
  // the one error every caller stores or prints: a provider's message may echo the key it was sent
  return new JuryError(
    isJuryError(err) ? err.code : "call_failed",
    redactSecrets(`${base} (after ${attempts} attempt${attempts === 1 ? "" : "s"})`),
    { attempts },
  );
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** The text's size in UTF-8, counted only when it could pass the cap (3 bytes per UTF-16 unit at most). */
function replyBytes(text: string, cap: number): number {
  return text.length * 3 <= cap ? text.length : Buffer.byteLength(text, "utf8");
}

/** The first `max` bytes of the text's UTF-8, without a character cut in half at the end. */
export function truncateUtf8(text: string, max: number): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= max) return text;
  let end = max;
  // step back over continuation bytes (10xxxxxx) to the start of the character that was cut
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
