/**
 * Simulators of the three built-in providers' published HTTP APIs, for tests and benches that drive
 * the real AI SDK providers (@ai-sdk/openai, @ai-sdk/anthropic, @ai-sdk/google) end to end.
 *
 * ```ts
 * const sims = createProviderSims();          // one clock, one ledger, one key per provider
 * setProviderFetch(sims.fetch);               // lib/providers/get-model.ts: built-in providers call the sims
 * const env = sims.env;                       // OPENAI_API_KEY / ANTHROPIC_API_KEY / GOOGLE_GENERATIVE_AI_API_KEY
 * sims.anthropic.fail({ kind: "overloaded" }, { times: 2 });
 * sims.openai.answer = (call) => ({ score: 4, reasoning: "…" });
 * … run Jury …
 * sims.assertNoRejections();                  // a request the real API would refuse fails the test
 * sims.ledger.total({ provider: "anthropic" }); // USD at the providers' published rates
 * sims.clock.advance(6 * 60_000);             // cache entries past their lifetime expire
 * ```
 *
 * - `sims.fetch` routes by host: api.openai.com → OpenAI Responses + Files + Batches,
 *   api.anthropic.com → Messages + Message Batches, generativelanguage.googleapis.com → generateContent.
 *   Any other host fails as a network error would.
 * - `sims.listen()` serves the same over HTTP on loopback and writes a preload module; a `jury`
 *   child started with `NODE_OPTIONS=--require <preload>` (see `childEnv()`) sends its built-in
 *   providers' requests there, with nothing in Jury's own configuration changed.
 * - Each simulator (`sims.openai`, `sims.anthropic`, `sims.google`) has `answer` (the model's reply
 *   from the request), `fail(fault, {times, model})` (faults in the provider's own shape, see
 *   common.ts), `reasoningTokens`, `latencyMs`, `records` (every request), `rejections()`,
 *   `generations()` and `cache` (its prompt-prefix cache, with hit and miss counts).
 * - Batches (OpenAI Batch API over Files; Anthropic Message Batches) stay `in_progress` until
 *   `sims.processBatches()` runs them (in submission order, through the same validation, cache and
 *   ledger at the batch rate) or `sims.expireBatches()` expires them. `sims.counts` counts batches
 *   and batch requests submitted.
 *
 * Token counts are a deterministic approximation (ceil(characters / 4) of a canonical serialisation
 * of the prompt), not the providers' tokenizers: consistent between a request, its cache entries and
 * the ledger, which is all a billing check needs.
 */
import { writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { AnthropicBatchSim } from "./anthropic-batch";
import { manualClock, PrefixCache, type SimClock } from "./cache";
import type { SimHttpRequest, SimHttpResponse, SimRecord } from "./common";
import { GeminiSim } from "./gemini";
import { Ledger } from "./ledger";
import { OpenAIBatchSim } from "./openai-batch";
import type { SimProvider } from "./rates";

export type { SimClock } from "./cache";
export { countTokens, manualClock } from "./cache";
export type { SimAnswer, SimCall, SimFault, SimRecord } from "./common";
export type { LedgerEntry } from "./ledger";
export { simCost } from "./ledger";
export { resolveSimModel, SIM_MODELS, type SimProvider } from "./rates";

/** The hosts the built-in providers call (their SDKs' default base URLs). */
export const SIM_HOSTS: Record<string, SimProvider> = {
  "api.openai.com": "openai",
  "api.anthropic.com": "anthropic",
  "generativelanguage.googleapis.com": "google",
};

/** The keys the simulators accept, one per provider; any other key is refused as the provider would. */
export const SIM_KEYS: Record<SimProvider, string> = {
  openai: "sk-sim-openai-0123456789abcdef",
  anthropic: "sk-ant-sim-0123456789abcdef",
  google: "AIzaSim0123456789abcdef",
};

export type ProviderSims = ReturnType<typeof createProviderSims>;

export function createProviderSims(opts: { clock?: SimClock } = {}) {
  const clock = opts.clock ?? manualClock();
  const ledger = new Ledger();
  let seq = 0;
  const ctx = {
    clock,
    ledger,
    keys: SIM_KEYS,
    nextId: (prefix: string) => `${prefix}sim${(++seq).toString(36).padStart(6, "0")}`,
  };
  const counts = { batches: 0, batchRequests: 0 };
  const openai = new OpenAIBatchSim(ctx, new PrefixCache(clock), counts);
  const anthropic = new AnthropicBatchSim(ctx, new PrefixCache(clock), counts);
  const google = new GeminiSim(ctx, new PrefixCache(clock));
  const byProvider = { openai, anthropic, google };

  async function dispatch(req: SimHttpRequest): Promise<SimHttpResponse | undefined> {
    const provider = SIM_HOSTS[req.url.host];
    if (!provider || req.url.protocol !== "https:") return undefined;
    return byProvider[provider].handle(req);
  }

  const simFetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const url = new URL(request.url);
    const body = new Uint8Array(await request.arrayBuffer());
    const res = await dispatch({ method: request.method, url, headers: request.headers, body });
    if (!res)
      throw new TypeError("fetch failed", {
        cause: new Error(`getaddrinfo ENOTFOUND ${url.host} (no simulator)`),
      });
    request.signal.throwIfAborted();
    return new Response(res.body, { status: res.status, headers: res.headers });
  };

  let server: http.Server | undefined;

  const sims = {
    clock,
    ledger,
    openai,
    anthropic,
    google,
    /** batches and batch requests submitted, over both batch APIs */
    counts,
    /** The provider keys, as the environment Jury reads them from. */
    env: {
      OPENAI_API_KEY: SIM_KEYS.openai,
      ANTHROPIC_API_KEY: SIM_KEYS.anthropic,
      GOOGLE_GENERATIVE_AI_API_KEY: SIM_KEYS.google,
    },
    fetch: simFetch,
    /** Every request the three simulators received, in order. */
    records(): SimRecord[] {
      return [...openai.records, ...anthropic.records, ...google.records];
    },
    /** Requests a simulator refused on its own (invalid shape, bad key, unknown model, unknown route). */
    rejections(): SimRecord[] {
      return [...openai.rejections(), ...anthropic.rejections(), ...google.rejections()];
    },
    /** Throws, naming each one, when any request was refused: what the real API would have refused. */
    assertNoRejections(): void {
      const r = sims.rejections();
      if (r.length) {
        throw new Error(
          `the provider simulators refused ${r.length} request(s):\n${r.map((x) => `  ${x.provider} ${x.method} ${x.path} → ${x.status}: ${x.rejection}`).join("\n")}`,
        );
      }
    },
    /** Runs every pending batch to completion, in submission order. */
    async processBatches(): Promise<void> {
      await openai.processBatches();
      await anthropic.processBatches();
    },
    /** Expires every pending batch (its requests come back `expired`). */
    expireBatches(): void {
      openai.expireBatches();
      anthropic.expireBatches();
    },
    /** Clears records, faults, caches, batches and the ledger; answers and settings stay. */
    reset(): void {
      for (const s of [openai, anthropic, google]) {
        s.records.length = 0;
        s.clearFaults();
        s.cache.clear();
      }
      openai.clearBatches();
      anthropic.clearBatches();
      ledger.clear();
      counts.batches = 0;
      counts.batchRequests = 0;
    },
    /**
     * Serves the simulators over HTTP on 127.0.0.1 (requests arrive as `/<host>/<path>`) and writes
     * the preload module a child process needs; see childEnv.
     */
    async listen(): Promise<{ url: string; preload: string }> {
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", async () => {
          const [, host, ...rest] = (req.url ?? "/").split("/");
          const url = new URL(`https://${host}/${rest.join("/")}`);
          const headers = new Headers();
          for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
          const out = await dispatch({
            method: req.method ?? "GET",
            url,
            headers,
            body: Buffer.concat(chunks),
          });
          if (!out) {
            res.destroy();
            return;
          }
          res.writeHead(out.status, out.headers).end(out.body);
        });
      });
      await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
      const port = (server.address() as { port: number }).port;
      const url = `http://127.0.0.1:${port}`;
      const preload = path.join(os.tmpdir(), `jury-provider-sims-${process.pid}-${port}.cjs`);
      writeFileSync(preload, preloadSource(url));
      return { url, preload };
    },
    async close(): Promise<void> {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((r) => s.close(() => r()));
    },
  };
  return sims;
}

/** The environment for a `jury` child that should reach the simulators: keys plus the preload. */
export function childEnv(sims: ProviderSims, preload: string): Record<string, string> {
  return { ...sims.env, NODE_OPTIONS: `--require ${preload}` };
}

/** A preload that sends the three provider hosts' https requests to the simulators' loopback server. */
function preloadSource(base: string): string {
  return `// written by lib/testing/provider-sims: test processes only
"use strict";
const hosts = new Set(${JSON.stringify(Object.keys(SIM_HOSTS))});
const real = globalThis.fetch;
globalThis.fetch = function simFetch(input, init) {
  const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const url = new URL(href);
  if (url.protocol === "https:" && hosts.has(url.host)) {
    const target = ${JSON.stringify(base)} + "/" + url.host + url.pathname + url.search;
    if (typeof input === "string" || input instanceof URL) return real(target, init);
    return real(new Request(target, input), init);
  }
  return real(input, init);
};
`;
}
