import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { keepAliveFetch } from "./keep-alive-fetch";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

const post = (init: RequestInit = {}) =>
  keepAliveFetch(`${server.baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    ...init,
  });

describe("keepAliveFetch (the OpenAI-compatible providers' fetch)", () => {
  it("returns status, headers and body as fetch does", async () => {
    server.enqueue({ json: { score: 7 } });
    const ok = await post();
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/application\/json/);
    expect(JSON.parse((await ok.json()).choices[0].message.content)).toEqual({ score: 7 });

    server.enqueue({ status: 429, retryAfter: 2 });
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(await limited.text()).toContain("scripted 429");
  });

  it("a body cut short is a network failure (TypeError: fetch failed), as undici reports it", async () => {
    server.enqueue({ truncate: '{"id":"x","choices":[{"mess' });
    const err = await post().catch((e) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe("fetch failed");
    expect(String(err.cause?.message)).toMatch(
      /closed before the response body ended|aborted|socket hang up/,
    );
  });

  it("an abort rejects with the signal's reason, also while the server hangs", async () => {
    server.enqueue({ hang: true });
    const started = Date.now();
    const err = await post({ signal: AbortSignal.timeout(150) }).catch((e) => e);
    expect(err.name).toBe("TimeoutError");
    expect(Date.now() - started).toBeLessThan(2_000);
    const gone = new AbortController();
    gone.abort(new Error("cancelled by the user"));
    await expect(post({ signal: gone.signal })).rejects.toThrow("cancelled by the user");
  });

  it("a refused connection is TypeError: fetch failed with the cause", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const err = await keepAliveFetch(`http://127.0.0.1:${port}/v1/x`).catch((e) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(err.cause?.code).toBe("ECONNREFUSED");
  });

  it("reuses one connection for calls made one after another", async () => {
    const sockets = new Set<unknown>();
    const plain = http.createServer((req, res) => {
      sockets.add(req.socket);
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    await new Promise<void>((r) => plain.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;
    try {
      for (let i = 0; i < 5; i++)
        expect(await (await keepAliveFetch(url, { method: "POST", body: "x" })).text()).toBe("ok");
      expect(sockets.size).toBe(1);
    } finally {
      plain.closeAllConnections();
      await new Promise((r) => plain.close(r));
    }
  });

  it("hands what it does not handle (a Request object) to the built-in fetch", async () => {
    server.enqueue({ json: { score: 3 } });
    const r = await keepAliveFetch(
      new Request(`${server.baseURL}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      }),
    );
    expect(r.status).toBe(200);
  });
});
