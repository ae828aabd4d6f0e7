import { JuryError } from "../errors";
import { type CallOptions, type CallResult, callModel } from "../judging/call-model";
import { batchHttp, builtinModelOver } from "../providers/get-model";
import { redactSecrets } from "../redact";

/**
 * The two batch APIs Jury sends a batched run's calls through: OpenAI's Batch API (a JSONL file of
 * Responses requests, uploaded through Files) and Anthropic's Message Batches. Each request is the
 * exact body the AI SDK would send live (captured from the SDK, not rebuilt), and each result is read
 * back through the SDK too, so a batched sample parses, counts tokens and fails as a live one does.
 */

export type BatchProvider = "openai" | "anthropic";
/** What one call asks, as callModel takes it, without the model and its limits. */
export type BatchCall = Omit<CallOptions, "model" | "timeoutMs" | "maxRetries" | "signal" | "sleep">;

type Captured = { url: string; body: Record<string, unknown>; headers: Record<string, string> };

/** The request the SDK would send for this call, caught before it leaves (nothing is sent). */
export async function captureRequest(judge: string, call: BatchCall): Promise<Captured> {
  let captured: Captured | undefined;
  const capture: typeof fetch = async (input, init) => {
    const req = new Request(input, init);
    captured = {
      url: req.url,
      body: JSON.parse(await req.text()) as Record<string, unknown>,
      headers: Object.fromEntries(req.headers),
    };
    throw new Error("captured for a batch");
  };
  await callModel({
    ...call,
    model: builtinModelOver(judge, capture),
    timeoutMs: 60_000,
    maxRetries: 0,
  }).catch(() => undefined);
  if (!captured) throw new JuryError("batch_capture", `could not build ${judge}'s batch request`);
  return captured;
}

/** A batch result's body read as the SDK reads a live answer: text, tokens, and its failures. */
export function readResult(judge: string, call: BatchCall, body: unknown): Promise<CallResult> {
  const replay: typeof fetch = async () =>
    new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
  return callModel({ ...call, model: builtinModelOver(judge, replay), timeoutMs: 60_000, maxRetries: 0 });
}

export type BatchState = {
  /** in_progress until the provider ended it; ended, cancelled, expired or failed then */
  status: "in_progress" | "cancelling" | "ended" | "cancelled" | "expired" | "failed";
  total: number;
  succeeded: number;
  failed: number;
  error?: string;
};

/** One request's outcome, by its custom id: the response body to read, or why it has none. */
export type BatchOutcome = { ok: true; body: unknown } | { ok: false; error: string };

async function http(
  provider: BatchProvider,
  method: string,
  path: string,
  body?: BodyInit,
  json = true,
  extra: Record<string, string> = {},
) {
  const h = batchHttp(provider);
  const headers: Record<string, string> =
    provider === "openai"
      ? { ...extra, authorization: `Bearer ${h.apiKey}` }
      : { ...extra, "x-api-key": h.apiKey, "anthropic-version": "2023-06-01" };
  if (json && body !== undefined) headers["content-type"] = "application/json";
  const res = await h.fetch(`${h.baseURL}${path}`, { method, headers, body });
  const text = await res.text();
  if (!res.ok)
    throw new JuryError(
      "batch_http",
      redactSecrets(`${provider} batch API: HTTP ${res.status} on ${method} ${path}: ${text.slice(0, 300)}`),
    );
  return text;
}

/** Submits one judge's requests as one batch; returns the provider's batch id (and OpenAI's input file). */
export async function submitBatch(
  provider: BatchProvider,
  requests: { customId: string; captured: Captured }[],
): Promise<{ id: string; inputFileId?: string }> {
  if (provider === "openai") {
    const jsonl = requests
      .map((r) =>
        JSON.stringify({
          custom_id: r.customId,
          method: "POST",
          url: new URL(r.captured.url).pathname,
          body: r.captured.body,
        }),
      )
      .join("\n");
    const form = new FormData();
    form.set("purpose", "batch");
    form.set("file", new Blob([jsonl], { type: "application/jsonl" }), "jury-batch.jsonl");
    const file = JSON.parse(await http(provider, "POST", "/files", form, false)) as { id: string };
    const batch = JSON.parse(
      await http(
        provider,
        "POST",
        "/batches",
        JSON.stringify({ input_file_id: file.id, endpoint: "/v1/responses", completion_window: "24h" }),
      ),
    ) as { id: string };
    return { id: batch.id, inputFileId: file.id };
  }
  // the betas the SDK asked for live (structured outputs) are asked for on the batch
  const betas = [...new Set(requests.flatMap((r) => (r.captured.headers["anthropic-beta"] ?? "").split(",")))]
    .map((b) => b.trim())
    .filter(Boolean);
  const batch = JSON.parse(
    await http(
      provider,
      "POST",
      "/messages/batches",
      JSON.stringify({ requests: requests.map((r) => ({ custom_id: r.customId, params: r.captured.body })) }),
      true,
      betas.length ? { "anthropic-beta": betas.join(",") } : {},
    ),
  ) as { id: string };
  return { id: batch.id };
}

type OpenAIBatch = {
  status: string;
  request_counts?: { total: number; completed: number; failed: number };
  output_file_id?: string | null;
  error_file_id?: string | null;
  errors?: { data?: { message: string }[] } | null;
};
type AnthropicBatch = {
  processing_status: string;
  request_counts: {
    processing: number;
    succeeded: number;
    errored: number;
    canceled: number;
    expired: number;
  };
  results_url?: string | null;
};

export async function pollBatch(provider: BatchProvider, id: string): Promise<BatchState> {
  if (provider === "openai") {
    const b = JSON.parse(await http(provider, "GET", `/batches/${id}`)) as OpenAIBatch;
    const c = b.request_counts ?? { total: 0, completed: 0, failed: 0 };
    const status =
      b.status === "completed"
        ? "ended"
        : b.status === "cancelling"
          ? "cancelling"
          : b.status === "cancelled" || b.status === "expired" || b.status === "failed"
            ? b.status
            : "in_progress";
    return {
      status,
      total: c.total,
      succeeded: c.completed,
      failed: c.failed,
      ...(b.errors?.data?.length ? { error: b.errors.data.map((e) => e.message).join("; ") } : {}),
    };
  }
  const b = JSON.parse(await http(provider, "GET", `/messages/batches/${id}`)) as AnthropicBatch;
  const c = b.request_counts;
  return {
    status:
      b.processing_status === "ended"
        ? "ended"
        : b.processing_status === "canceling"
          ? "cancelling"
          : "in_progress",
    total: c.processing + c.succeeded + c.errored + c.canceled + c.expired,
    succeeded: c.succeeded,
    failed: c.errored + c.canceled + c.expired,
  };
}

/** The outcomes of an ended batch, by custom id (requests it never ran are absent). */
export async function batchResults(provider: BatchProvider, id: string): Promise<Map<string, BatchOutcome>> {
  const out = new Map<string, BatchOutcome>();
  const lines = (text: string) =>
    text
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  if (provider === "openai") {
    const b = JSON.parse(await http(provider, "GET", `/batches/${id}`)) as OpenAIBatch;
    for (const fileId of [b.output_file_id, b.error_file_id]) {
      if (!fileId) continue;
      for (const l of lines(await http(provider, "GET", `/files/${fileId}/content`))) {
        const res = l.response as { status_code: number; body: unknown } | null;
        const err = l.error as { code?: string; message?: string } | null;
        out.set(
          String(l.custom_id),
          res && res.status_code === 200
            ? { ok: true, body: res.body }
            : {
                ok: false,
                error: `batch request failed: ${err?.message ?? `HTTP ${res?.status_code}: ${JSON.stringify(res?.body).slice(0, 200)}`}`,
              },
        );
      }
    }
    return out;
  }
  for (const l of lines(await http(provider, "GET", `/messages/batches/${id}/results`))) {
    const r = l.result as { type: string; message?: unknown; error?: { error?: { message?: string } } };
    out.set(
      String(l.custom_id),
      r.type === "succeeded"
        ? { ok: true, body: r.message }
        : {
            ok: false,
            error:
              r.type === "errored"
                ? `batch request failed: ${r.error?.error?.message ?? "errored"}`
                : `batch request ${r.type === "canceled" ? "cancelled" : r.type} before it ran`,
          },
    );
  }
  return out;
}

export async function cancelBatch(provider: BatchProvider, id: string): Promise<void> {
  await http(
    provider,
    "POST",
    provider === "openai" ? `/batches/${id}/cancel` : `/messages/batches/${id}/cancel`,
  );
}
