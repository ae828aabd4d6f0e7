import { describe, expect, it } from "vitest";
import { bufferedResponse } from "./buffered-response";

// keepAliveFetch hands the AI SDK this instead of new Response(buffer): it must read the same.
const raw = { "Content-Type": "application/json", "x-b": ["1", "2"], "retry-after": "3" };
const text = JSON.stringify({ score: 7, reasoning: "é ok" });
const make = (data: Buffer | null = Buffer.from(text), status = 200) =>
  bufferedResponse(data, { status, statusText: "OK", headers: raw, url: "http://127.0.0.1/x" });
const real = (status = 200) =>
  new Response(text, {
    status,
    statusText: "OK",
    headers: [
      ["content-type", "application/json"],
      ["x-b", "1"],
      ["x-b", "2"],
      ["retry-after", "3"],
    ],
  });

describe("bufferedResponse reads as a Response does", () => {
  it("status, ok, headers (any case, joined, sorted as fetch iterates them)", () => {
    const a = make();
    const b = real();
    expect([a.status, a.ok, a.statusText]).toEqual([b.status, b.ok, b.statusText]);
    expect(a.headers.get("CONTENT-TYPE")).toBe(b.headers.get("content-type"));
    expect(a.headers.get("x-b")).toBe(b.headers.get("x-b"));
    expect(a.headers.get("missing")).toBeNull();
    expect([...a.headers]).toEqual([...b.headers]);
    expect(Object.fromEntries([...a.headers])).toEqual(Object.fromEntries([...b.headers]));
    expect(make(null, 429).ok).toBe(false);
  });

  it("text, json, arrayBuffer and bytes give the body; a body is read once", async () => {
    expect(await make().text()).toBe(text);
    expect(await make().json()).toEqual(JSON.parse(text));
    expect(new TextDecoder().decode(await make().arrayBuffer())).toBe(text);
    expect(new TextDecoder().decode(await make().bytes())).toBe(text);
    const once = make();
    expect(once.bodyUsed).toBe(false);
    await once.text();
    expect(once.bodyUsed).toBe(true);
    await expect(once.text()).rejects.toThrow(TypeError);
    await expect(real().text()).resolves.toBe(text);
  });

  it("body: a reader yields the bytes then done (as the AI SDK reads it); other uses get a real stream", async () => {
    const reader = make().body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(text);
    expect((await reader.read()).done).toBe(true);
    await reader.cancel();
    reader.releaseLock();

    const piped = make().body!.pipeThrough(new TextDecoderStream());
    let out = "";
    for await (const chunk of piped as unknown as AsyncIterable<string>) out += chunk;
    expect(out).toBe(text);
    expect(make(null, 204).body).toBeNull();
  });

  it("clone gives an independent copy until the body is read", async () => {
    const a = make();
    const b = a.clone();
    expect(await a.text()).toBe(text);
    expect(await b.json()).toEqual(JSON.parse(text));
    expect(() => a.clone()).toThrow(TypeError);
  });
});
