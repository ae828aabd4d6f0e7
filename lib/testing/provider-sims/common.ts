import type { PrefixCache, SimClock } from "./cache";
import type { Ledger } from "./ledger";
import type { SimProvider } from "./rates";

/**
 * A fault a simulator answers instead of a normal reply, each in its provider's own shape:
 *
 * | kind           | OpenAI                                   | Anthropic                               | Gemini                                             |
 * |----------------|------------------------------------------|-----------------------------------------|----------------------------------------------------|
 * | `rate_limit`   | 429 `rate_limit_exceeded`, `retry-after` | 429 `rate_limit_error`, `retry-after`   | 429 RESOURCE_EXHAUSTED, `RetryInfo.retryDelay` in the body, no header |
 * | `overloaded`   | 503 `server_error` (no 529 at OpenAI)    | 529 `overloaded_error`                  | 503 UNAVAILABLE                                    |
 * | `server_error` | 500 `server_error`                       | 500 `api_error`                         | 500 INTERNAL                                       |
 * | `unauthorized` | 401 `invalid_api_key`                    | 401 `authentication_error`              | 400 INVALID_ARGUMENT, ErrorInfo `API_KEY_INVALID` (what Google answers a bad key) |
 * | `refusal`      | 200, message content `{type:"refusal"}`  | 200, `stop_reason: "refusal"`           | 200, candidate `finishReason: "SAFETY"`, no content |
 * | `truncated`    | 200, `status: "incomplete"`, `incomplete_details.reason: "max_output_tokens"` | 200, `stop_reason: "max_tokens"` | 200, `finishReason: "MAX_TOKENS"` |
 *
 * `truncated` spends the whole max output tokens (so the ledger bills them) and cuts the answer there;
 * a request whose answer does not fit its max output tokens is truncated the same way without a fault.
 */
export type SimFault =
  | { kind: "rate_limit"; retryAfterSeconds?: number }
  | { kind: "overloaded" }
  | { kind: "server_error"; status?: 500 | 502 | 503 }
  | { kind: "unauthorized" }
  | { kind: "refusal"; message?: string }
  | { kind: "truncated" };

/** What a simulator hands the answer function: the request as the model would see it. */
export type SimCall = {
  provider: SimProvider;
  /** the model id as requested */
  model: string;
  /** system / developer instructions, joined */
  system: string;
  /** the user turns' text, joined */
  prompt: string;
  /** the structured-output JSON schema the request asked for, if any */
  schema?: Record<string, unknown>;
  maxOutputTokens: number;
  mode: "live" | "batch";
};

/** The model's answer: text, or an object sent as its JSON. */
export type SimAnswer = (call: SimCall) => string | Record<string, unknown>;

/** One request a simulator received, and what it answered. */
export type SimRecord = {
  provider: SimProvider;
  method: string;
  /** path after the host, e.g. `/v1/responses` */
  path: string;
  headers: Record<string, string>;
  /** the parsed JSON body (or the raw text when it was not JSON) */
  body: unknown;
  status: number;
  /** the error message the simulator answered, for a 4xx it decided itself (not a scripted fault) */
  rejection?: string;
  /** the scripted fault that answered it */
  fault?: SimFault["kind"];
};

export type SimHttpRequest = { method: string; url: URL; headers: Headers; body: Uint8Array };
export type SimHttpResponse = { status: number; headers: Record<string, string>; body: string };

/** What the three simulators share: one clock, one ledger, one key per provider. */
export type SimContext = {
  clock: SimClock;
  ledger: Ledger;
  keys: Record<SimProvider, string>;
  nextId(prefix: string): string;
};

type QueuedFault = { fault: SimFault; model?: string; remaining: number };

/** Scripting and recording shared by the three simulators. */
export abstract class BaseSim {
  abstract readonly provider: SimProvider;
  readonly records: SimRecord[] = [];
  /** The model's answer; the default fills the requested JSON schema (see defaultAnswer). */
  answer: SimAnswer = defaultAnswer;
  /** Reasoning / thinking tokens a reasoning model spends per request before its answer. */
  reasoningTokens = 128;
  /** Milliseconds each generation takes (real time): requests in flight together all miss the cache. */
  latencyMs = 0;
  private readonly faults: QueuedFault[] = [];

  constructor(
    protected readonly ctx: SimContext,
    readonly cache: PrefixCache,
  ) {}

  /** The next `times` generation requests (for `model`, if given) get this fault instead of an answer. */
  fail(fault: SimFault, opts: { times?: number; model?: string } = {}): this {
    this.faults.push({ fault, model: opts.model, remaining: opts.times ?? 1 });
    return this;
  }

  /** Drops every scripted fault not yet used. */
  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Requests this simulator refused on its own (invalid shape, bad key, unknown model…). */
  rejections(): SimRecord[] {
    return this.records.filter((r) => r.rejection !== undefined);
  }

  /** Generation requests that reached the model (answered 200), for assertions on what Jury sent. */
  generations(): SimRecord[] {
    return this.records.filter((r) => r.status === 200 && r.method === "POST" && this.isGeneration(r.path));
  }

  protected abstract isGeneration(path: string): boolean;
  abstract handle(req: SimHttpRequest): Promise<SimHttpResponse>;

  protected takeFault(model: string): SimFault | undefined {
    const i = this.faults.findIndex((f) => !f.model || f.model === model);
    if (i < 0) return undefined;
    const q = this.faults[i];
    if (--q.remaining <= 0) this.faults.splice(i, 1);
    return q.fault;
  }

  protected record(r: SimRecord): void {
    this.records.push(r);
  }

  protected async generationDelay(): Promise<void> {
    await new Promise((r) => (this.latencyMs > 0 ? setTimeout(r, this.latencyMs) : setImmediate(r)));
  }
}

/** Fills a JSON schema with the first value of each type: `1` for numbers, `true`, `"simulated"`, an enum's first member. */
export function defaultAnswer(call: SimCall): string | Record<string, unknown> {
  if (!call.schema) return "simulated answer";
  return fill(call.schema) as Record<string, unknown>;
}

function fill(schema: Record<string, unknown>): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const t = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (String(t).toLowerCase()) {
    case "object": {
      const out: Record<string, unknown> = {};
      const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      for (const [k, v] of Object.entries(props)) out[k] = fill(v);
      return out;
    }
    case "array":
      return [];
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return "simulated";
  }
}

export const answerText = (a: string | Record<string, unknown>): string =>
  typeof a === "string" ? a : JSON.stringify(a);

export function json(status: number, body: unknown, headers: Record<string, string> = {}): SimHttpResponse {
  return { status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
}

export function headerRecord(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of h) out[k] = v;
  return out;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/** A validation failure: the simulator answers it in the provider's error shape and records it as a rejection. */
export class Reject extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function parseJsonBody(body: Uint8Array): unknown {
  const text = Buffer.from(body).toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return Symbol.for("invalid-json");
  }
}

export const INVALID_JSON = Symbol.for("invalid-json");

/**
 * The output of one generation: the answer cut to what fits `maxOutputTokens` after the reasoning
 * tokens (a reasoning model thinks first; when thinking alone fills the limit there is no text at all).
 */
export function shapeOutput(
  answer: string,
  maxOutputTokens: number,
  reasoningTokens: number,
  forceTruncate: boolean,
): { text: string; outputTokens: number; reasoningTokens: number; truncated: boolean } {
  const reasoning = Math.min(reasoningTokens, maxOutputTokens);
  const room = maxOutputTokens - reasoning;
  const full = Math.ceil(answer.length / 4);
  if (!forceTruncate && full <= room) {
    return { text: answer, outputTokens: reasoning + full, reasoningTokens: reasoning, truncated: false };
  }
  // truncated: the whole limit is spent; the text is what fit (a scripted truncation keeps at most half the answer)
  const keep = forceTruncate ? Math.min(room, Math.floor(full / 2)) : room;
  return {
    text: answer.slice(0, keep * 4),
    outputTokens: maxOutputTokens,
    reasoningTokens: reasoning,
    truncated: true,
  };
}

/** The longest cached prefix among `boundaries` (token counts, ascending) of `text`, 0 when none hits. */
export function longestCachedPrefix(
  cache: PrefixCache,
  ns: string,
  text: string,
  boundaries: number[],
): number {
  for (let i = boundaries.length - 1; i >= 0; i--) {
    if (cache.lookup(ns, text.slice(0, boundaries[i] * 4))) {
      cache.hits++;
      return boundaries[i];
    }
  }
  if (boundaries.length) cache.misses++;
  return 0;
}

/** Token counts from `min` up to `total` in steps of `step` (automatic prefix caching's checkpoints). */
export function checkpoints(min: number, total: number, step: number): number[] {
  const out: number[] = [];
  for (let t = min; t <= total; t += step) out.push(t);
  return out;
}
