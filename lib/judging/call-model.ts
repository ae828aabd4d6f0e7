import { APICallError } from "@ai-sdk/provider";
import { generateText, jsonSchema, type LanguageModel, NoObjectGeneratedError, Output } from "ai";
import { JuryError } from "../errors";

export type CallOptions = {
  model: LanguageModel;
  system?: string;
  prompt: string;
  temperature?: number;
  /** JSON schema of the expected object; sent as the provider's structured-output format */
  schema?: Record<string, unknown>;
  timeoutMs: number;
  maxRetries: number;
  signal?: AbortSignal;
  /** injectable for tests */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
};

export type CallResult = {
  text: string;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  attempts: number;
};

const MAX_BACKOFF_MS = 30_000;

/**
 * One model call with Jury's own retry policy: exponential backoff with full jitter, honouring
 * Retry-After on 429 and 5xx, a per-attempt timeout, and cancellation. The AI SDK's own retries
 * are off so each attempt is counted once. The raw text comes back even when it is not the
 * JSON asked for: the caller's fallback parser decides.
 */
export async function callModel(opts: CallOptions): Promise<CallResult> {
  const sleep = opts.sleep ?? abortableSleep;
  const started = performance.now();
  let attempt = 0;
  for (;;) {
    attempt++;
    opts.signal?.throwIfAborted();
    try {
      const r = await attemptOnce(opts);
      return { ...r, latencyMs: Math.round(performance.now() - started), attempts: attempt };
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? err;
      const wait = retryDelayMs(err, attempt);
      if (wait === undefined || attempt > opts.maxRetries) throw finalError(err, attempt);
      await sleep(wait, opts.signal);
    }
  }
}

async function attemptOnce(opts: CallOptions): Promise<Omit<CallResult, "latencyMs" | "attempts">> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const abortSignal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  try {
    const result = await generateText({
      model: opts.model,
      system: opts.system,
      prompt: opts.prompt,
      temperature: opts.temperature,
      maxRetries: 0,
      abortSignal,
      ...(opts.schema ? { output: outputFor(opts.schema) } : {}),
    });
    return {
      text: result.text,
      inputTokens: result.usage.inputTokens ?? 0,
      outputTokens: result.usage.outputTokens ?? 0,
    };
  } catch (err) {
    // The model answered, but not with schema-valid JSON: keep its text for the fallback parser.
    if (NoObjectGeneratedError.isInstance(err) && err.text !== undefined) {
      return {
        text: err.text,
        inputTokens: err.usage?.inputTokens ?? 0,
        outputTokens: err.usage?.outputTokens ?? 0,
      };
    }
    if (timeout.aborted && !opts.signal?.aborted) {
      throw new JuryError("timeout", `No answer within ${opts.timeoutMs} ms`);
    }
    throw err;
  }
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
  if (err instanceof JuryError) return err.code === "timeout" ? jittered : undefined;
  if (APICallError.isInstance(err)) {
    const status = err.statusCode ?? 0;
    // A 2xx whose body could not be read (truncated, not JSON) is worth another try.
    if (status >= 200 && status < 300) return jittered;
    if (status !== 0 && status !== 408 && status !== 409 && status !== 429 && status < 500) return undefined;
    const after = retryAfterMs(err.responseHeaders);
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

function finalError(err: unknown, attempts: number): Error {
  const base =
    err instanceof JuryError
      ? err.message
      : APICallError.isInstance(err)
        ? `HTTP ${err.statusCode ?? "error"}: ${truncate(err.message, 300)}`
        : err instanceof Error
          ? truncate(err.message, 300)
          : String(err);
  const e = new JuryError(
    err instanceof JuryError ? err.code : "call_failed",
    `${base} (after ${attempts} attempt${attempts === 1 ? "" : "s"})`,
  );
  return e;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
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
