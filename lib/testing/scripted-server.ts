import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";

/**
 * A scripted OpenAI-compatible server for tests and benchmarks. It answers
 * POST /v1/chat/completions from a script, and injects latency and faults.
 * It listens on 127.0.0.1 only.
 */

export type ChatMessage = { role: string; content: unknown };

export type ScriptRequest = {
  /** 0-based count of chat requests this server has received */
  index: number;
  model: string;
  messages: ChatMessage[];
  /** all message text joined, for matching */
  text: string;
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  responseFormat?: { type: string; json_schema?: { schema?: Record<string, unknown> } };
};

/** `gzip`: a json or text answer is sent gzip-compressed, with `content-encoding: gzip`. */
export type Reply = { delayMs?: number; gzip?: boolean } & (
  | { json: unknown }
  | { text: string }
  | { status: number; retryAfter?: number; message?: string }
  | { hang: true }
  | { truncate: string }
  | { malformed: true }
  | { raw: string; contentType: string }
);

export type Script = (req: ScriptRequest) => Reply | Promise<Reply>;

export type ScriptedServer = {
  url: string;
  /** base URL to give the AI SDK: `${url}/v1` */
  baseURL: string;
  port: number;
  requests: ScriptRequest[];
  setScript(script: Script): void;
  /** replies consumed first-in first-out before the script is asked */
  enqueue(...replies: Reply[]): void;
  /** the most chat requests that were open at once since the last reset */
  peakInFlight(): number;
  resetPeakInFlight(): void;
  close(): Promise<void>;
};

export function messageText(messages: ChatMessage[]): string {
  return messages
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((p: { text?: string }) => p?.text ?? "").join("")
          : "",
    )
    .join("\n");
}

function completion(model: string, content: string, promptText: string) {
  const prompt_tokens = Math.ceil(promptText.length / 4);
  const completion_tokens = Math.ceil(content.length / 4);
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
  };
}

function streamChunks(model: string, content: string, promptText: string): string {
  const base = {
    id: "chatcmpl-stream",
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
  };
  const done = completion(model, content, promptText);
  const events = [
    { ...base, choices: [{ index: 0, delta: { role: "assistant", content }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: done.usage },
  ];
  return `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`;
}

export async function startScriptedServer(
  script?: Script,
  opts: { port?: number } = {},
): Promise<ScriptedServer> {
  let current: Script = script ?? (() => ({ json: { score: 7, reasoning: "scripted default" } }));
  const queue: Reply[] = [];
  const requests: ScriptRequest[] = [];
  const sockets = new Set<import("node:net").Socket>();
  let inFlight = 0;
  let peak = 0;

  const server = http.createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const rawBody = Buffer.concat(chunks).toString("utf8");

      if (req.method === "POST" && req.url === "/__script/enqueue") {
        queue.push(...(JSON.parse(rawBody) as Reply[]));
        res.writeHead(204).end();
        return;
      }
      if (req.method === "GET" && (req.url === "/__requests" || req.url?.startsWith("/__requests?"))) {
        // `?full=1`: the log itself (model, messages, body of each chat request), for tests that
        // compare what a page says was sent with what arrived; never the headers (they carry keys)
        const full = new URL(req.url, "http://x").searchParams.get("full") === "1";
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            count: requests.length,
            ...(full
              ? {
                  requests: requests.map((r) => ({
                    index: r.index,
                    model: r.model,
                    messages: r.messages,
                    body: r.body,
                  })),
                }
              : {}),
          }),
        );
        return;
      }
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(rawBody) as Record<string, unknown>;
      const messages = (body.messages as ChatMessage[]) ?? [];
      const sreq: ScriptRequest = {
        index: requests.length,
        model: String(body.model ?? ""),
        messages,
        text: messageText(messages),
        body,
        headers: req.headers,
        responseFormat: body.response_format as ScriptRequest["responseFormat"],
      };
      requests.push(sreq);
      inFlight++;
      peak = Math.max(peak, inFlight);
      try {
        const reply = queue.shift() ?? (await current(sreq));
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        send(res, reply, sreq);
      } finally {
        inFlight--;
      }
    } catch (err) {
      if (!res.headersSent) res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.keepAliveTimeout = 60_000;

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    setScript(s) {
      current = s;
    },
    enqueue(...replies) {
      queue.push(...replies);
    },
    peakInFlight: () => peak,
    resetPeakInFlight() {
      peak = inFlight;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: http.ServerResponse, reply: Reply, req: ScriptRequest): void {
  if ("hang" in reply) return; // never answers; the client's timeout must fire
  if ("status" in reply) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (reply.retryAfter !== undefined) headers["retry-after"] = String(reply.retryAfter);
    res.writeHead(reply.status, headers);
    res.end(
      JSON.stringify({ error: { message: reply.message ?? `scripted ${reply.status}`, type: "scripted" } }),
    );
    return;
  }
  if ("malformed" in reply) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"id": "broken", "choices": [ {"message": ');
    return;
  }
  if ("raw" in reply) {
    res.writeHead(200, { "content-type": reply.contentType });
    res.end(reply.raw);
    return;
  }
  if ("truncate" in reply) {
    const full = JSON.stringify(completion(req.model, reply.truncate, req.text));
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(full)),
    });
    res.write(full.slice(0, Math.floor(full.length / 2)));
    res.socket?.destroy();
    return;
  }
  const content = "json" in reply ? JSON.stringify(reply.json) : reply.text;
  if (req.body.stream) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.end(streamChunks(req.model, content, req.text));
    return;
  }
  const payload = JSON.stringify(completion(req.model, content, req.text));
  if (reply.gzip) {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    res.end(zlib.gzipSync(payload));
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(payload);
}
