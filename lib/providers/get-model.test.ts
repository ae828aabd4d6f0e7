import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
          apiKeyEnv: "OPENROUTER_KEY",
          enabled: true,
          models: ["x"],
        },
      ],
    };
    expect(() => getModel("openrouter:x", { settings, env: {} })).toThrow(/OPENROUTER_KEY/);
    expect(getModel("openrouter:x", { settings, env: { OPENROUTER_KEY: "k" } })).toBeTruthy();
    expect(() => getModel("nowhere:x", { settings, env: {} })).toThrow(/Unknown provider "nowhere"/);
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
