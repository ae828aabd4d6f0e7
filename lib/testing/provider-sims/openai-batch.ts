import type { PrefixCache } from "./cache";
import { isObject, json, type SimContext, type SimHttpRequest, type SimHttpResponse } from "./common";
import { OpenAISim, openaiError } from "./openai";

/**
 * OpenAI's Files (`POST /v1/files` with purpose "batch", `GET /v1/files/{id}`, `GET /v1/files/{id}/content`)
 * and Batch API (`POST /v1/batches`, `GET /v1/batches/{id}`, `POST /v1/batches/{id}/cancel`), from
 * platform.openai.com/docs/api-reference/batch and /files. The input file is JSONL of
 * `{custom_id, method: "POST", url: "/v1/responses", body}` with unique custom ids and one model;
 * a batch stays `in_progress` until the test runs `processBatches()` (each request through the same
 * validation, cache and faults as live, billed at the batch rate; answers in the output file, refused
 * or faulted requests in the error file) or `expireBatches()`.
 */

type FileObj = { id: string; filename: string; purpose: string; content: string; created_at: number };
type Batch = {
  id: string;
  input_file_id: string;
  endpoint: string;
  completion_window: string;
  status:
    | "validating"
    | "failed"
    | "in_progress"
    | "finalizing"
    | "completed"
    | "expired"
    | "cancelling"
    | "cancelled";
  created_at: number;
  in_progress_at: number | null;
  completed_at: number | null;
  expired_at: number | null;
  cancelled_at: number | null;
  expires_at: number;
  output_file_id: string | null;
  error_file_id: string | null;
  errors: { object: "list"; data: { code: string; message: string; line: number | null }[] } | null;
  request_counts: { total: number; completed: number; failed: number };
  metadata: Record<string, string> | null;
  lines: { custom_id: string; body: unknown }[];
};

export class OpenAIBatchSim extends OpenAISim {
  readonly files = new Map<string, FileObj>();
  readonly batches = new Map<string, Batch>();

  constructor(
    ctx: SimContext,
    cache: PrefixCache,
    private readonly counts: { batches: number; batchRequests: number },
  ) {
    super(ctx, cache);
  }

  protected override async handleOther(req: SimHttpRequest, path: string): Promise<SimHttpResponse> {
    const now = Math.floor(this.ctx.clock.now() / 1000);
    if (req.method === "POST" && path === "/v1/files") return this.upload(req, now);
    let m = /^\/v1\/files\/([^/]+)(\/content)?$/.exec(path);
    if (req.method === "GET" && m) {
      const f = this.files.get(m[1]);
      if (!f) return openaiError(404, `No such File object: ${m[1]}`, "invalid_request_error", null, "id");
      if (m[2])
        return { status: 200, headers: { "content-type": "application/octet-stream" }, body: f.content };
      return json(200, fileView(f));
    }
    if (req.method === "POST" && path === "/v1/batches") return this.create(req, now);
    m = /^\/v1\/batches\/([^/]+)(\/cancel)?$/.exec(path);
    if (m && ((req.method === "GET" && !m[2]) || (req.method === "POST" && m[2]))) {
      const b = this.batches.get(m[1]);
      if (!b) return openaiError(404, `No batch found with id '${m[1]}'.`, "invalid_request_error");
      if (m[2] && (b.status === "in_progress" || b.status === "validating")) {
        b.status = "cancelled";
        b.cancelled_at = now;
        this.finish(
          b,
          [],
          b.lines.map((l) => ({
            custom_id: l.custom_id,
            error: { code: "batch_cancelled", message: "The batch was cancelled before this request ran." },
          })),
        );
      }
      return json(200, batchView(b));
    }
    return super.handleOther(req, path);
  }

  private async upload(req: SimHttpRequest, now: number): Promise<SimHttpResponse> {
    const ct = req.headers.get("content-type") ?? "";
    if (!ct.startsWith("multipart/form-data")) {
      return openaiError(400, "Invalid content type: expected multipart/form-data.", "invalid_request_error");
    }
    const form = await new Response(Buffer.from(req.body), { headers: { "content-type": ct } }).formData();
    const purpose = form.get("purpose");
    const file = form.get("file");
    if (purpose !== "batch") {
      return openaiError(
        400,
        `'${String(purpose)}' is not one of ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] - 'purpose'`,
        "invalid_request_error",
        null,
        "purpose",
      );
    }
    if (!file || typeof file === "string")
      return openaiError(400, "Missing required parameter: 'file'.", "invalid_request_error", null, "file");
    const f: FileObj = {
      id: this.ctx.nextId("file-"),
      filename: file.name || "batch.jsonl",
      purpose,
      content: await file.text(),
      created_at: now,
    };
    this.files.set(f.id, f);
    return json(200, fileView(f));
  }

  private async create(req: SimHttpRequest, now: number): Promise<SimHttpResponse> {
    let body: unknown;
    try {
      body = JSON.parse(Buffer.from(req.body).toString("utf8"));
    } catch {
      return openaiError(400, "We could not parse the JSON body of your request.", "invalid_request_error");
    }
    if (!isObject(body)) return openaiError(400, "Invalid request body.", "invalid_request_error");
    for (const k of Object.keys(body)) {
      if (
        !["input_file_id", "endpoint", "completion_window", "metadata", "output_expires_after"].includes(k)
      ) {
        return openaiError(
          400,
          `Unknown parameter: '${k}'.`,
          "invalid_request_error",
          "unknown_parameter",
          k,
        );
      }
    }
    if (
      body.endpoint !== "/v1/responses" &&
      body.endpoint !== "/v1/chat/completions" &&
      body.endpoint !== "/v1/embeddings" &&
      body.endpoint !== "/v1/completions"
    ) {
      return openaiError(
        400,
        `Invalid value for 'endpoint': '${String(body.endpoint)}'.`,
        "invalid_request_error",
        "invalid_value",
        "endpoint",
      );
    }
    if (body.completion_window !== "24h") {
      return openaiError(
        400,
        `Invalid value for 'completion_window': '${String(body.completion_window)}'. Supported values are: '24h'.`,
        "invalid_request_error",
        "invalid_value",
        "completion_window",
      );
    }
    const file = typeof body.input_file_id === "string" ? this.files.get(body.input_file_id) : undefined;
    if (!file)
      return openaiError(
        400,
        `Invalid 'input_file_id': '${String(body.input_file_id)}'. File not found.`,
        "invalid_request_error",
        null,
        "input_file_id",
      );
    const b: Batch = {
      id: this.ctx.nextId("batch_"),
      input_file_id: file.id,
      endpoint: body.endpoint,
      completion_window: "24h",
      status: "in_progress",
      created_at: now,
      in_progress_at: now,
      completed_at: null,
      expired_at: null,
      cancelled_at: null,
      expires_at: now + 24 * 3600,
      output_file_id: null,
      error_file_id: null,
      errors: null,
      request_counts: { total: 0, completed: 0, failed: 0 },
      metadata: isObject(body.metadata) ? (body.metadata as Record<string, string>) : null,
      lines: [],
    };
    const errors = parseInputFile(file.content, b, body.endpoint);
    if (errors.length) {
      b.status = "failed";
      b.errors = { object: "list", data: errors };
    } else {
      b.request_counts.total = b.lines.length;
      this.counts.batches++;
      this.counts.batchRequests += b.lines.length;
    }
    this.batches.set(b.id, b);
    return json(200, batchView(b));
  }

  /** Runs every in-progress batch, in submission order. */
  async processBatches(): Promise<void> {
    for (const b of this.batches.values()) {
      if (b.status !== "in_progress") continue;
      const ok: unknown[] = [];
      const failed: { custom_id: string; status_code?: number; body?: unknown; error?: unknown }[] = [];
      for (const line of b.lines) {
        const r = await this.respond(line.body, "batch");
        if (r.status === 200) ok.push({ custom_id: line.custom_id, status_code: 200, body: r.json });
        else failed.push({ custom_id: line.custom_id, status_code: r.status, body: r.json });
      }
      b.status = "completed";
      b.completed_at = Math.floor(this.ctx.clock.now() / 1000);
      this.finish(b, ok as { custom_id: string; status_code: number; body: unknown }[], failed);
    }
  }

  expireBatches(): void {
    for (const b of this.batches.values()) {
      if (b.status !== "in_progress") continue;
      b.status = "expired";
      b.expired_at = Math.floor(this.ctx.clock.now() / 1000);
      this.finish(
        b,
        [],
        b.lines.map((l) => ({
          custom_id: l.custom_id,
          error: {
            code: "batch_expired",
            message: "This request could not be executed before the completion window expired.",
          },
        })),
      );
    }
  }

  clearBatches(): void {
    this.batches.clear();
    this.files.clear();
  }

  private finish(
    b: Batch,
    ok: { custom_id: string; status_code?: number; body?: unknown }[],
    failed: { custom_id: string; status_code?: number; body?: unknown; error?: unknown }[],
  ): void {
    const line = (x: { custom_id: string; status_code?: number; body?: unknown; error?: unknown }) =>
      JSON.stringify({
        id: this.ctx.nextId("batch_req_"),
        custom_id: x.custom_id,
        response: x.status_code
          ? { status_code: x.status_code, request_id: this.ctx.nextId("req_"), body: x.body }
          : null,
        error: x.error ?? null,
      });
    const now = Math.floor(this.ctx.clock.now() / 1000);
    if (ok.length) b.output_file_id = this.store(`${b.id}_output.jsonl`, ok.map(line).join("\n"), now);
    if (failed.length) b.error_file_id = this.store(`${b.id}_error.jsonl`, failed.map(line).join("\n"), now);
    b.request_counts.completed = ok.length;
    b.request_counts.failed = failed.length;
  }

  private store(filename: string, content: string, now: number): string {
    const id = this.ctx.nextId("file-");
    this.files.set(id, { id, filename, purpose: "batch_output", content: `${content}\n`, created_at: now });
    return id;
  }
}

function parseInputFile(content: string, b: Batch, endpoint: string) {
  const errors: { code: string; message: string; line: number | null }[] = [];
  const seen = new Set<string>();
  let model: string | undefined;
  content
    .split("\n")
    .filter((l) => l.trim())
    .forEach((text, i) => {
      let o: unknown;
      try {
        o = JSON.parse(text);
      } catch {
        errors.push({
          code: "invalid_json_line",
          message: "This line is not parseable as valid JSON.",
          line: i + 1,
        });
        return;
      }
      if (!isObject(o) || typeof o.custom_id !== "string" || o.method !== "POST" || !isObject(o.body)) {
        errors.push({
          code: "invalid_request",
          message: "Each line needs custom_id, method POST, url and body.",
          line: i + 1,
        });
        return;
      }
      if (o.url !== endpoint) {
        errors.push({
          code: "mismatched_endpoint",
          message: `The url '${String(o.url)}' does not match the batch endpoint '${endpoint}'.`,
          line: i + 1,
        });
        return;
      }
      if (seen.has(o.custom_id)) {
        errors.push({
          code: "duplicate_custom_id",
          message: `The custom_id '${o.custom_id}' is duplicated.`,
          line: i + 1,
        });
        return;
      }
      seen.add(o.custom_id);
      const m = o.body.model;
      if (model !== undefined && m !== model) {
        errors.push({
          code: "model_mismatch",
          message: "All requests in a batch must use the same model.",
          line: i + 1,
        });
        return;
      }
      model = m as string;
      b.lines.push({ custom_id: o.custom_id, body: o.body });
    });
  if (!errors.length && b.lines.length === 0)
    errors.push({ code: "empty_file", message: "The input file is empty.", line: null });
  if (b.lines.length > 50_000)
    errors.push({ code: "too_many_requests", message: "A batch holds at most 50,000 requests.", line: null });
  return errors;
}

const fileView = (f: FileObj) => ({
  id: f.id,
  object: "file",
  bytes: Buffer.byteLength(f.content),
  created_at: f.created_at,
  filename: f.filename,
  purpose: f.purpose,
});

function batchView(b: Batch) {
  const { lines: _lines, ...rest } = b;
  return { object: "batch", ...rest };
}
