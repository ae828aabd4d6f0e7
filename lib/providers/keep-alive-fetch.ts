import http from "node:http";
import https from "node:https";
import zlib from "node:zlib";
import { MAX_REPLY_BYTES_ENV, maxReplyBytes, maxResponseBodyBytes } from "../env/limits";
import { isJuryError, JuryError } from "../errors";
import { bufferedResponse } from "./buffered-response";

/**
 * A `fetch` for OpenAI-compatible endpoints (Ollama, vLLM, llama.cpp, OpenRouter…), handed to the AI
 * SDK provider: node:http with keep-alive sockets, the body read whole before the Response is made.
 * Node's built-in fetch (undici plus web streams) costs about 0.3 ms of CPU more per call, and a
 * judge panel makes thousands of calls, most of them to a local server.
 *
 * It behaves as fetch does where the AI SDK can tell: network failures reject with
 * `TypeError("fetch failed", { cause })` (the SDK marks those retryable), an abort rejects with the
 * signal's reason, statuses and headers come through as they are, and it asks for and decodes gzip,
 * deflate and br bodies. A body cut short (the connection dropped mid-response) is a network failure
 * here: undici reports the same thing when the body is read. A redirect comes back as its 3xx, never
 * followed. Anything it does not handle (a Request object, a streamed body) goes to guardedFetch.
 *
 * Why not undici's `Agent` (measured with `npm run bench`, variants interleaved): undici waits one
 * event-loop turn (a setImmediate) before it reuses a keep-alive socket, so when a burst of answers
 * arrives the next requests all wait until every answer of the burst is processed. Through undici
 * `request()` or `dispatch()` the panel's wall time rose 5–13 % over this fetch (CPU per judgment
 * 3–8 % lower); through undici's `fetch` wall time and CPU both rose about 25 %.
 */

const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 256 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

/**
 * A response body past the limit (see lib/env/limits.ts: 8 × JURY_MAX_REPLY_BYTES, at least 1 MiB) is
 * refused rather than held in memory. The error is not a network failure: a retry would fetch it again.
 */
function tooLarge(limit: number): JuryError {
  return new JuryError(
    "reply_too_large",
    `reply too large: the response passed ${limit} bytes before it ended, cap ${maxReplyBytes()} bytes of text (${MAX_REPLY_BYTES_ENV})`,
  );
}

/**
 * The built-in fetch for what keepAliveFetch does not handle, and for the built-in providers: the body
 * read up to the size limit, and a redirect returned as the 3xx it is (an error, not retried) rather
 * than followed, so no key header goes on to another URL.
 */
export const guardedFetch: typeof fetch = (input, init) => guarded(fetch, input, init);

/** guardedFetch over another fetch: the provider simulators' in tests (see lib/providers/get-model.ts). */
export const guardFetch =
  (base: typeof fetch): typeof fetch =>
  (input, init) =>
    guarded(base, input, init);

async function guarded(
  base: typeof fetch,
  input: Parameters<typeof fetch>[0],
  init?: RequestInit,
): Promise<Response> {
  const res = await base(input, { ...init, redirect: "manual" });
  if (!res.body) return res;
  const limit = maxResponseBodyBytes();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw tooLarge(limit);
      chunks.push(value);
    }
  } catch (err) {
    await reader.cancel().catch(() => {});
    if (init?.signal?.aborted) throw init.signal.reason ?? err;
    throw isJuryError(err) ? err : failed(err);
  }
  return new Response(NO_BODY.has(res.status) ? null : Buffer.concat(chunks, size), {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

const NO_BODY = new Set([101, 204, 205, 304]);

const failed = (cause: unknown) => new TypeError("fetch failed", { cause });

/** Asked for unless the caller says otherwise, as fetch does; the answer is decoded below. */
const ACCEPT_ENCODING = "gzip, deflate, br";

/** The codings of a Content-Encoding header in the order to undo them, or null when one is unknown. */
function codings(header: string | undefined): string[] | null {
  if (!header) return [];
  const out = header
    .toLowerCase()
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c && c !== "identity");
  return out.every((c) => c === "gzip" || c === "x-gzip" || c === "deflate" || c === "br")
    ? out.reverse()
    : null; // as fetch does: a coding it cannot undo leaves the body as sent
}

/** Undoes the body's content codings; what they decode to is held to the same limit as the body. */
function decode(data: Buffer, header: string | undefined, limit: number): Buffer {
  const undo = codings(header);
  if (!undo || data.length === 0) return data;
  // fetch's leniency: a stream that stops without its trailer still gives what it decoded
  const opts = { maxOutputLength: limit, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  try {
    for (const c of undo) {
      if (c === "br") data = zlib.brotliDecompressSync(data, { maxOutputLength: limit });
      // "deflate" is zlib-wrapped by the RFC, raw from some servers: told apart by the first byte, as fetch does
      else if (c === "deflate")
        data = (data[0] & 0x0f) === 0x08 ? zlib.inflateSync(data, opts) : zlib.inflateRawSync(data, opts);
      else data = zlib.gunzipSync(data, opts);
    }
    return data;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(limit);
    throw failed(err);
  }
}

function headerRecord(h: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (h instanceof Headers) for (const [k, v] of h) out[k] = v;
  else if (Array.isArray(h)) for (const [k, v] of h) out[k.toLowerCase()] = v;
  else for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = String(v);
  return out;
}

export const keepAliveFetch: typeof fetch = (input, init) => {
  const body = init?.body;
  const plain = typeof input === "string" || input instanceof URL;
  if (!plain || (body != null && typeof body !== "string" && !(body instanceof Uint8Array))) {
    return guardedFetch(input, init);
  }
  const url = new URL(input);
  if (url.protocol !== "http:" && url.protocol !== "https:") return guardedFetch(input, init);
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);

  return new Promise<Response>((resolve, reject) => {
    const headers = headerRecord(init?.headers);
    if (body != null) headers["content-length"] = String(Buffer.byteLength(body));
    headers["accept-encoding"] ??= ACCEPT_ENCODING;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () => {
      settle(() => reject(signal?.reason));
      req.destroy();
    };
    const req = (url.protocol === "https:" ? https : http).request(
      url,
      { method: init?.method ?? "GET", headers, agent: agents[url.protocol as keyof typeof agents] },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const limit = maxResponseBodyBytes();
        const encoding = res.headers["content-encoding"];
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > limit) {
            settle(() => reject(tooLarge(limit)));
            req.destroy();
          } else chunks.push(c);
        });
        res.on("error", (err) => settle(() => reject(failed(err))));
        res.on("close", () => {
          if (!res.complete) {
            settle(() => reject(failed(new Error("the connection closed before the response body ended"))));
            return;
          }
          const status = res.statusCode ?? 0;
          settle(() => {
            try {
              // as new Response() does: a status fetch cannot represent is refused
              if (status < 200 || status > 599) throw new RangeError(`status ${status} is outside 200–599`);
              const data = NO_BODY.has(status) ? null : decode(Buffer.concat(chunks, size), encoding, limit);
              resolve(
                bufferedResponse(data, {
                  status,
                  statusText: res.statusMessage,
                  headers: res.headers,
                  url: url.href,
                }),
              );
            } catch (err) {
              // a body too large once decoded, a corrupt one, or a status fetch cannot represent
              reject(isJuryError(err) || err instanceof TypeError ? err : failed(err));
            }
          });
        });
      },
    );
    req.on("error", (err) => settle(() => reject(failed(err))));
    signal?.addEventListener("abort", onAbort, { once: true });
    req.end(body ?? undefined);
  });
};
