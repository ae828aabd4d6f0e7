import { countTokens, type PrefixCache } from "./cache";
import {
  answerText,
  BaseSim,
  checkpoints,
  headerRecord,
  INVALID_JSON,
  isInt,
  isObject,
  json,
  longestCachedPrefix,
  parseJsonBody,
  Reject,
  type SimContext,
  type SimFault,
  type SimHttpRequest,
  type SimHttpResponse,
  shapeOutput,
} from "./common";
import { resolveSimModel } from "./rates";

/**
 * OpenAI's Responses API (`POST /v1/responses`), from platform.openai.com/docs/api-reference/responses,
 * with automatic prompt caching (platform.openai.com/docs/guides/prompt-caching): prompts of 1,024
 * tokens or more are cached in 128-token increments of their exact prefix, per model and
 * `prompt_cache_key`; a hit reports `usage.input_tokens_details.cached_tokens`. Cached prefixes live
 * 5 minutes from their last use (`prompt_cache_retention: "24h"`: 24 hours). Files and Batches are in
 * openai-batch.ts.
 *
 * Validation as the API does it: `Authorization: Bearer <key>`; `model` (known) and `input` required;
 * unknown top-level parameters refused; `max_output_tokens` an integer from 16 to the model's limit;
 * `temperature` (0–2) refused for reasoning models (gpt-5, o-series); `text.format` json_schema with a
 * name, and under `strict` every object closed (`additionalProperties: false`) with every property required.
 */

const RESPONSES_PARAMS = new Set([
  "model",
  "input",
  "instructions",
  "max_output_tokens",
  "temperature",
  "top_p",
  "text",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "previous_response_id",
  "store",
  "metadata",
  "user",
  "reasoning",
  "include",
  "service_tier",
  "truncation",
  "prompt_cache_key",
  "prompt_cache_retention",
  "safety_identifier",
  "top_logprobs",
  "stream",
  "background",
  "conversation",
  "max_tool_calls",
]);

const FIVE_MIN = 5 * 60_000;
const DAY = 24 * 3_600_000;

export type OpenAIUsage = {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
};

export function openaiError(
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
  headers: Record<string, string> = {},
): SimHttpResponse {
  return json(status, { error: { message, type, param, code } }, headers);
}

export class OpenAISim extends BaseSim {
  readonly provider = "openai" as const;

  constructor(ctx: SimContext, cache: PrefixCache) {
    super(ctx, cache);
  }

  protected isGeneration(path: string): boolean {
    return path === "/v1/responses";
  }

  /** The Bearer key check every endpoint makes; undefined when the key is this provider's. */
  authError(headers: Headers): SimHttpResponse | undefined {
    const auth = headers.get("authorization");
    if (!auth) {
      return openaiError(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        "invalid_request_error",
      );
    }
    if (auth !== `Bearer ${this.ctx.keys.openai}`) {
      return openaiError(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
    }
    return undefined;
  }

  async handle(req: SimHttpRequest): Promise<SimHttpResponse> {
    const path = req.url.pathname;
    const body = parseJsonBody(req.body);
    const rec = {
      provider: this.provider,
      method: req.method,
      path,
      headers: headerRecord(req.headers),
      body: body === INVALID_JSON ? Buffer.from(req.body).toString("utf8") : body,
    };
    const auth = this.authError(req.headers);
    if (auth) {
      this.record({ ...rec, status: auth.status, rejection: "authentication" });
      return auth;
    }
    if (req.method === "POST" && path === "/v1/responses") {
      const res = await this.respond(body, "live");
      this.record({ ...rec, status: res.status, rejection: res.rejection, fault: res.fault });
      return res.http;
    }
    const res = await this.handleOther(req, path);
    this.record({ ...rec, status: res.status, rejection: res.status === 404 ? "unknown route" : undefined });
    return res;
  }

  /** Files and Batches routes; openai-batch.ts fills this in. */
  protected async handleOther(_req: SimHttpRequest, path: string): Promise<SimHttpResponse> {
    return openaiError(404, `Invalid URL (${_req.method} ${path})`, "invalid_request_error");
  }

  /**
   * One Responses API request, live or from a batch: validated, then answered (or faulted) with its
   * usage billed to the ledger.
   */
  async respond(
    body: unknown,
    mode: "live" | "batch",
  ): Promise<{
    status: number;
    http: SimHttpResponse;
    json?: unknown;
    rejection?: string;
    fault?: SimFault["kind"];
  }> {
    let v: ReturnType<typeof validateResponses>;
    try {
      v = validateResponses(body);
    } catch (err) {
      if (!(err instanceof Reject)) throw err;
      const http = openaiError(
        err.status,
        err.message,
        "invalid_request_error",
        (err.extra.code as string) ?? null,
        (err.extra.param as string) ?? null,
      );
      return { status: err.status, http, json: JSON.parse(http.body), rejection: err.message };
    }
    const fault = this.takeFault(v.model);
    if (fault && fault.kind !== "refusal" && fault.kind !== "truncated") {
      const http = openaiFault(fault);
      return { status: http.status, http, json: JSON.parse(http.body), fault: fault.kind };
    }

    // prompt cache: looked up on arrival, written when the answer is sent
    const text = v.promptText;
    const total = countTokens(text);
    const ns = `${v.modelId}\u0000${v.cacheKey}`;
    const marks = checkpoints(v.facts.minCacheTokens, total, 128);
    const cached = longestCachedPrefix(this.cache, ns, text, marks);
    await this.generationDelay();

    const answer = answerText(
      this.answer({
        provider: "openai",
        model: v.model,
        system: v.system,
        prompt: v.prompt,
        schema: v.schema,
        maxOutputTokens: v.maxOutputTokens,
        mode,
      }),
    );
    const out = shapeOutput(
      answer,
      v.maxOutputTokens,
      v.facts.reasoning ? this.reasoningTokens : 0,
      fault?.kind === "truncated",
    );
    for (const m of marks) this.cache.write(ns, text.slice(0, m * 4), v.retentionMs);

    const usage: OpenAIUsage = {
      input_tokens: total,
      input_tokens_details: { cached_tokens: cached },
      output_tokens: out.outputTokens,
      output_tokens_details: { reasoning_tokens: out.reasoningTokens },
      total_tokens: total + out.outputTokens,
    };
    const id = this.ctx.nextId("resp_");
    this.ctx.ledger.record({
      provider: "openai",
      model: v.modelId,
      mode,
      requestId: id,
      inputTokens: total - cached,
      cachedInputTokens: cached,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: out.outputTokens,
      reasoningTokens: out.reasoningTokens,
    });

    const output: unknown[] = [];
    if (v.facts.reasoning) output.push({ type: "reasoning", id: this.ctx.nextId("rs_"), summary: [] });
    const msgId = this.ctx.nextId("msg_");
    if (fault?.kind === "refusal") {
      output.push({
        type: "message",
        id: msgId,
        status: "completed",
        role: "assistant",
        content: [{ type: "refusal", refusal: fault.message ?? "I'm sorry, but I can't help with that." }],
      });
    } else if (out.text.length > 0) {
      output.push({
        type: "message",
        id: msgId,
        status: out.truncated ? "incomplete" : "completed",
        role: "assistant",
        content: [{ type: "output_text", text: out.text, annotations: [], logprobs: [] }],
      });
    }
    const resBody = {
      id,
      object: "response",
      created_at: Math.floor(this.ctx.clock.now() / 1000),
      status: out.truncated ? "incomplete" : "completed",
      error: null,
      incomplete_details: out.truncated ? { reason: "max_output_tokens" } : null,
      instructions: null,
      max_output_tokens: v.maxOutputTokensSent,
      model: v.modelId,
      output,
      parallel_tool_calls: true,
      previous_response_id: null,
      prompt_cache_key: v.cacheKey || null,
      reasoning: v.facts.reasoning ? { effort: "medium", summary: null } : { effort: null, summary: null },
      store: true,
      temperature: v.facts.reasoning ? 1 : (v.temperature ?? 1),
      text: { format: v.format ?? { type: "text" } },
      tool_choice: "auto",
      tools: [],
      top_p: 1,
      truncation: "disabled",
      usage,
      user: null,
      metadata: {},
    };
    return { status: 200, http: json(200, resBody), json: resBody };
  }
}

function openaiFault(f: Exclude<SimFault, { kind: "refusal" | "truncated" }>): SimHttpResponse {
  switch (f.kind) {
    case "rate_limit": {
      const s = f.retryAfterSeconds ?? 1;
      return openaiError(
        429,
        `Rate limit reached for requests. Please try again in ${s}s.`,
        "requests",
        "rate_limit_exceeded",
        null,
        { "retry-after": String(s), "x-ratelimit-remaining-requests": "0" },
      );
    }
    case "overloaded":
      return openaiError(503, "The engine is currently overloaded, please try again later", "server_error");
    case "server_error":
      return openaiError(
        f.status ?? 500,
        "The server had an error while processing your request. Sorry about that!",
        "server_error",
      );
    case "unauthorized":
      return openaiError(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
  }
}

type InputText = { role: string; text: string };

/** Checks a Responses request as the API does; throws Reject with the API's message. */
export function validateResponses(body: unknown) {
  if (body === INVALID_JSON) {
    throw new Reject(400, "We could not parse the JSON body of your request.");
  }
  if (!isObject(body)) throw new Reject(400, "Invalid type for request body: expected an object.");
  for (const k of Object.keys(body)) {
    if (!RESPONSES_PARAMS.has(k))
      throw new Reject(400, `Unknown parameter: '${k}'.`, { param: k, code: "unknown_parameter" });
  }
  if (typeof body.model !== "string")
    throw new Reject(400, "Missing required parameter: 'model'.", {
      param: "model",
      code: "missing_required_parameter",
    });
  const m = resolveSimModel("openai", body.model);
  if (!m) {
    throw new Reject(400, `The requested model '${body.model}' does not exist.`, {
      param: "model",
      code: "model_not_found",
    });
  }
  if (body.input === undefined)
    throw new Reject(400, "Missing required parameter: 'input'.", {
      param: "input",
      code: "missing_required_parameter",
    });
  if (body.stream === true)
    throw new Reject(400, "The simulator answers non-streaming requests only.", { param: "stream" });

  const maxSent = body.max_output_tokens;
  if (maxSent !== undefined && maxSent !== null) {
    if (!isInt(maxSent))
      throw new Reject(400, "Invalid type for 'max_output_tokens': expected an integer.", {
        param: "max_output_tokens",
        code: "invalid_type",
      });
    if (maxSent < 16) {
      throw new Reject(
        400,
        `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${maxSent} instead.`,
        { param: "max_output_tokens", code: "integer_below_min_value" },
      );
    }
    if (maxSent > m.facts.maxOutputTokens) {
      throw new Reject(
        400,
        `max_output_tokens is too large: ${maxSent}. This model supports at most ${m.facts.maxOutputTokens} output tokens.`,
        { param: "max_output_tokens", code: "invalid_value" },
      );
    }
  }
  if (body.temperature !== undefined && body.temperature !== null) {
    if (m.facts.reasoning) {
      throw new Reject(400, "Unsupported parameter: 'temperature' is not supported with this model.", {
        param: "temperature",
        code: "unsupported_parameter",
      });
    }
    if (typeof body.temperature !== "number" || body.temperature < 0 || body.temperature > 2) {
      throw new Reject(400, `Invalid 'temperature': expected a number from 0 to 2.`, {
        param: "temperature",
        code: "invalid_value",
      });
    }
  }
  if (body.reasoning !== undefined && !m.facts.reasoning) {
    throw new Reject(400, "Unsupported parameter: 'reasoning.effort' is not supported with this model.", {
      param: "reasoning.effort",
      code: "unsupported_parameter",
    });
  }
  if (body.prompt_cache_key !== undefined && typeof body.prompt_cache_key !== "string") {
    throw new Reject(400, "Invalid type for 'prompt_cache_key': expected a string.", {
      param: "prompt_cache_key",
      code: "invalid_type",
    });
  }
  const retention = body.prompt_cache_retention;
  if (retention !== undefined && retention !== null && retention !== "in-memory" && retention !== "24h") {
    throw new Reject(
      400,
      `Invalid value: '${String(retention)}'. Supported values are: 'in-memory' and '24h'.`,
      { param: "prompt_cache_retention", code: "invalid_value" },
    );
  }

  const { format, schema } = validateTextFormat(body.text);
  const items = inputItems(body.input);
  const instructions = typeof body.instructions === "string" ? body.instructions : "";
  const system = [
    instructions,
    ...items.filter((i) => i.role === "system" || i.role === "developer").map((i) => i.text),
  ]
    .filter(Boolean)
    .join("\n");
  const prompt = items
    .filter((i) => i.role === "user")
    .map((i) => i.text)
    .join("\n");
  // the canonical serialisation the cache and the token count read: schema, instructions, then the turns in order
  const promptText = [
    format ? `format:${JSON.stringify(format)}` : "",
    instructions ? `instructions:${instructions}` : "",
    ...items.map((i) => `${i.role}:${i.text}`),
  ].join("\n");
  return {
    model: body.model,
    modelId: m.id,
    facts: m.facts,
    system,
    prompt,
    schema,
    format,
    promptText,
    temperature: body.temperature as number | undefined,
    maxOutputTokensSent: (maxSent as number | undefined) ?? null,
    // no limit sent: the model's own maximum
    maxOutputTokens: (maxSent as number | undefined) ?? m.facts.maxOutputTokens,
    cacheKey: typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : "",
    retentionMs: retention === "24h" ? DAY : FIVE_MIN,
  };
}

function inputItems(input: unknown): InputText[] {
  if (typeof input === "string") return [{ role: "user", text: input }];
  if (!Array.isArray(input))
    throw new Reject(400, "Invalid type for 'input': expected a string or an array.", {
      param: "input",
      code: "invalid_type",
    });
  return input.map((item, i) => {
    if (!isObject(item))
      throw new Reject(400, `Invalid type for 'input[${i}]': expected an object.`, { param: `input[${i}]` });
    if (item.type !== undefined && item.type !== "message") {
      throw new Reject(
        400,
        `Invalid value: '${String(item.type)}'. Only 'message' input items are accepted by the simulator.`,
        { param: `input[${i}].type` },
      );
    }
    const role = item.role;
    if (role !== "user" && role !== "system" && role !== "developer" && role !== "assistant") {
      throw new Reject(
        400,
        `Invalid value: '${String(role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
        { param: `input[${i}].role`, code: "invalid_value" },
      );
    }
    if (typeof item.content === "string") return { role, text: item.content };
    if (!Array.isArray(item.content))
      throw new Reject(400, `Missing required parameter: 'input[${i}].content'.`, {
        param: `input[${i}].content`,
      });
    const want = role === "assistant" ? "output_text" : "input_text";
    const text = item.content
      .map((c, j) => {
        if (!isObject(c) || c.type !== want || typeof c.text !== "string") {
          throw new Reject(
            400,
            `Invalid value: '${isObject(c) ? String(c.type) : typeof c}'. Supported values are: '${want}'.`,
            { param: `input[${i}].content[${j}].type`, code: "invalid_value" },
          );
        }
        return c.text;
      })
      .join("");
    return { role, text };
  });
}

function validateTextFormat(text: unknown): {
  format?: Record<string, unknown>;
  schema?: Record<string, unknown>;
} {
  if (text === undefined) return {};
  if (!isObject(text))
    throw new Reject(400, "Invalid type for 'text': expected an object.", { param: "text" });
  const f = text.format;
  if (f === undefined) return {};
  if (!isObject(f))
    throw new Reject(400, "Invalid type for 'text.format': expected an object.", { param: "text.format" });
  if (f.type === "text" || f.type === "json_object") return { format: f };
  if (f.type !== "json_schema") {
    throw new Reject(
      400,
      `Invalid value: '${String(f.type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
      { param: "text.format.type", code: "invalid_value" },
    );
  }
  if (typeof f.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(f.name)) {
    throw new Reject(400, "Missing required parameter: 'text.format.name'.", {
      param: "text.format.name",
      code: "missing_required_parameter",
    });
  }
  if (!isObject(f.schema))
    throw new Reject(400, "Missing required parameter: 'text.format.schema'.", {
      param: "text.format.schema",
    });
  if (f.strict === true) strictSchemaCheck(f.schema, f.name, []);
  return { format: f, schema: f.schema };
}

/** Strict mode's rules (platform.openai.com/docs/guides/structured-outputs#supported-schemas). */
function strictSchemaCheck(s: Record<string, unknown>, name: string, path: string[]): void {
  const ctx = `context=(${path.map((p) => `'${p}'`).join(", ")})`;
  if (s.type === "object") {
    if (s.additionalProperties !== false) {
      throw new Reject(
        400,
        `Invalid schema for response_format '${name}': In ${ctx}, 'additionalProperties' is required to be supplied and to be false.`,
        { param: "text.format.schema", code: "invalid_json_schema" },
      );
    }
    const props = isObject(s.properties) ? s.properties : {};
    const required = Array.isArray(s.required) ? s.required : [];
    for (const k of Object.keys(props)) {
      if (!required.includes(k)) {
        throw new Reject(
          400,
          `Invalid schema for response_format '${name}': In ${ctx}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${k}'.`,
          { param: "text.format.schema", code: "invalid_json_schema" },
        );
      }
      const p = props[k];
      if (isObject(p)) strictSchemaCheck(p, name, [...path, "properties", k]);
    }
  }
  if (s.type === "array" && isObject(s.items)) strictSchemaCheck(s.items, name, [...path, "items"]);
}
