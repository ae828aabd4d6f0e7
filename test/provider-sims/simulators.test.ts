// The provider simulators' own behaviour, over raw HTTP: what the tests that drive Jury through them rely on.
import { describe, expect, it } from "vitest";
import {
  countTokens,
  createProviderSims,
  type LedgerEntry,
  manualClock,
  resolveSimModel,
  SIM_KEYS,
  SIM_MODELS,
  type SimCall,
  simCost,
} from "@/lib/testing/provider-sims";

const OA = "https://api.openai.com/v1";
const AN = "https://api.anthropic.com/v1";
const GG = "https://generativelanguage.googleapis.com/v1beta";
const oaHeaders = { authorization: `Bearer ${SIM_KEYS.openai}`, "content-type": "application/json" };
const anHeaders = {
  "x-api-key": SIM_KEYS.anthropic,
  "anthropic-version": "2023-06-01",
  "content-type": "application/json",
};
const ggHeaders = { "x-goog-api-key": SIM_KEYS.google, "content-type": "application/json" };

type Sims = ReturnType<typeof createProviderSims>;
async function post(sims: Sims, url: string, headers: Record<string, string>, body: unknown) {
  const res = await sims.fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, any> };
}

/** A text of exactly `tokens` simulated tokens. */
const text = (tokens: number, fill = "a") => fill.repeat(tokens * 4);

describe("OpenAI Responses simulator", () => {
  const req = (system: string, user: string, extra: Record<string, unknown> = {}) => ({
    model: "gpt-4.1-mini",
    input: [
      { role: "system", content: system },
      { role: "user", content: [{ type: "input_text", text: user }] },
    ],
    max_output_tokens: 256,
    ...extra,
  });

  it("caches an identical prefix of 1,024+ tokens in 128-token steps, after a write, per prompt_cache_key", async () => {
    const sims = createProviderSims();
    const a = await post(sims, `${OA}/responses`, oaHeaders, req(text(1500), "q1"));
    expect(a.status).toBe(200);
    expect(a.json.usage.input_tokens_details.cached_tokens).toBe(0);
    const b = await post(sims, `${OA}/responses`, oaHeaders, req(text(1500), "q2"));
    const cached = b.json.usage.cached_tokens ?? b.json.usage.input_tokens_details.cached_tokens;
    // the shared prefix ends inside the user turn: the largest 1024 + 128k checkpoint below it
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect((cached - 1024) % 128).toBe(0);
    expect(cached).toBeLessThanOrEqual(b.json.usage.input_tokens);
    // another cache key routes elsewhere: a miss
    const c = await post(
      sims,
      `${OA}/responses`,
      oaHeaders,
      req(text(1500), "q3", { prompt_cache_key: "k1" }),
    );
    expect(c.json.usage.input_tokens_details.cached_tokens).toBe(0);
    // past its lifetime (5 minutes from last use): a miss
    sims.clock.advance(5 * 60_000 + 1);
    const d = await post(sims, `${OA}/responses`, oaHeaders, req(text(1500), "q4"));
    expect(d.json.usage.input_tokens_details.cached_tokens).toBe(0);
    sims.assertNoRejections();
  });

  it("never caches a prompt under 1,024 tokens, and requests in flight together all miss", async () => {
    const sims = createProviderSims();
    await post(sims, `${OA}/responses`, oaHeaders, req(text(900), "x"));
    const small = await post(sims, `${OA}/responses`, oaHeaders, req(text(900), "x"));
    expect(small.json.usage.input_tokens_details.cached_tokens).toBe(0);
    const together = await Promise.all(
      [1, 2, 3].map((i) => post(sims, `${OA}/responses`, oaHeaders, req(text(2000, "b"), `q${i}`))),
    );
    expect(together.map((r) => r.json.usage.input_tokens_details.cached_tokens)).toEqual([0, 0, 0]);
  });

  it("bills cached input at the cached rate in the ledger", async () => {
    const sims = createProviderSims();
    await post(sims, `${OA}/responses`, oaHeaders, req(text(1500), "q1"));
    const b = await post(sims, `${OA}/responses`, oaHeaders, req(text(1500), "q2"));
    const u = b.json.usage;
    const e = sims.ledger.entries[1];
    expect(e.cachedInputTokens).toBe(u.input_tokens_details.cached_tokens);
    // gpt-4.1-mini: $0.40 input, $0.10 cached, $1.60 output per million
    const expected =
      ((u.input_tokens - e.cachedInputTokens) * 0.4 + e.cachedInputTokens * 0.1 + u.output_tokens * 1.6) /
      1e6;
    expect(e.costUsd).toBeCloseTo(expected, 12);
  });

  it("refuses what the API refuses, in its error shape", async () => {
    const sims = createProviderSims();
    const bad = [
      [{ ...req("s", "u"), model: "gpt-5", temperature: 0 }, "temperature"],
      [{ ...req("s", "u"), max_output_tokens: 8 }, "max_output_tokens"],
      [{ ...req("s", "u"), max_output_tokens: 40_000 }, "max_output_tokens"],
      [{ ...req("s", "u"), maxTokens: 5 }, "maxTokens"],
      [{ ...req("s", "u"), model: "gpt-9" }, "model"],
      [{ model: "gpt-4.1-mini" }, "input"],
      [
        {
          ...req("s", "u"),
          text: {
            format: {
              type: "json_schema",
              name: "r",
              strict: true,
              schema: { type: "object", properties: { a: { type: "number" } } },
            },
          },
        },
        "text.format.schema",
      ],
    ] as const;
    for (const [body, param] of bad) {
      const r = await post(sims, `${OA}/responses`, oaHeaders, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.error.param).toBe(param);
      expect(r.json.error.type).toBe("invalid_request_error");
    }
    expect(sims.rejections()).toHaveLength(bad.length);
    expect(() => sims.assertNoRejections()).toThrow(/refused 7 request/);
    const key = await post(
      sims,
      `${OA}/responses`,
      { ...oaHeaders, authorization: `Bearer ${SIM_KEYS.anthropic}` },
      req("s", "u"),
    );
    expect(key.status).toBe(401);
    expect(key.json.error.code).toBe("invalid_api_key");
    expect(sims.ledger.entries).toHaveLength(0);
  });

  it("answers faults in OpenAI's shapes: 429 with retry-after, refusal item, incomplete status", async () => {
    const sims = createProviderSims();
    sims.openai.fail({ kind: "rate_limit", retryAfterSeconds: 7 });
    const limited = await post(sims, `${OA}/responses`, oaHeaders, req("s", "u"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(limited.json.error.code).toBe("rate_limit_exceeded");
    sims.openai.fail({ kind: "refusal" });
    const refused = await post(sims, `${OA}/responses`, oaHeaders, req("s", "u"));
    expect(refused.json.output.at(-1).content[0].type).toBe("refusal");
    sims.openai.fail({ kind: "truncated" });
    const cut = await post(sims, `${OA}/responses`, oaHeaders, { ...req("s", "u"), model: "gpt-5-mini" });
    expect(cut.json.status).toBe("incomplete");
    expect(cut.json.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(cut.json.usage.output_tokens).toBe(256);
    expect(cut.json.usage.output_tokens_details.reasoning_tokens).toBe(sims.openai.reasoningTokens);
    // a reasoning model whose thinking fills the limit has no text at all
    sims.openai.reasoningTokens = 300;
    const starved = await post(sims, `${OA}/responses`, oaHeaders, { ...req("s", "u"), model: "gpt-5-mini" });
    expect(starved.json.status).toBe("incomplete");
    expect(starved.json.output.some((o: { type: string }) => o.type === "message")).toBe(false);
  });

  it("runs a Batch API batch from an uploaded JSONL file, billed at half price", async () => {
    const sims = createProviderSims();
    const lines = [1, 2].map((i) =>
      JSON.stringify({ custom_id: `c${i}`, method: "POST", url: "/v1/responses", body: req("s", `u${i}`) }),
    );
    const form = new FormData();
    form.set("purpose", "batch");
    form.set("file", new Blob([lines.join("\n")]), "in.jsonl");
    const up = await sims.fetch(`${OA}/files`, {
      method: "POST",
      headers: { authorization: oaHeaders.authorization },
      body: form,
    });
    const file = (await up.json()) as { id: string };
    const created = await post(sims, `${OA}/batches`, oaHeaders, {
      input_file_id: file.id,
      endpoint: "/v1/responses",
      completion_window: "24h",
    });
    expect(created.json.status).toBe("in_progress");
    expect(sims.counts).toEqual({ batches: 1, batchRequests: 2 });
    await sims.processBatches();
    const done = (await (
      await sims.fetch(`${OA}/batches/${created.json.id}`, { headers: oaHeaders })
    ).json()) as Record<string, any>;
    expect(done.status).toBe("completed");
    expect(done.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });
    const out = await (
      await sims.fetch(`${OA}/files/${done.output_file_id}/content`, { headers: oaHeaders })
    ).text();
    const results = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(results.map((r) => r.custom_id)).toEqual(["c1", "c2"]);
    expect(results[0].response.status_code).toBe(200);
    const e = sims.ledger.entries[0];
    expect(e.mode).toBe("batch");
    expect(e.costUsd).toBeCloseTo(simCost("openai", "gpt-4.1-mini", "live", e) / 2, 12);
  });
});

describe("Anthropic Messages simulator", () => {
  const req = (
    system: { text: string; cache?: Record<string, unknown> }[],
    user: string,
    extra: Record<string, unknown> = {},
  ) => ({
    model: "claude-sonnet-4-5",
    max_tokens: 512,
    system: system.map((s) => ({
      type: "text",
      text: s.text,
      ...(s.cache ? { cache_control: s.cache } : {}),
    })),
    messages: [{ role: "user", content: [{ type: "text", text: user }] }],
    ...extra,
  });

  it("writes then reads the prefix up to a cache_control breakpoint past the model's minimum", async () => {
    const sims = createProviderSims();
    const sys = [{ text: text(1200), cache: { type: "ephemeral" } }];
    const a = await post(sims, `${AN}/messages`, anHeaders, req(sys, "q1"));
    expect(a.status).toBe(200);
    const prefix = a.json.usage.cache_creation_input_tokens;
    expect(prefix).toBeGreaterThanOrEqual(1200);
    expect(a.json.usage.cache_read_input_tokens).toBe(0);
    expect(a.json.usage.cache_creation.ephemeral_5m_input_tokens).toBe(prefix);
    const b = await post(sims, `${AN}/messages`, anHeaders, req(sys, "q2"));
    expect(b.json.usage.cache_read_input_tokens).toBe(prefix);
    expect(b.json.usage.cache_creation_input_tokens).toBe(0);
    // input_tokens: only what follows the breakpoint
    expect(b.json.usage.input_tokens).toBe(countTokens(`system:${text(1200)}\nuser:q2\n`) - prefix);
    // no breakpoint: no caching, whatever the length
    const c = await post(sims, `${AN}/messages`, anHeaders, req([{ text: text(1200) }], "q3"));
    expect(c.json.usage.cache_read_input_tokens + c.json.usage.cache_creation_input_tokens).toBe(0);
    // under the minimum (Haiku 4.5: 4,096): no caching
    const h = { ...req(sys, "q4"), model: "claude-haiku-4-5" };
    await post(sims, `${AN}/messages`, anHeaders, h);
    const h2 = await post(sims, `${AN}/messages`, anHeaders, h);
    expect(h2.json.usage.cache_read_input_tokens + h2.json.usage.cache_creation_input_tokens).toBe(0);
    sims.assertNoRejections();
  });

  it("bills a cache write at 1.25 × input (2 × for ttl 1h) and a read at 0.1 ×", async () => {
    const sims = createProviderSims();
    await post(
      sims,
      `${AN}/messages`,
      anHeaders,
      req([{ text: text(1200), cache: { type: "ephemeral", ttl: "1h" } }], "q"),
    );
    await post(
      sims,
      `${AN}/messages`,
      anHeaders,
      req([{ text: text(1200), cache: { type: "ephemeral", ttl: "1h" } }], "q"),
    );
    const [w, r] = sims.ledger.entries;
    expect(w.cacheWrite1hTokens).toBeGreaterThan(0);
    // claude-sonnet-4-5: $3 input, $15 output per million
    expect(w.costUsd).toBeCloseTo(
      (w.inputTokens * 3 + w.cacheWrite1hTokens * 6 + w.outputTokens * 15) / 1e6,
      12,
    );
    expect(r.costUsd).toBeCloseTo(
      (r.inputTokens * 3 + r.cachedInputTokens * 0.3 + r.outputTokens * 15) / 1e6,
      12,
    );
    // still alive after 59 minutes with ttl 1h
    sims.clock.advance(59 * 60_000);
    const late = await post(
      sims,
      `${AN}/messages`,
      anHeaders,
      req([{ text: text(1200), cache: { type: "ephemeral", ttl: "1h" } }], "q"),
    );
    expect(late.json.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it("refuses what the API refuses, in its error shape", async () => {
    const sims = createProviderSims();
    const five = Array.from({ length: 5 }, (_, i) => ({ text: `b${i}`, cache: { type: "ephemeral" } }));
    const cases: [Record<string, string>, unknown, RegExp][] = [
      [anHeaders, { ...req([], "u"), max_tokens: undefined }, /max_tokens: Field required/],
      [anHeaders, { ...req([], "u"), max_tokens: 64_001 }, /maximum allowed number of output tokens/],
      [anHeaders, req(five, "u"), /maximum of 4 blocks with cache_control/],
      [anHeaders, { ...req([], "u"), temperature: 1.5 }, /temperature/],
      [anHeaders, { ...req([], "u"), maxTokens: 5 }, /Extra inputs are not permitted/],
      [{ ...anHeaders, "anthropic-version": "" }, req([], "u"), /anthropic-version/],
    ];
    for (const [headers, body, message] of cases) {
      const r = await post(sims, `${AN}/messages`, headers, body);
      expect(r.status).toBe(400);
      expect(r.json.type).toBe("error");
      expect(r.json.error.type).toBe("invalid_request_error");
      expect(r.json.error.message).toMatch(message);
    }
    const key = await post(
      sims,
      `${AN}/messages`,
      { ...anHeaders, "x-api-key": SIM_KEYS.openai },
      req([], "u"),
    );
    expect(key.status).toBe(401);
    expect(key.json.error.type).toBe("authentication_error");
  });

  it("answers faults in Anthropic's shapes: 529 overloaded, 429 with retry-after, refusal, max_tokens", async () => {
    const sims = createProviderSims();
    sims.anthropic.fail({ kind: "overloaded" }).fail({ kind: "rate_limit", retryAfterSeconds: 3 });
    const over = await post(sims, `${AN}/messages`, anHeaders, req([], "u"));
    expect(over.status).toBe(529);
    expect(over.json.error.type).toBe("overloaded_error");
    const limited = await post(sims, `${AN}/messages`, anHeaders, req([], "u"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    sims.anthropic.fail({ kind: "refusal" });
    expect((await post(sims, `${AN}/messages`, anHeaders, req([], "u"))).json.stop_reason).toBe("refusal");
    sims.anthropic.fail({ kind: "truncated" });
    expect((await post(sims, `${AN}/messages`, anHeaders, req([], "u"))).json.stop_reason).toBe("max_tokens");
  });

  it("runs a Message Batch, with results once it has ended and cancel for pending ones", async () => {
    const sims = createProviderSims();
    const body = { requests: [1, 2, 3].map((i) => ({ custom_id: `r${i}`, params: req([], `u${i}`) })) };
    body.requests[2].params = { ...body.requests[2].params, max_tokens: 0 };
    const created = await post(sims, `${AN}/messages/batches`, anHeaders, body);
    expect(created.json.processing_status).toBe("in_progress");
    expect(created.json.request_counts.processing).toBe(3);
    const early = await sims.fetch(`${AN}/messages/batches/${created.json.id}/results`, {
      headers: anHeaders,
    });
    expect(early.status).toBe(400);
    await sims.processBatches();
    const got = (await (
      await sims.fetch(`${AN}/messages/batches/${created.json.id}`, { headers: anHeaders })
    ).json()) as Record<string, any>;
    expect(got.processing_status).toBe("ended");
    expect(got.request_counts).toMatchObject({ succeeded: 2, errored: 1 });
    const lines = (await (await sims.fetch(got.results_url, { headers: anHeaders })).text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.result.type)).toEqual(["succeeded", "succeeded", "errored"]);
    expect(lines[0].result.message.usage.service_tier).toBe("batch");
    expect(sims.ledger.entries.every((e) => e.mode === "batch")).toBe(true);
    const second = await post(sims, `${AN}/messages/batches`, anHeaders, {
      requests: [{ custom_id: "x", params: req([], "u") }],
    });
    const cancelled = await post(sims, `${AN}/messages/batches/${second.json.id}/cancel`, anHeaders, {});
    expect(cancelled.json.request_counts.canceled).toBe(1);
    expect(sims.counts).toEqual({ batches: 2, batchRequests: 4 });
  });
});

describe("Gemini generateContent simulator", () => {
  const req = (system: string, user: string, gen: Record<string, unknown> = {}) => ({
    systemInstruction: { parts: [{ text: system }] },
    contents: [{ role: "user", parts: [{ text: user }] }],
    generationConfig: { maxOutputTokens: 512, ...gen },
  });
  const url = (model = "gemini-2.5-flash") => `${GG}/models/${model}:generateContent`;

  it("implicitly caches an identical prefix past the model's minimum, after a write", async () => {
    const sims = createProviderSims();
    const a = await post(sims, url(), ggHeaders, req(text(1500), "q1"));
    expect(a.status).toBe(200);
    expect(a.json.usageMetadata.cachedContentTokenCount).toBeUndefined();
    expect(a.json.usageMetadata.thoughtsTokenCount).toBe(sims.google.reasoningTokens);
    const b = await post(sims, url(), ggHeaders, req(text(1500), "q2"));
    expect(b.json.usageMetadata.cachedContentTokenCount).toBeGreaterThanOrEqual(1024);
    // 2.5 Pro's minimum is 4,096: the same prompt never hits
    await post(sims, url("gemini-2.5-pro"), ggHeaders, req(text(1500), "q1"));
    const p = await post(sims, url("gemini-2.5-pro"), ggHeaders, req(text(1500), "q2"));
    expect(p.json.usageMetadata.cachedContentTokenCount).toBeUndefined();
    sims.assertNoRejections();
  });

  it("answers 429 with RetryInfo.retryDelay in the body and no Retry-After header", async () => {
    const sims = createProviderSims();
    sims.google.fail({ kind: "rate_limit", retryAfterSeconds: 22 });
    const r = await post(sims, url(), ggHeaders, req("s", "u"));
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBeNull();
    expect(r.json.error.status).toBe("RESOURCE_EXHAUSTED");
    expect(
      r.json.error.details.find((d: Record<string, string>) => d["@type"].endsWith("RetryInfo")).retryDelay,
    ).toBe("22s");
  });

  it("answers SAFETY and MAX_TOKENS as finish reasons", async () => {
    const sims = createProviderSims();
    sims.google.fail({ kind: "refusal" }).fail({ kind: "truncated" });
    const safety = await post(sims, url(), ggHeaders, req("s", "u"));
    expect(safety.json.candidates[0].finishReason).toBe("SAFETY");
    expect(safety.json.candidates[0].content).toBeUndefined();
    const cut = await post(sims, url(), ggHeaders, req("s", "u"));
    expect(cut.json.candidates[0].finishReason).toBe("MAX_TOKENS");
  });

  it("refuses what the API refuses, in its error shape", async () => {
    const sims = createProviderSims();
    const cases: [string, unknown, RegExp, number][] = [
      [url(), req("s", "u", { maxOutputTokens: 70_000 }), /maxOutputTokens/, 400],
      [url(), req("s", "u", { max_tokens: 10 }), /Unknown name "max_tokens"/, 400],
      [
        url(),
        req("s", "u", {
          responseMimeType: "application/json",
          responseSchema: {
            type: "object",
            properties: { a: { type: "number" } },
            additionalProperties: false,
          },
        }),
        /Unknown name "additionalProperties"/,
        400,
      ],
      [url(), { contents: [] }, /contents is not specified/, 400],
      [url("gemini-9"), req("s", "u"), /not found/, 404],
    ];
    for (const [u, body, message, status] of cases) {
      const r = await post(sims, u, ggHeaders, body);
      expect(r.status).toBe(status);
      expect(r.json.error.message).toMatch(message);
    }
    const key = await post(sims, url(), { ...ggHeaders, "x-goog-api-key": SIM_KEYS.openai }, req("s", "u"));
    expect(key.status).toBe(400);
    expect(key.json.error.details[0].reason).toBe("API_KEY_INVALID");
  });
});

describe("rates and scripting", () => {
  it("every model in the rate table resolves, and dated snapshots resolve to it", () => {
    for (const [id, facts] of Object.entries(SIM_MODELS))
      expect(resolveSimModel(facts.provider, id)?.id).toBe(id);
    expect(resolveSimModel("anthropic", "claude-haiku-4-5-20251001")?.id).toBe("claude-haiku-4-5");
    expect(resolveSimModel("openai", "claude-haiku-4-5")).toBeUndefined();
  });

  it("the answer function sees the request as the model would, on the clock given", async () => {
    const sims = createProviderSims({ clock: manualClock(0) });
    const seen: SimCall[] = [];
    sims.google.answer = (call) => {
      seen.push(call);
      return "plain text";
    };
    await post(sims, `${GG}/models/gemini-2.5-flash-lite:generateContent`, ggHeaders, {
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
    });
    expect(seen).toEqual([
      {
        provider: "google",
        model: "gemini-2.5-flash-lite",
        system: "Be brief.",
        prompt: "Hi",
        schema: undefined,
        maxOutputTokens: 65_536,
        mode: "live",
      },
    ]);
    const entry: LedgerEntry = sims.ledger.entries[0];
    expect(entry.reasoningTokens).toBe(0); // Flash-Lite does not think unless asked
    expect(sims.clock.now()).toBe(0);
  });
});

describe("routing", () => {
  it("sends no request anywhere but the three provider hosts", async () => {
    const sims = createProviderSims();
    await expect(
      sims.fetch("https://example.com/v1/responses", { method: "POST", body: "{}" }),
    ).rejects.toThrow(/fetch failed/);
  });
});
