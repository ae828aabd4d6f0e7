import { APICallError } from "@ai-sdk/provider";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { JuryError } from "../errors";
import { getModel } from "../providers/get-model";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { callModel, partialReply, retryDelayMs, retryInfoMs, truncateUtf8 } from "./call-model";

// Every model answer enters Jury through callModel: what it returns and throws is safe to store.
let server: ScriptedServer;
const KEY = "sk-callmodel-canary-5e4d3c2b1a";
beforeAll(async () => {
  server = await startScriptedServer();
  process.env.JURY_CALLTEST_API_KEY = KEY;
});
afterAll(async () => {
  delete process.env.JURY_CALLTEST_API_KEY;
  await server.close();
});
afterEach(() => {
  delete process.env.JURY_MAX_REPLY_BYTES;
});

const ask = (o: { schema?: Record<string, unknown>; maxRetries?: number } = {}) =>
  callModel({
    model: getModel("local:m", { env: { JURY_LOCAL_BASE_URL: server.baseURL } }),
    prompt: "rate",
    schema: o.schema,
    timeoutMs: 10_000,
    maxRetries: o.maxRetries ?? 0,
    sleep: async () => {},
  });
const judgmentSchema = {
  type: "object",
  properties: { score: { type: "number" }, reasoning: { type: "string" } },
};

describe("callModel redacts secrets where model text enters", () => {
  it("in a successful answer, plain or spelled with JSON escapes, and in the parsed fields", async () => {
    server.enqueue({ json: { score: 7, reasoning: `the key is ${KEY}` } });
    const plain = await ask({ schema: judgmentSchema });
    expect(plain.text).not.toContain(KEY);
    expect(JSON.parse(plain.text)).toEqual({ score: 7, reasoning: "the key is [redacted]" });

    // \u0073k-… hides the key from a plain search; JSON.parse would give it back in clear
    const escaped = `{"score": 5, "reasoning": "key \\u0073${KEY.slice(1)} and \\/ done"}`;
    server.enqueue({ text: escaped });
    const r = await ask();
    expect(r.text).not.toContain(KEY);
    expect(JSON.stringify(JSON.parse(r.text))).not.toContain(KEY);
    expect(JSON.parse(r.text).reasoning).toBe("key [redacted] and / done");
  });

  it("in an error, before the message is cut (no half key left at the cut)", async () => {
    server.enqueue({ status: 401, message: `${"x".repeat(280)} ${KEY} ${"y".repeat(100)}` });
    const err = await ask().catch((e) => e);
    expect(err).toBeInstanceOf(JuryError);
    expect(err.message).toMatch(/^HTTP 401: /);
    expect(err.message).not.toContain(KEY.slice(0, 12));
  });

  it("leaves ordinary text and short look-alikes alone", async () => {
    server.enqueue({ text: '{"score": 3, "reasoning": "sk-callmodel is a prefix \\u0041"}' });
    expect((await ask()).text).toBe('{"score": 3, "reasoning": "sk-callmodel is a prefix \\u0041"}');
  });
});

describe("callModel caps the reply size (JURY_MAX_REPLY_BYTES)", () => {
  it("a 1 MB reply is a reply_too_large error naming the cap, cut to the cap, not retried", async () => {
    const before = server.requests.length;
    server.enqueue({ json: { score: 7, reasoning: `${KEY} ${"a".repeat(1024 * 1024)}` } });
    const err = await ask({ schema: judgmentSchema, maxRetries: 3 }).catch((e) => e);
    expect(err).toBeInstanceOf(JuryError);
    expect(err.code).toBe("reply_too_large");
    expect(err.message).toMatch(/^reply too large: \d{7} bytes, cap 262144 \(JURY_MAX_REPLY_BYTES\)/);
    expect(server.requests.length - before).toBe(1);
    const kept = partialReply(err);
    expect(Buffer.byteLength(kept.rawText ?? "")).toBeLessThanOrEqual(262144);
    expect(kept.rawText?.length).toBeGreaterThan(262000);
    expect(kept.rawText).not.toContain(KEY);
    expect(kept.rawText?.startsWith('{"score":7,"reasoning":"[redacted] aaa')).toBe(true);
    expect(kept.outputTokens).toBeGreaterThan(0);
    // any other error carries nothing to store
    expect(partialReply(new Error("x"))).toEqual({});
  });

  it("follows JURY_MAX_REPLY_BYTES, and refuses a value that is not a size", async () => {
    process.env.JURY_MAX_REPLY_BYTES = "2048";
    server.enqueue({ text: "b".repeat(3000) });
    await expect(ask()).rejects.toThrow(/reply too large: 3000 bytes, cap 2048/);
    server.enqueue({ text: "b".repeat(2048) });
    expect((await ask()).text).toHaveLength(2048);
    process.env.JURY_MAX_REPLY_BYTES = "lots";
    await expect(ask()).rejects.toThrow(/JURY_MAX_REPLY_BYTES="lots" must be a whole number of bytes/);
  });

  it("a body far past the cap is cut off in the transport, once, not held whole or fetched again", async () => {
    process.env.JURY_MAX_REPLY_BYTES = "65536"; // transport limit: max(1 MiB, 8 × cap + 64 KiB) = 1 MiB
    const before = server.requests.length;
    server.enqueue({ text: "c".repeat(3 * 1024 * 1024) });
    const err = await ask({ maxRetries: 3 }).catch((e) => e);
    expect(err.code).toBe("reply_too_large");
    expect(err.message).toMatch(/the response passed 1048576 bytes before it ended, cap 65536/);
    expect(server.requests.length - before).toBe(1);
  });

  it("cuts UTF-8 at a character boundary", () => {
    expect(truncateUtf8("ab€", 4)).toBe("ab"); // € is 3 bytes: not cut in half
    expect(truncateUtf8("ab€", 5)).toBe("ab€");
    expect(truncateUtf8("é".repeat(10), 5)).toBe("éé");
  });
});

describe("callModel leaves nothing behind", () => {
  it("no timer and no listener on the caller's signal outlive an answered call", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const outer = new AbortController();
    let listeners = 0;
    const add = outer.signal.addEventListener.bind(outer.signal);
    const remove = outer.signal.removeEventListener.bind(outer.signal);
    outer.signal.addEventListener = ((...a: Parameters<typeof add>) => {
      if (a[0] === "abort") listeners++;
      return add(...a);
    }) as typeof add;
    outer.signal.removeEventListener = ((...a: Parameters<typeof remove>) => {
      if (a[0] === "abort") listeners--;
      return remove(...a);
    }) as typeof remove;
    const before = timers();
    for (let i = 0; i < 5; i++)
      await callModel({
        model: getModel("local:m", { env: { JURY_LOCAL_BASE_URL: server.baseURL } }),
        prompt: "rate",
        timeoutMs: 60_000,
        maxRetries: 0,
        signal: outer.signal,
      });
    // a 60 s time limit per call used to stay armed for a minute after each answer
    expect(timers()).toBeLessThanOrEqual(before); // 5 more before the fix
    expect(listeners).toBe(0);
  });
});

it("Google's RetryInfo.retryDelay in the error body is the wait, as Retry-After is elsewhere", () => {
  const body = JSON.stringify({
    error: {
      code: 429,
      status: "RESOURCE_EXHAUSTED",
      details: [
        { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [] },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "22s" },
      ],
    },
  });
  expect(retryInfoMs(body)).toBe(22_000);
  expect(retryInfoMs(body.replace('"22s"', '"1.5s"'))).toBe(1500);
  expect(retryInfoMs("not json RetryInfo")).toBeUndefined();
  const err = new APICallError({
    message: "quota",
    url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
    requestBodyValues: {},
    statusCode: 429,
    responseHeaders: {},
    responseBody: body,
  });
  expect(retryDelayMs(err, 1)).toBe(22_000);
});
