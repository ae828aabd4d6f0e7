import { AnthropicSim, anthropicError } from "./anthropic";
import type { PrefixCache } from "./cache";
import { isObject, json, type SimContext, type SimHttpRequest, type SimHttpResponse } from "./common";

/**
 * Anthropic's Message Batches (`POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`,
 * `GET /v1/messages/batches/{id}/results`, `POST /v1/messages/batches/{id}/cancel`), from
 * docs.anthropic.com/en/api/creating-message-batches. Up to 100,000 requests of `{custom_id, params}`
 * (custom ids unique, 1–64 of [A-Za-z0-9_-]); params are validated when the batch runs, as the API
 * does, and a refused one comes back `errored`. A batch stays `in_progress` until `processBatches()`
 * (answers billed at the batch rate, the prompt cache shared with live requests) or
 * `expireBatches()`; results are JSONL, available once the batch has `ended`.
 */

type Result =
  | { type: "succeeded"; message: unknown }
  | { type: "errored"; error: unknown }
  | { type: "canceled" }
  | { type: "expired" };

type Batch = {
  id: string;
  processing_status: "in_progress" | "canceling" | "ended";
  created_at: string;
  expires_at: string;
  ended_at: string | null;
  cancel_initiated_at: string | null;
  requests: { custom_id: string; params: unknown }[];
  results: Map<string, Result>;
};

export class AnthropicBatchSim extends AnthropicSim {
  readonly batches = new Map<string, Batch>();

  constructor(
    ctx: SimContext,
    cache: PrefixCache,
    private readonly counts: { batches: number; batchRequests: number },
  ) {
    super(ctx, cache);
  }

  private iso(offsetMs = 0) {
    return new Date(this.ctx.clock.now() + offsetMs).toISOString();
  }

  protected override async handleOther(
    req: SimHttpRequest,
    path: string,
    body: unknown,
  ): Promise<SimHttpResponse> {
    if (req.method === "POST" && path === "/v1/messages/batches") return this.create(body);
    const m = /^\/v1\/messages\/batches\/([^/]+)(\/results|\/cancel)?$/.exec(path);
    if (m) {
      const b = this.batches.get(m[1]);
      if (!b) return anthropicError(404, "not_found_error", `message batch ${m[1]} not found`);
      if (req.method === "GET" && !m[2]) return json(200, this.view(b));
      if (req.method === "GET" && m[2] === "/results") {
        if (b.processing_status !== "ended") {
          return anthropicError(
            400,
            "invalid_request_error",
            `Batch ${b.id} has not ended: results are not available yet`,
          );
        }
        const lines = b.requests.map((r) =>
          JSON.stringify({ custom_id: r.custom_id, result: b.results.get(r.custom_id) }),
        );
        return {
          status: 200,
          headers: { "content-type": "application/binary" },
          body: `${lines.join("\n")}\n`,
        };
      }
      if (req.method === "POST" && m[2] === "/cancel") {
        if (b.processing_status === "in_progress") {
          b.cancel_initiated_at = this.iso();
          for (const r of b.requests)
            if (!b.results.has(r.custom_id)) b.results.set(r.custom_id, { type: "canceled" });
          b.processing_status = "ended";
          b.ended_at = this.iso();
        }
        return json(200, this.view(b));
      }
    }
    return super.handleOther(req, path, body);
  }

  private create(body: unknown): SimHttpResponse {
    if (!isObject(body))
      return anthropicError(400, "invalid_request_error", "Input should be a valid dictionary");
    for (const k of Object.keys(body))
      if (k !== "requests")
        return anthropicError(400, "invalid_request_error", `${k}: Extra inputs are not permitted`);
    if (!Array.isArray(body.requests) || body.requests.length === 0) {
      return anthropicError(
        400,
        "invalid_request_error",
        "requests: List should have at least 1 item after validation, not 0",
      );
    }
    if (body.requests.length > 100_000)
      return anthropicError(400, "invalid_request_error", "requests: at most 100,000 requests per batch");
    const seen = new Set<string>();
    const requests: Batch["requests"] = [];
    for (const [i, r] of body.requests.entries()) {
      if (!isObject(r) || typeof r.custom_id !== "string" || !isObject(r.params)) {
        return anthropicError(
          400,
          "invalid_request_error",
          `requests.${i}: custom_id and params are required`,
        );
      }
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(r.custom_id)) {
        return anthropicError(
          400,
          "invalid_request_error",
          `requests.${i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`,
        );
      }
      if (seen.has(r.custom_id))
        return anthropicError(400, "invalid_request_error", `Duplicate custom_id: ${r.custom_id}`);
      if (r.params.stream === true)
        return anthropicError(
          400,
          "invalid_request_error",
          `requests.${i}.params.stream: streaming is not supported in batches`,
        );
      seen.add(r.custom_id);
      requests.push({ custom_id: r.custom_id, params: r.params });
    }
    const b: Batch = {
      id: this.ctx.nextId("msgbatch_"),
      processing_status: "in_progress",
      created_at: this.iso(),
      expires_at: this.iso(24 * 3_600_000),
      ended_at: null,
      cancel_initiated_at: null,
      requests,
      results: new Map(),
    };
    this.batches.set(b.id, b);
    this.counts.batches++;
    this.counts.batchRequests += requests.length;
    return json(200, this.view(b));
  }

  async processBatches(): Promise<void> {
    for (const b of this.batches.values()) {
      if (b.processing_status !== "in_progress") continue;
      for (const r of b.requests) {
        if (b.results.has(r.custom_id)) continue;
        const res = await this.respond(r.params, "batch");
        b.results.set(
          r.custom_id,
          res.status === 200
            ? { type: "succeeded", message: res.json }
            : { type: "errored", error: res.json },
        );
      }
      b.processing_status = "ended";
      b.ended_at = this.iso();
    }
  }

  expireBatches(): void {
    for (const b of this.batches.values()) {
      if (b.processing_status !== "in_progress") continue;
      for (const r of b.requests)
        if (!b.results.has(r.custom_id)) b.results.set(r.custom_id, { type: "expired" });
      b.processing_status = "ended";
      b.ended_at = this.iso();
    }
  }

  clearBatches(): void {
    this.batches.clear();
  }

  private view(b: Batch) {
    const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    for (const r of b.requests) {
      const res = b.results.get(r.custom_id);
      if (!res) counts.processing++;
      else counts[res.type]++;
    }
    return {
      id: b.id,
      type: "message_batch",
      processing_status: b.processing_status,
      request_counts: counts,
      ended_at: b.ended_at,
      created_at: b.created_at,
      expires_at: b.expires_at,
      archived_at: null,
      cancel_initiated_at: b.cancel_initiated_at,
      results_url:
        b.processing_status === "ended"
          ? `https://api.anthropic.com/v1/messages/batches/${b.id}/results`
          : null,
    };
  }
}
