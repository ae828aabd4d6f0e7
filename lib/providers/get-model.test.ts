import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { callModel } from "../judging/call-model";
import { defaultSettings } from "../settings/schema";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { getModel, keyPresence, parseJudgeId } from "./get-model";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

const fastSleep = async () => {};

describe("getModel through the real OpenAI-compatible provider", () => {
  it("calls the scripted server, survives a 429 with Retry-After, and reports usage", async () => {
    const env = { JURY_LOCAL_BASE_URL: server.baseURL };
    const model = getModel("local:some-model", { env });
    const before = server.requests.length;
    server.enqueue({ status: 429, retryAfter: 0 }, { json: { score: 8, reasoning: "fine" } });
    const waits: number[] = [];
    const r = await callModel({
      model,
      prompt: "Rate this on a scale of 1-10",
      schema: { type: "object", properties: { score: { type: "number" }, reasoning: { type: "string" } } },
      temperature: 0.8,
      timeoutMs: 5000,
      maxRetries: 3,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(JSON.parse(r.text)).toEqual({ score: 8, reasoning: "fine" });
    expect(r.attempts).toBe(2);
    expect(waits).toEqual([0]); // Retry-After: 0 honoured instead of the backoff
    expect(r.inputTokens).toBeGreaterThan(0);
    expect(r.outputTokens).toBeGreaterThan(0);
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[1].model).toBe("some-model");
    expect(sent[1].body.temperature).toBe(0.8);
    expect(sent[1].responseFormat?.type).toBe("json_schema");
  });

  it("honours a Retry-After in seconds on a 500", async () => {
    server.enqueue({ status: 500, retryAfter: 2 }, { text: "ok" });
    const waits: number[] = [];
    const r = await callModel({
      model: getModel("local:m", { env: { JURY_LOCAL_BASE_URL: server.baseURL } }),
      prompt: "hi",
      timeoutMs: 5000,
      maxRetries: 2,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(r.text).toBe("ok");
    expect(waits).toEqual([2000]);
  });

  it("returns prose-wrapped JSON as text rather than throwing", async () => {
    server.enqueue({ text: 'Sure! Here it is: {"score": 4, "reasoning": "meh"} hope that helps' });
    const r = await callModel({
      model: getModel("local:m", { env: { JURY_LOCAL_BASE_URL: server.baseURL } }),
      prompt: "rate",
      schema: { type: "object", properties: { score: { type: "number" } } },
      timeoutMs: 5000,
      maxRetries: 0,
    });
    expect(r.text).toContain('"score": 4');
  });

  it("gives up after maxRetries and says how many attempts it made", async () => {
    server.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    await expect(
      callModel({
        model: getModel("local:m", { env: { JURY_LOCAL_BASE_URL: server.baseURL } }),
        prompt: "x",
        timeoutMs: 5000,
        maxRetries: 2,
        sleep: fastSleep,
      }),
    ).rejects.toThrow(/HTTP 500.*after 3 attempts/);
  });

  it("does not retry a 400", async () => {
    const before = server.requests.length;
    server.enqueue({ status: 400, message: "bad request" });
    await expect(
      callModel({
        model: getModel("local:m", { env: { JURY_LOCAL_BASE_URL: server.baseURL } }),
        prompt: "x",
        timeoutMs: 5000,
        maxRetries: 5,
        sleep: fastSleep,
      }),
    ).rejects.toThrow(/HTTP 400.*after 1 attempt\)/);
    expect(server.requests.length - before).toBe(1);
  });

  it("times out a hanging call and retries it", async () => {
    server.enqueue({ hang: true }, { text: "late but fine" });
    const r = await callModel({
      model: getModel("local:m", { env: { JURY_LOCAL_BASE_URL: server.baseURL } }),
      prompt: "x",
      timeoutMs: 300,
      maxRetries: 1,
      sleep: fastSleep,
    });
    expect(r.text).toBe("late but fine");
    expect(r.attempts).toBe(2);
  });

  it("retries a truncated body and a malformed body", async () => {
    server.enqueue({ truncate: "half" }, { malformed: true }, { text: "whole" });
    const r = await callModel({
      model: getModel("local:m", { env: { JURY_LOCAL_BASE_URL: server.baseURL } }),
      prompt: "x",
      timeoutMs: 3000,
      maxRetries: 3,
      sleep: fastSleep,
    });
    expect(r.text).toBe("whole");
    expect(r.attempts).toBe(3);
  });

  it("streams when asked (SSE), for providers that stream", async () => {
    server.enqueue({ text: "streamed" });
    const res = await fetch(`${server.baseURL}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "x" }] }),
    });
    const body = await res.text();
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(body).toContain('"content":"streamed"');
    expect(body.trim().endsWith("data: [DONE]")).toBe(true);
  });
});

describe("provider resolution", () => {
  it("names the missing env var for each keyed provider", () => {
    expect(() => getModel("openai:gpt-5-mini", { env: {} })).toThrow(/OPENAI_API_KEY/);
    expect(() => getModel("anthropic:claude", { env: {} })).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => getModel("google:gemini", { env: {} })).toThrow(/GOOGLE_GENERATIVE_AI_API_KEY/);
    expect(() => getModel("local:llama", { env: {} })).toThrow(/JURY_LOCAL_BASE_URL/);
  });

  it("resolves a named endpoint from settings and names its key variable when missing", () => {
    const settings = {
      ...defaultSettings,
      endpoints: [
        {
          name: "openrouter",
          baseUrl: "https://openrouter.example/api/v1",
          apiKeyEnv: "JURY_OPENROUTER_API_KEY",
          enabled: true,
          models: ["x"],
        },
      ],
    };
    expect(() => getModel("openrouter:x", { settings, env: {} })).toThrow(/JURY_OPENROUTER_API_KEY/);
    expect(getModel("openrouter:x", { settings, env: { JURY_OPENROUTER_API_KEY: "k" } })).toBeTruthy();
    expect(() => getModel("nowhere:x", { settings, env: {} })).toThrow(/Unknown provider "nowhere"/);
  });

  it("never reads another variable for an endpoint's key, whatever the settings say", () => {
    // settings that bypassed the schema (an old row, a caller building them by hand)
    const settings = {
      endpoints: [
        { name: "evil", baseUrl: server.baseURL, apiKeyEnv: "OPENAI_API_KEY", enabled: true, models: ["x"] },
      ],
    };
    expect(() => getModel("evil:x", { settings, env: { OPENAI_API_KEY: "sk-openai-secret" } })).toThrow(
      /not allowed: its key may only come from JURY_EVIL_API_KEY/,
    );
  });

  it("sends an endpoint's key only to its own base URL, and follows no redirect with it", async () => {
    const other = await startScriptedServer();
    try {
      const key = "sk-endpoint-key-0123456789";
      const settings = {
        endpoints: [
          { name: "ep", baseUrl: server.baseURL, apiKeyEnv: "JURY_EP_API_KEY", enabled: true, models: ["m"] },
        ],
      };
      const env = { JURY_EP_API_KEY: key, OPENAI_API_KEY: "sk-openai-secret-value" };
      const before = server.requests.length;
      server.enqueue({ text: "hello" });
      const r = await callModel({
        model: getModel("ep:m", { settings, env }),
        prompt: "x",
        timeoutMs: 5000,
        maxRetries: 0,
      });
      expect(r.text).toBe("hello");
      expect(server.requests[before].headers.authorization).toBe(`Bearer ${key}`);
      expect(other.requests).toHaveLength(0);

      // a 307 to another server: the keep-alive transport does not follow it, and a 3xx is not retried
      const http = await import("node:http");
      const hop = http.createServer((_q, res) => {
        res.writeHead(307, { location: `${other.baseURL}/chat/completions` });
        res.end();
      });
      await new Promise<void>((ok) => hop.listen(0, "127.0.0.1", ok));
      const port = (hop.address() as import("node:net").AddressInfo).port;
      const viaHop = {
        endpoints: [{ ...settings.endpoints[0], baseUrl: `http://127.0.0.1:${port}/v1` }],
      };
      await expect(
        callModel({
          model: getModel("ep:m", { settings: viaHop, env }),
          prompt: "x",
          timeoutMs: 5000,
          maxRetries: 3,
        }),
      ).rejects.toThrow(/HTTP 307.*after 1 attempt\)/);
      hop.close();
      expect(other.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it("pins each built-in provider to its own URL, whatever OPENAI_BASE_URL or ANTHROPIC_BASE_URL say", async () => {
    const saved = { o: process.env.OPENAI_BASE_URL, a: process.env.ANTHROPIC_BASE_URL };
    process.env.OPENAI_BASE_URL = server.baseURL;
    process.env.ANTHROPIC_BASE_URL = server.baseURL;
    const seen: { url: string; init?: RequestInit }[] = [];
    // the built-in providers go through the global fetch: record where each request goes, answer nothing
    vi.stubGlobal("fetch", async (url: string | URL | Request, init?: RequestInit) => {
      seen.push({ url: String(url), init });
      return new Response(JSON.stringify({ error: { message: "stub" } }), { status: 400 });
    });
    const env = {
      OPENAI_API_KEY: "sk-o-12345678",
      ANTHROPIC_API_KEY: "sk-a-12345678",
      GOOGLE_GENERATIVE_AI_API_KEY: "g-12345678",
    };
    try {
      for (const spec of ["openai:m1", "anthropic:m1", "google:m1"]) {
        await callModel({
          model: getModel(spec, { env }),
          prompt: "x",
          timeoutMs: 5000,
          maxRetries: 0,
        }).catch(() => {});
      }
      expect(seen.map((s) => new URL(s.url).origin)).toEqual([
        "https://api.openai.com",
        "https://api.anthropic.com",
        "https://generativelanguage.googleapis.com",
      ]);
      // and a redirect is handed back as it is, never followed with the key header
      expect(seen.every((s) => s.init?.redirect === "manual")).toBe(true);
    } finally {
      vi.unstubAllGlobals();
      if (saved.o === undefined) delete process.env.OPENAI_BASE_URL;
      else process.env.OPENAI_BASE_URL = saved.o;
      if (saved.a === undefined) delete process.env.ANTHROPIC_BASE_URL;
      else process.env.ANTHROPIC_BASE_URL = saved.a;
    }
  });

  it("a built-in provider's SDK is loaded on the model's first call, not when the model is made", async () => {
    const model = getModel("anthropic:lazy-1", { env: { ANTHROPIC_API_KEY: "sk-a-lazy-12345678" } });
    if (typeof model === "string") throw new Error("a model object was expected");
    expect(model.provider).toBe("anthropic"); // nothing loaded yet
    const urls = await model.supportedUrls; // asks the SDK: loads it
    expect(urls).toBeTypeOf("object");
    expect(model.provider).toBe("anthropic.messages"); // now the SDK's own model answers
    // the key is still checked at once, before anything loads
    expect(() => getModel("anthropic:lazy-2", { env: {} })).toThrow(/ANTHROPIC_API_KEY/);
  });

  it("splits provider:model at the first colon (ollama tags keep theirs)", () => {
    expect(parseJudgeId("local:llama3.1:8b")).toEqual({ provider: "local", model: "llama3.1:8b" });
    expect(() => parseJudgeId("gpt-4o")).toThrow(/provider:model/);
  });

  it("reuses one model object per spec and key", () => {
    const env = { OPENAI_API_KEY: "sk-a" };
    expect(getModel("openai:m", { env })).toBe(getModel("openai:m", { env }));
    expect(getModel("openai:m", { env })).not.toBe(getModel("openai:m", { env: { OPENAI_API_KEY: "sk-b" } }));
  });

  it("reports key presence without values", () => {
    const out = keyPresence({ OPENAI_API_KEY: "sk-secret-value" });
    expect(out.find((k) => k.name === "OPENAI_API_KEY")?.present).toBe(true);
    expect(out.find((k) => k.name === "ANTHROPIC_API_KEY")?.present).toBe(false);
    expect(JSON.stringify(out)).not.toContain("sk-secret-value");
  });

  it("mock provider is deterministic and fills the asked schema inside the prompt's scale", async () => {
    const model = getModel("mock:judge");
    const ask = () =>
      callModel({
        model,
        prompt: "Rate on a scale of 1-5",
        schema: { type: "object", properties: { score: { type: "number" }, reasoning: { type: "string" } } },
        timeoutMs: 1000,
        maxRetries: 0,
      });
    const a = JSON.parse((await ask()).text);
    const b = JSON.parse((await ask()).text);
    expect(a).toEqual(b);
    expect(a.score).toBeGreaterThanOrEqual(1);
    expect(a.score).toBeLessThanOrEqual(5);
    expect(a.reasoning).toMatch(/not a model/);
  });
});
