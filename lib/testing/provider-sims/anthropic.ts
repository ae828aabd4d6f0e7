import { countTokens, type PrefixCache } from "./cache";
import {
  answerText,
  BaseSim,
  headerRecord,
  INVALID_JSON,
  isInt,
  isObject,
  json,
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
 * Anthropic's Messages API (`POST /v1/messages`), from docs.anthropic.com/en/api/messages, with
 * prompt caching as docs.anthropic.com/en/docs/build-with-claude/prompt-caching describes it: only
 * the prefixes that end at a `cache_control` breakpoint (at most 4, or the top-level `cache_control`
 * that marks the last block) are cached, in the order tools → system → messages, and only when the
 * prefix reaches the model's minimum (1,024 tokens for Sonnet 4.5 and Opus 4.1, 4,096 for Haiku 4.5
 * and Opus 4.5). A miss writes the prefix (`cache_creation_input_tokens`, billed 1.25 × input for the
 * default 5-minute ttl, 2 × for `ttl: "1h"`); a hit reads it (`cache_read_input_tokens`, 0.1 ×) and
 * renews its lifetime; `input_tokens` counts only what follows the last breakpoint read or written.
 * Message Batches are in anthropic-batch.ts.
 *
 * Validation as the API does it: `x-api-key` and `anthropic-version` headers; `model`, `max_tokens`
 * (1 to the model's limit) and `messages` required; extra fields refused; temperature 0–1; content
 * blocks of type text; `output_config.format` only for models with structured outputs, with closed objects.
 */

const MESSAGE_PARAMS = new Set([
  "model",
  "messages",
  "max_tokens",
  "system",
  "temperature",
  "top_k",
  "top_p",
  "stop_sequences",
  "stream",
  "metadata",
  "tools",
  "tool_choice",
  "thinking",
  "output_config",
  "service_tier",
  "cache_control",
]);

const TTL_MS = { "5m": 5 * 60_000, "1h": 3_600_000 } as const;
type Ttl = keyof typeof TTL_MS;

export type AnthropicUsage = {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  service_tier: "standard" | "batch";
};

export function anthropicError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): SimHttpResponse {
  return json(status, { type: "error", error: { type, message }, request_id: `req_sim_${status}` }, headers);
}

export class AnthropicSim extends BaseSim {
  readonly provider = "anthropic" as const;

  constructor(ctx: SimContext, cache: PrefixCache) {
    super(ctx, cache);
  }

  protected isGeneration(path: string): boolean {
    return path === "/v1/messages";
  }

  /** The header checks every endpoint makes; undefined when they pass. */
  headerError(headers: Headers): SimHttpResponse | undefined {
    const key = headers.get("x-api-key");
    if (!key) return anthropicError(401, "authentication_error", "x-api-key header is required");
    if (key !== this.ctx.keys.anthropic)
      return anthropicError(401, "authentication_error", "invalid x-api-key");
    const version = headers.get("anthropic-version");
    if (!version)
      return anthropicError(400, "invalid_request_error", "anthropic-version: header is required");
    if (version !== "2023-06-01" && version !== "2023-01-01") {
      return anthropicError(400, "invalid_request_error", `anthropic-version: invalid version ${version}`);
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
    const bad = this.headerError(req.headers);
    if (bad) {
      this.record({ ...rec, status: bad.status, rejection: JSON.parse(bad.body).error.message });
      return bad;
    }
    if (req.method === "POST" && path === "/v1/messages") {
      const res = await this.respond(body, "live");
      this.record({ ...rec, status: res.status, rejection: res.rejection, fault: res.fault });
      return res.http;
    }
    const res = await this.handleOther(req, path, body);
    this.record({ ...rec, status: res.status, rejection: res.status === 404 ? "unknown route" : undefined });
    return res;
  }

  /** Message Batches routes; anthropic-batch.ts fills this in. */
  protected async handleOther(req: SimHttpRequest, path: string, _body: unknown): Promise<SimHttpResponse> {
    return anthropicError(404, "not_found_error", `Not found: ${req.method} ${path}`);
  }

  /** One Messages request, live or from a batch: validated, answered (or faulted), billed. */
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
    let v: ReturnType<typeof validateMessages>;
    try {
      v = validateMessages(body);
    } catch (err) {
      if (!(err instanceof Reject)) throw err;
      const type = err.status === 404 ? "not_found_error" : "invalid_request_error";
      const http = anthropicError(err.status, type, err.message);
      return { status: err.status, http, json: JSON.parse(http.body), rejection: err.message };
    }
    const fault = this.takeFault(v.model);
    if (fault && fault.kind !== "refusal" && fault.kind !== "truncated") {
      const http = anthropicFault(fault);
      return { status: http.status, http, json: JSON.parse(http.body), fault: fault.kind };
    }

    const total = countTokens(v.promptText);
    const ns = v.modelId;
    // breakpoints that reach the model's minimum; shorter ones are ignored, as the API does
    const eligible = v.breakpoints
      .map((b) => ({ ...b, tokens: countTokens(v.promptText.slice(0, b.end)) }))
      .filter((b) => b.tokens >= v.facts.minCacheTokens);
    let read = 0;
    for (let i = eligible.length - 1; i >= 0; i--) {
      if (this.cache.lookup(ns, v.promptText.slice(0, eligible[i].end))) {
        read = eligible[i].tokens;
        break;
      }
    }
    if (eligible.length) read > 0 ? this.cache.hits++ : this.cache.misses++;
    // what is written: each eligible segment past the read point, at its breakpoint's ttl
    const write: Record<Ttl, number> = { "5m": 0, "1h": 0 };
    let from = read;
    for (const b of eligible) {
      if (b.tokens <= from) continue;
      write[b.ttl] += b.tokens - from;
      from = b.tokens;
    }
    await this.generationDelay();

    const answer = answerText(
      this.answer({
        provider: "anthropic",
        model: v.model,
        system: v.system,
        prompt: v.prompt,
        schema: v.schema,
        maxOutputTokens: v.maxTokens,
        mode,
      }),
    );
    const out = shapeOutput(answer, v.maxTokens, 0, fault?.kind === "truncated");
    for (const b of eligible) this.cache.write(ns, v.promptText.slice(0, b.end), TTL_MS[b.ttl]);

    const created = write["5m"] + write["1h"];
    const usage: AnthropicUsage = {
      input_tokens: total - read - created,
      cache_creation_input_tokens: created,
      cache_read_input_tokens: read,
      cache_creation: { ephemeral_5m_input_tokens: write["5m"], ephemeral_1h_input_tokens: write["1h"] },
      output_tokens: fault?.kind === "refusal" ? 1 : out.outputTokens,
      service_tier: mode === "batch" ? "batch" : "standard",
    };
    const id = this.ctx.nextId("msg_");
    this.ctx.ledger.record({
      provider: "anthropic",
      model: v.modelId,
      mode,
      requestId: id,
      inputTokens: usage.input_tokens,
      cachedInputTokens: read,
      cacheWrite5mTokens: write["5m"],
      cacheWrite1hTokens: write["1h"],
      outputTokens: usage.output_tokens,
      reasoningTokens: 0,
    });
    const refused = fault?.kind === "refusal";
    const resBody = {
      id,
      type: "message",
      role: "assistant",
      model: v.model,
      content: refused || out.text.length === 0 ? [] : [{ type: "text", text: out.text }],
      stop_reason: refused ? "refusal" : out.truncated ? "max_tokens" : "end_turn",
      stop_sequence: null,
      usage,
    };
    return { status: 200, http: json(200, resBody), json: resBody };
  }
}

function anthropicFault(f: Exclude<SimFault, { kind: "refusal" | "truncated" }>): SimHttpResponse {
  switch (f.kind) {
    case "rate_limit": {
      const s = f.retryAfterSeconds ?? 1;
      return anthropicError(
        429,
        "rate_limit_error",
        "This request would exceed your organization's rate limit of 50 requests per minute. Please try again later.",
        { "retry-after": String(s), "anthropic-ratelimit-requests-remaining": "0" },
      );
    }
    case "overloaded":
      return anthropicError(529, "overloaded_error", "Overloaded");
    case "server_error":
      return anthropicError(f.status ?? 500, "api_error", "Internal server error");
    case "unauthorized":
      return anthropicError(401, "authentication_error", "invalid x-api-key");
  }
}

type Block = { text: string; cache?: Ttl };

function cacheControl(c: unknown, where: string): Ttl | undefined {
  if (c === undefined) return undefined;
  if (!isObject(c) || c.type !== "ephemeral")
    throw new Reject(400, `${where}.cache_control.type: Input should be 'ephemeral'`);
  if (c.ttl === undefined) return "5m";
  if (c.ttl !== "5m" && c.ttl !== "1h")
    throw new Reject(400, `${where}.cache_control.ttl: Input should be '5m' or '1h'`);
  return c.ttl;
}

function textBlocks(content: unknown, where: string): Block[] {
  if (typeof content === "string") return [{ text: content }];
  if (!Array.isArray(content)) throw new Reject(400, `${where}: Input should be a valid list`);
  return content.map((b, i) => {
    const at = `${where}.${i}`;
    if (!isObject(b)) throw new Reject(400, `${at}: Input should be a valid dictionary`);
    if (b.type !== "text")
      throw new Reject(
        400,
        `${at}.type: Input tag '${String(b.type)}' is not supported by the simulator (text only)`,
      );
    if (typeof b.text !== "string") throw new Reject(400, `${at}.text: Field required`);
    if (b.text.length === 0) throw new Reject(400, `${at}: text content blocks must be non-empty`);
    for (const k of Object.keys(b)) {
      if (k !== "type" && k !== "text" && k !== "cache_control" && k !== "citations")
        throw new Reject(400, `${at}.${k}: Extra inputs are not permitted`);
    }
    return { text: b.text, cache: cacheControl(b.cache_control, at) };
  });
}

/** Checks a Messages request as the API does; throws Reject with the API's message. */
export function validateMessages(body: unknown) {
  if (body === INVALID_JSON)
    throw new Reject(400, "There was an error parsing the body of your request as JSON.");
  if (!isObject(body)) throw new Reject(400, "Input should be a valid dictionary");
  for (const k of Object.keys(body)) {
    if (!MESSAGE_PARAMS.has(k)) throw new Reject(400, `${k}: Extra inputs are not permitted`);
  }
  if (typeof body.model !== "string") throw new Reject(400, "model: Field required");
  const m = resolveSimModel("anthropic", body.model);
  if (!m) throw new Reject(404, `model: ${body.model}`);
  if (body.max_tokens === undefined) throw new Reject(400, "max_tokens: Field required");
  if (!isInt(body.max_tokens) || body.max_tokens < 1)
    throw new Reject(400, "max_tokens: Input should be greater than or equal to 1");
  if (body.max_tokens > m.facts.maxOutputTokens) {
    throw new Reject(
      400,
      `max_tokens: ${body.max_tokens} > ${m.facts.maxOutputTokens}, which is the maximum allowed number of output tokens for ${body.model}`,
    );
  }
  if (body.stream === true)
    throw new Reject(400, "stream: the simulator answers non-streaming requests only");
  if (
    body.temperature !== undefined &&
    (typeof body.temperature !== "number" || body.temperature < 0 || body.temperature > 1)
  ) {
    throw new Reject(400, "temperature: Input should be less than or equal to 1");
  }
  if (body.thinking !== undefined) {
    const t = body.thinking;
    if (!isObject(t) || (t.type !== "disabled" && t.type !== "enabled"))
      throw new Reject(400, "thinking.type: Input should be 'enabled' or 'disabled'");
    if (
      t.type === "enabled" &&
      (!isInt(t.budget_tokens) || t.budget_tokens < 1024 || t.budget_tokens >= body.max_tokens)
    ) {
      throw new Reject(400, "thinking.budget_tokens: must be at least 1024 and less than max_tokens");
    }
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw new Reject(400, "messages: at least one message is required");

  let schema: Record<string, unknown> | undefined;
  const segments: Block[] = [];
  if (body.output_config !== undefined) {
    const oc = body.output_config;
    if (!isObject(oc)) throw new Reject(400, "output_config: Input should be a valid dictionary");
    for (const k of Object.keys(oc))
      if (k !== "format" && k !== "effort")
        throw new Reject(400, `output_config.${k}: Extra inputs are not permitted`);
    if (oc.format !== undefined) {
      if (!m.facts.structuredOutputs)
        throw new Reject(400, `'${body.model}' does not support output_config.format`);
      const f = oc.format;
      if (!isObject(f) || f.type !== "json_schema" || !isObject(f.schema))
        throw new Reject(400, "output_config.format: expected {type: 'json_schema', schema}");
      closedObjects(f.schema, "output_config.format.schema");
      schema = f.schema;
      segments.push({ text: `format:${JSON.stringify(f.schema)}` });
    }
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) throw new Reject(400, "tools: Input should be a valid list");
    body.tools.forEach((t, i) => {
      if (!isObject(t) || typeof t.name !== "string" || !isObject(t.input_schema))
        throw new Reject(400, `tools.${i}: a custom tool needs name and input_schema`);
      segments.push({
        text: `tool:${JSON.stringify({ ...t, cache_control: undefined })}`,
        cache: cacheControl(t.cache_control, `tools.${i}`),
      });
    });
  }
  const systemBlocks = body.system === undefined ? [] : textBlocks(body.system, "system");
  segments.push(...systemBlocks.map((b) => ({ ...b, text: `system:${b.text}` })));
  const userTexts: string[] = [];
  body.messages.forEach((msg, i) => {
    if (!isObject(msg)) throw new Reject(400, `messages.${i}: Input should be a valid dictionary`);
    if (msg.role !== "user" && msg.role !== "assistant")
      throw new Reject(400, `messages.${i}.role: Input should be 'user' or 'assistant'`);
    const blocks = textBlocks(msg.content, `messages.${i}.content`);
    if (blocks.length === 0) throw new Reject(400, `messages.${i}: all messages must have non-empty content`);
    if (msg.role === "user") userTexts.push(blocks.map((b) => b.text).join(""));
    segments.push(...blocks.map((b) => ({ ...b, text: `${msg.role}:${b.text}` })));
  });
  // top-level cache_control: automatic caching, a breakpoint on the last block
  const auto = cacheControl(body.cache_control, "cache_control");
  if (auto && segments.length)
    segments[segments.length - 1] = { ...segments[segments.length - 1], cache: auto };
  const marked = segments.filter((s) => s.cache).length;
  if (marked > 4)
    throw new Reject(400, `A maximum of 4 blocks with cache_control may be provided. Found ${marked}.`);

  let promptText = "";
  const breakpoints: { end: number; ttl: Ttl }[] = [];
  for (const s of segments) {
    promptText += `${s.text}\n`;
    if (s.cache) breakpoints.push({ end: promptText.length, ttl: s.cache });
  }
  return {
    model: body.model,
    modelId: m.id,
    facts: m.facts,
    maxTokens: body.max_tokens,
    system: systemBlocks.map((b) => b.text).join("\n"),
    prompt: userTexts.join("\n"),
    schema,
    promptText,
    breakpoints,
  };
}

/** Structured outputs accept only closed objects (`additionalProperties: false`). */
function closedObjects(s: Record<string, unknown>, where: string): void {
  if (s.type === "object" && s.additionalProperties !== false) {
    throw new Reject(
      400,
      `${where}: For 'object' type, 'additionalProperties' must be explicitly set to false`,
    );
  }
  if (isObject(s.properties))
    for (const [k, p] of Object.entries(s.properties))
      if (isObject(p)) closedObjects(p, `${where}.properties.${k}`);
  if (isObject(s.items)) closedObjects(s.items, `${where}.items`);
}
