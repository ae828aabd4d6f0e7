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
 * Gemini's generateContent (`POST /v1beta/models/{model}:generateContent`), from
 * ai.google.dev/api/generate-content, with implicit caching (ai.google.dev/gemini-api/docs/caching):
 * on for 2.5 models, a hit for an identical prefix of at least the model's minimum (1,024 tokens for
 * 2.5 Flash, 2,048 for Flash-Lite, 4,096 for 2.5 Pro) sent after an earlier request wrote it, reported
 * as `usageMetadata.cachedContentTokenCount` (included in `promptTokenCount`). Google documents no
 * granularity or lifetime for implicit caching: the simulator caches at 128-token steps for 5 minutes
 * from last use. Thinking models (2.5 Pro and Flash) spend `thoughtsTokenCount` within `maxOutputTokens`.
 *
 * Validation as the API does it: the key in `x-goog-api-key` (or `?key=`); a known model; `contents`
 * non-empty with roles user/model and text parts; unknown fields refused ("Unknown name … Cannot find
 * field"); `maxOutputTokens` from 1 to 65,536; temperature 0–2; `responseSchema` in the OpenAPI subset
 * the API accepts (no `additionalProperties`, no `$schema`).
 */

const REQUEST_FIELDS = new Set([
  "contents",
  "systemInstruction",
  "generationConfig",
  "safetySettings",
  "tools",
  "toolConfig",
  "cachedContent",
]);
const GENERATION_FIELDS = new Set([
  "maxOutputTokens",
  "temperature",
  "topK",
  "topP",
  "candidateCount",
  "stopSequences",
  "seed",
  "presencePenalty",
  "frequencyPenalty",
  "responseMimeType",
  "responseSchema",
  "responseJsonSchema",
  "responseModalities",
  "thinkingConfig",
  "mediaResolution",
  "responseLogprobs",
  "logprobs",
]);
const SCHEMA_FIELDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);
const FIVE_MIN = 5 * 60_000;

export type GeminiUsage = {
  promptTokenCount: number;
  candidatesTokenCount?: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  promptTokensDetails: { modality: "TEXT"; tokenCount: number }[];
};

export function googleError(
  code: number,
  status: string,
  message: string,
  details?: unknown[],
  headers: Record<string, string> = {},
): SimHttpResponse {
  return json(code, { error: { code, message, status, ...(details ? { details } : {}) } }, headers);
}

const unknownName = (name: string, at: string) =>
  new Reject(
    400,
    `Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ""}: Cannot find field.`,
  );

export class GeminiSim extends BaseSim {
  readonly provider = "google" as const;

  constructor(ctx: SimContext, cache: PrefixCache) {
    super(ctx, cache);
  }

  protected isGeneration(path: string): boolean {
    return /^\/v1beta\/models\/[^/]+:generateContent$/.test(path);
  }

  keyError(req: SimHttpRequest): SimHttpResponse | undefined {
    const key = req.headers.get("x-goog-api-key") ?? req.url.searchParams.get("key");
    if (!key) {
      return googleError(
        403,
        "PERMISSION_DENIED",
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
    }
    if (key !== this.ctx.keys.google) return invalidKey();
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
    const bad = this.keyError(req);
    if (bad) {
      this.record({ ...rec, status: bad.status, rejection: JSON.parse(bad.body).error.message });
      return bad;
    }
    const m = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(path);
    if (req.method !== "POST" || !m) {
      const res = googleError(404, "NOT_FOUND", `Not found: ${req.method} ${path}`);
      this.record({ ...rec, status: 404, rejection: "unknown route" });
      return res;
    }
    const res = await this.respond(decodeURIComponent(m[1]), body, "live");
    this.record({ ...rec, status: res.status, rejection: res.rejection, fault: res.fault });
    return res.http;
  }

  async respond(
    model: string,
    body: unknown,
    mode: "live" | "batch",
  ): Promise<{
    status: number;
    http: SimHttpResponse;
    json?: unknown;
    rejection?: string;
    fault?: SimFault["kind"];
  }> {
    let v: ReturnType<typeof validateGenerateContent>;
    try {
      v = validateGenerateContent(model, body);
    } catch (err) {
      if (!(err instanceof Reject)) throw err;
      const status = err.status === 404 ? "NOT_FOUND" : "INVALID_ARGUMENT";
      const http = googleError(err.status, status, err.message);
      return { status: err.status, http, json: JSON.parse(http.body), rejection: err.message };
    }
    const fault = this.takeFault(model);
    if (fault && fault.kind !== "refusal" && fault.kind !== "truncated") {
      const http = googleFault(fault, model);
      return { status: http.status, http, json: JSON.parse(http.body), fault: fault.kind };
    }

    const total = countTokens(v.promptText);
    const ns = v.modelId;
    const marks = checkpoints(v.facts.minCacheTokens, total, 128);
    const cached = longestCachedPrefix(this.cache, ns, v.promptText, marks);
    await this.generationDelay();

    const refused = fault?.kind === "refusal";
    const answer = answerText(
      this.answer({
        provider: "google",
        model,
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
      v.thinking ? this.reasoningTokens : 0,
      fault?.kind === "truncated",
    );
    for (const mk of marks) this.cache.write(ns, v.promptText.slice(0, mk * 4), FIVE_MIN);

    const thoughts = out.reasoningTokens;
    const candidates = refused ? 0 : out.outputTokens - thoughts;
    const usage: GeminiUsage = {
      promptTokenCount: total,
      ...(refused ? {} : { candidatesTokenCount: candidates }),
      totalTokenCount: total + candidates + thoughts,
      ...(cached ? { cachedContentTokenCount: cached } : {}),
      ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
      promptTokensDetails: [{ modality: "TEXT", tokenCount: total }],
    };
    const id = this.ctx.nextId("");
    this.ctx.ledger.record({
      provider: "google",
      model: v.modelId,
      mode,
      requestId: id,
      inputTokens: total - cached,
      cachedInputTokens: cached,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: candidates + thoughts,
      reasoningTokens: thoughts,
    });
    const candidate = refused
      ? {
          finishReason: "SAFETY",
          index: 0,
          safetyRatings: [
            { category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true },
          ],
        }
      : {
          content: { parts: out.text ? [{ text: out.text }] : [], role: "model" },
          finishReason: out.truncated ? "MAX_TOKENS" : "STOP",
          index: 0,
        };
    const resBody = {
      candidates: [candidate],
      usageMetadata: usage,
      modelVersion: v.modelId,
      responseId: id,
    };
    return { status: 200, http: json(200, resBody), json: resBody };
  }
}

function invalidKey(): SimHttpResponse {
  return googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "API_KEY_INVALID",
      domain: "googleapis.com",
      metadata: { service: "generativelanguage.googleapis.com" },
    },
  ]);
}

function googleFault(
  f: Exclude<SimFault, { kind: "refusal" | "truncated" }>,
  model: string,
): SimHttpResponse {
  switch (f.kind) {
    case "rate_limit":
      // Google's 429 names its wait in the body only: no Retry-After header
      return googleError(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
        [
          {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            violations: [
              {
                quotaMetric: "generativelanguage.googleapis.com/generate_content_paid_tier_input_token_count",
                quotaId: "GenerateContentPaidTierInputTokensPerModelPerMinute",
                quotaDimensions: { location: "global", model },
              },
            ],
          },
          {
            "@type": "type.googleapis.com/google.rpc.Help",
            links: [
              {
                description: "Learn more about Gemini API quotas",
                url: "https://ai.google.dev/gemini-api/docs/rate-limits",
              },
            ],
          },
          { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${f.retryAfterSeconds ?? 1}s` },
        ],
      );
    case "overloaded":
      return googleError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.");
    case "server_error":
      return googleError(
        f.status ?? 500,
        "INTERNAL",
        "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
      );
    case "unauthorized":
      return invalidKey();
  }
}

function partsText(parts: unknown, at: string): string {
  if (!Array.isArray(parts) || parts.length === 0)
    throw new Reject(400, `* GenerateContentRequest.${at}.parts: contents.parts must not be empty.`);
  return parts
    .map((p, i) => {
      if (!isObject(p))
        throw new Reject(400, `Invalid JSON payload received. '${at}.parts[${i}]' must be an object.`);
      for (const k of Object.keys(p))
        if (k !== "text" && k !== "thought" && k !== "thoughtSignature")
          throw unknownName(k, `${at}.parts[${i}]`);
      if (typeof p.text !== "string")
        throw new Reject(
          400,
          `* GenerateContentRequest.${at}.parts[${i}].data: required oneof field 'data' must have one initialized field`,
        );
      return p.text;
    })
    .join("");
}

function checkSchema(s: unknown, at: string): void {
  if (!isObject(s)) throw new Reject(400, `Invalid JSON payload received. '${at}' must be an object.`);
  for (const k of Object.keys(s)) if (!SCHEMA_FIELDS.has(k)) throw unknownName(k, at);
  const t = String(s.type ?? "").toUpperCase();
  if (
    s.type !== undefined &&
    !["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"].includes(t)
  ) {
    throw new Reject(
      400,
      `Invalid value at '${at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "${String(s.type)}"`,
    );
  }
  if (isObject(s.properties))
    for (const [k, p] of Object.entries(s.properties)) checkSchema(p, `${at}.properties[${k}].value`);
  if (s.items !== undefined) checkSchema(s.items, `${at}.items`);
  if (t === "OBJECT" && isObject(s.properties) && Object.keys(s.properties).length === 0) {
    throw new Reject(400, `* GenerateContentRequest.${at}.properties: should be non-empty for OBJECT type`);
  }
}

/** Checks a generateContent request as the API does; throws Reject with the API's message. */
export function validateGenerateContent(model: string, body: unknown) {
  const m = resolveSimModel("google", model);
  if (!m)
    throw new Reject(
      404,
      `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
    );
  if (body === INVALID_JSON) throw new Reject(400, "Invalid JSON payload received. Unexpected token.");
  if (!isObject(body)) throw new Reject(400, "Invalid JSON payload received. Expected an object.");
  for (const k of Object.keys(body)) if (!REQUEST_FIELDS.has(k)) throw unknownName(k, "");
  if (!Array.isArray(body.contents) || body.contents.length === 0)
    throw new Reject(400, "* GenerateContentRequest.contents: contents is not specified");
  const g = body.generationConfig ?? {};
  if (!isObject(g))
    throw new Reject(400, "Invalid JSON payload received. 'generation_config' must be an object.");
  for (const k of Object.keys(g)) if (!GENERATION_FIELDS.has(k)) throw unknownName(k, "generation_config");
  const maxSent = g.maxOutputTokens;
  if (maxSent !== undefined) {
    if (!isInt(maxSent) || maxSent < 1 || maxSent > m.facts.maxOutputTokens) {
      throw new Reject(
        400,
        `Unable to submit request because it has a maxOutputTokens value of ${String(maxSent)} but the supported range is from 1 (inclusive) to ${m.facts.maxOutputTokens + 1} (exclusive). Update the value and try again.`,
      );
    }
  }
  if (
    g.temperature !== undefined &&
    (typeof g.temperature !== "number" || g.temperature < 0 || g.temperature > 2)
  ) {
    throw new Reject(
      400,
      `Unable to submit request because it has a temperature value of ${String(g.temperature)} but the supported range is from 0 (inclusive) to 2.0001 (exclusive). Update the value and try again.`,
    );
  }
  if (g.responseSchema !== undefined) {
    if (g.responseMimeType !== "application/json")
      throw new Reject(
        400,
        "* GenerateContentRequest.generation_config.response_schema: response_mime_type must be application/json when response_schema is set",
      );
    checkSchema(g.responseSchema, "generation_config.response_schema");
  }
  let thinking = m.facts.reasoning;
  if (g.thinkingConfig !== undefined) {
    const t = g.thinkingConfig;
    if (!isObject(t))
      throw new Reject(400, "Invalid JSON payload received. 'thinking_config' must be an object.");
    for (const k of Object.keys(t))
      if (k !== "thinkingBudget" && k !== "includeThoughts")
        throw unknownName(k, "generation_config.thinking_config");
    if (t.thinkingBudget === 0) {
      if (m.id === "gemini-2.5-pro")
        throw new Reject(400, "Budget 0 is invalid. This model only works in thinking mode.");
      thinking = false;
    } else if (isInt(t.thinkingBudget) && t.thinkingBudget > 0) thinking = true;
  }
  let system = "";
  if (body.systemInstruction !== undefined) {
    const si = body.systemInstruction;
    if (!isObject(si))
      throw new Reject(400, "Invalid JSON payload received. 'system_instruction' must be an object.");
    for (const k of Object.keys(si))
      if (k !== "parts" && k !== "role") throw unknownName(k, "system_instruction");
    system = partsText(si.parts, "system_instruction");
  }
  const turns = body.contents.map((c, i) => {
    if (!isObject(c))
      throw new Reject(400, `Invalid JSON payload received. 'contents[${i}]' must be an object.`);
    for (const k of Object.keys(c)) if (k !== "parts" && k !== "role") throw unknownName(k, `contents[${i}]`);
    if (c.role !== undefined && c.role !== "user" && c.role !== "model") {
      throw new Reject(400, `Please use a valid role: user, model.`);
    }
    return { role: (c.role as string | undefined) ?? "user", text: partsText(c.parts, `contents[${i}]`) };
  });
  const schema = isObject(g.responseSchema) ? g.responseSchema : undefined;
  const promptText = [
    schema ? `format:${JSON.stringify(schema)}` : "",
    system ? `system:${system}` : "",
    ...turns.map((t) => `${t.role}:${t.text}`),
  ].join("\n");
  return {
    modelId: m.id,
    facts: m.facts,
    system,
    prompt: turns
      .filter((t) => t.role === "user")
      .map((t) => t.text)
      .join("\n"),
    schema,
    promptText,
    thinking,
    // no limit sent: the model's own maximum
    maxOutputTokens: (maxSent as number | undefined) ?? m.facts.maxOutputTokens,
  };
}
