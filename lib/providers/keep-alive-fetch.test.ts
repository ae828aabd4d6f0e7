import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxResponseBodyBytes } from "../env/limits";
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

/** A plain server on 127.0.0.1 for one test; returns its URL and a close function. */
async function plainServer(handler: http.RequestListener) {
  const s = http.createServer(handler);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/`,
    close: () => {
      s.closeAllConnections();
      return new Promise((r) => s.close(r));
    },
  };
}

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

  it("decodes a gzip body and says it accepts gzip, deflate and br", async () => {
    server.enqueue({ json: { score: 4 }, gzip: true });
    const r = await post();
    expect(r.headers.get("content-encoding")).toBe("gzip");
    expect(JSON.parse((await r.json()).choices[0].message.content)).toEqual({ score: 4 });
    expect(server.requests.at(-1)?.headers["accept-encoding"]).toBe("gzip, deflate, br");
  });

  it("decodes br and deflate (zlib-wrapped or raw); an unknown coding comes through as sent", async () => {
    const text = JSON.stringify({ ok: "é".repeat(1000) });
    const bodies: Record<string, [string, Buffer]> = {
      "/br": ["br", zlib.brotliCompressSync(text)],
      "/deflate": ["deflate", zlib.deflateSync(text)],
      "/raw-deflate": ["deflate", zlib.deflateRawSync(text)],
      "/both": ["deflate, gzip", zlib.gzipSync(zlib.deflateSync(text))],
      "/zstd": ["zstd", Buffer.from("opaque")],
    };
    const s = await plainServer((req, res) => {
      const [coding, body] = bodies[req.url ?? ""];
      res.writeHead(200, { "content-encoding": coding });
      res.end(body);
    });
    try {
      for (const p of ["br", "deflate", "raw-deflate", "both"])
        expect(await (await keepAliveFetch(`${s.url}${p}`)).text()).toBe(text);
      expect(await (await keepAliveFetch(`${s.url}zstd`)).text()).toBe("opaque");
    } finally {
      await s.close();
    }
  });

  it("a body past the limit is refused (reply_too_large), compressed or not, and not read to its end", async () => {
    const limit = maxResponseBodyBytes();
    let written = 0;
    const bomb = zlib.gzipSync(Buffer.alloc(limit + 1024, 0x20)); // a few kB that decode past the limit
    const s = await plainServer((req, res) => {
      if (req.url === "/bomb") {
        res.writeHead(200, { "content-encoding": "gzip" });
        res.end(bomb);
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const more = () => {
        // 50 MB offered, written only as fast as the client reads
        while (written < 50 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end();
      };
      more();
    });
    try {
      const big = await keepAliveFetch(s.url).catch((e) => e);
      expect(big.code).toBe("reply_too_large");
      expect(big.message).toMatch(new RegExp(`passed ${limit} bytes before it ended`));
      expect(written).toBeLessThan(limit + 8 * 1024 * 1024);
      expect(bomb.length).toBeLessThan(limit);
      const unzipped = await keepAliveFetch(`${s.url}bomb`).catch((e) => e);
      expect(unzipped.code).toBe("reply_too_large");
    } finally {
      await s.close();
    }
  });

  it("hands a redirect back as its 3xx, never following it (the key header stays home)", async () => {
    const other = await startScriptedServer();
    const hop = await plainServer((_q, res) => {
      res.writeHead(307, { location: `${other.baseURL}/chat/completions` });
      res.end();
    });
    try {
      const r = await keepAliveFetch(hop.url, {
        method: "POST",
        headers: { authorization: "Bearer sk-secret" },
        body: "{}",
      });
      expect(r.status).toBe(307);
      expect(r.headers.get("location")).toBe(`${other.baseURL}/chat/completions`);
      expect(other.requests).toHaveLength(0);
    } finally {
      await hop.close();
      await other.close();
    }
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

  it("an abort while the body arrives rejects with the signal's reason", async () => {
    const stop = new AbortController();
    const s = await plainServer((_q, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"partial":');
      setTimeout(() => stop.abort(new Error("stopped mid-body")), 50);
    });
    try {
      await expect(keepAliveFetch(s.url, { signal: stop.signal })).rejects.toThrow("stopped mid-body");
    } finally {
      await s.close();
    }
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
    const s = await plainServer((req, res) => {
      sockets.add(req.socket);
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    try {
      for (let i = 0; i < 5; i++)
        expect(await (await keepAliveFetch(s.url, { method: "POST", body: "x" })).text()).toBe("ok");
      expect(sockets.size).toBe(1);
    } finally {
      await s.close();
    }
  });

  it("hands what it does not handle (a Request object) to the built-in fetch", async () => {
    server.enqueue({ json: { score: 3 } });
    const r = await keepAliveFetch(
      new Request(`${server.baseURL}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-probe": "1" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      }),
    );
    expect(r.status).toBe(200);
    expect(server.requests.at(-1)?.headers["x-probe"]).toBe("1");
    expect(server.requests.at(-1)?.model).toBe("m");
  });
});
