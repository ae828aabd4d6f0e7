import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { Card, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { loadProjectCriteria } from "@/lib/criteria/load";
import { formatCost } from "@/lib/pricing";
import { inspectSample, type RequestCheck } from "@/lib/runs/inspect";
import { sampleLabel } from "@/lib/runs/sample-number";
import { runIdSchema } from "@/lib/validations/runs";

type Props = { params: Promise<{ id: string; sampleId: string }> };

const checkText: Record<RequestCheck, string> = {
  verified:
    "verified: this rebuild hashes to the key stored with the sample, so it is the request that was sent",
  differs: "differs: this rebuild does not match the request that was sent",
  "not recorded": "not checked: no request hash was stored with this sample",
};

const checkStyle: Record<RequestCheck, string> = {
  verified: "bg-green-100 text-green-800",
  differs: "bg-red-100 text-red-800",
  "not recorded": "bg-zinc-100 text-zinc-700",
};

/**
 * A long text in its own scroll box: a named region that takes keyboard focus, so it can be scrolled
 * with the arrow keys (axe: scrollable-region-focusable), as ScrollTable does for tables.
 */
function Pre({ children, testId, label }: { children: string; testId?: string; label: string }) {
  return (
    <section
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
      tabIndex={0}
      className="max-h-[28rem] overflow-auto rounded bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-500"
    >
      <pre data-testid={testId} className="whitespace-pre-wrap break-words p-2 text-xs">
        {children}
      </pre>
    </section>
  );
}

function Facts({ rows, testId }: { rows: [string, ReactNode][]; testId?: string }) {
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm" data-testid={testId}>
      {rows.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-zinc-600">{k}</dt>
          <dd className="min-w-0 break-words tabular-nums">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The call inspector: one sample's exact request (messages as sent, model, parameters, the response
 * schema) and its raw response with tokens, cost, latency, retries and cache hit. Secrets are
 * redacted from every text (lib/redact.ts); request headers, where keys travel, are never shown.
 */
export default async function CallInspectorPage({ params }: Props) {
  await connection();
  const { id, sampleId } = await params;
  if (!runIdSchema.safeParse(id).success || !/^\d{1,12}$/.test(sampleId)) notFound();
  const x = await inspectSample(getDb(), id, Number(sampleId), loadProjectCriteria());
  if (!x) notFound();
  const s = x.sample;
  const back = `/runs/${x.run.id}?case=${encodeURIComponent(x.caseId)}&criterion=${encodeURIComponent(x.criterionId)}#cell`;
  const retries = Math.max(0, s.attempts - 1);
  return (
    <div className="space-y-4" data-testid="call-inspector">
      <PageTitle
        actions={
          <Link href={back} className="text-sm text-indigo-700 underline">
            Back to the item
          </Link>
        }
      >
        Call: <code className="text-lg">{s.judge}</code> ·{" "}
        <span data-testid="inspector-sample">
          {sampleLabel(s.sampleIndex, x.kind === "llm" ? x.run.n : 1)}
        </span>
      </PageTitle>
      <p className="-mt-3 text-xs text-zinc-600">
        run <span className="font-mono">{x.run.id}</span> ({x.run.suiteName}) · case {x.caseName} (
        <span className="font-mono">{x.caseId}</span>) · criterion {x.criterionId}
        {x.criterion.version && ` v${x.criterion.version}`} · call id {s.id}
        {s.supersededAt && (
          <span className="ml-2 rounded bg-zinc-200 px-1 text-zinc-800" data-testid="inspector-superseded">
            superseded ({s.supersededReason === "resampled" ? "re-sampled" : "retried"}{" "}
            {s.supersededAt.toISOString().replace("T", " ").slice(0, 19)}): in no figure
          </span>
        )}
      </p>

      <Card title="Request">
        {x.kind === "llm" && x.request ? (
          <div className="space-y-3">
            <p className="text-xs">
              <span
                className={`rounded px-1.5 py-0.5 font-medium ${checkStyle[x.check]}`}
                data-testid="request-check"
                data-check={x.check}
              >
                {checkText[x.check]}
              </span>
            </p>
            {x.note && <p className="text-sm text-orange-800">{x.note}</p>}
            <Facts
              testId="request-params"
              rows={[
                ["provider", <code key="p">{x.request.provider}</code>],
                [
                  "model",
                  <code key="m" data-testid="request-model">
                    {x.request.model}
                  </code>,
                ],
                [
                  "temperature",
                  <span key="t" data-testid="request-temperature">
                    {x.request.temperature}
                  </span>,
                ],
                ["response format", "json_schema (strict), named response: the schema below"],
                [
                  "sample",
                  `${sampleLabel(x.request.sampleIndex, x.run.n)} (each sample of one prompt is a separate call)`,
                ],
                [
                  "request hash",
                  <code key="h" className="break-all text-xs">
                    {x.request.requestKey}
                  </code>,
                ],
              ]}
            />
            {x.request.messages.map((m) => (
              <div key={m.role}>
                <h3 className="mb-1 text-xs font-semibold text-zinc-700">
                  {m.role} message ({m.content.length.toLocaleString("en-US")} characters)
                </h3>
                <Pre testId={`message-${m.role}`} label={`${m.role} message`}>
                  {m.content}
                </Pre>
              </div>
            ))}
            <div>
              <h3 className="mb-1 text-xs font-semibold text-zinc-700">response schema</h3>
              <Pre testId="request-schema" label="response schema">
                {JSON.stringify(x.request.responseFormat.json_schema.schema, null, 2)}
              </Pre>
            </div>
            <details className="text-xs">
              <summary className="cursor-pointer text-zinc-700">
                the request body, as an OpenAI-compatible endpoint receives it
              </summary>
              <Pre testId="request-body" label="request body">
                {JSON.stringify(
                  {
                    model: x.request.model,
                    temperature: x.request.temperature,
                    response_format: x.request.responseFormat,
                    messages: x.request.messages,
                  },
                  null,
                  2,
                )}
              </Pre>
              <p className="mt-1 text-zinc-600">
                Other providers (Anthropic, Google) get the same messages, temperature and schema in their own
                format. Headers, where keys travel, are never shown.
              </p>
            </details>
          </div>
        ) : x.kind === "deterministic" ? (
          <div className="space-y-2 text-sm" data-testid="request-deterministic">
            <p>{x.note}</p>
            {x.deterministic && (
              <Facts
                rows={[
                  ["function", <code key="f">{x.deterministic.function}</code>],
                  ["parameters", <code key="p">{JSON.stringify(x.deterministic.params)}</code>],
                ]}
              />
            )}
          </div>
        ) : (
          <p className="text-sm text-orange-800" data-testid="request-unavailable">
            {x.note}
          </p>
        )}
      </Card>

      <Card title="Response">
        <div className="space-y-3">
          <Facts
            testId="response-facts"
            rows={[
              [
                "score",
                <span key="s" className="font-semibold">
                  {s.score ?? "—"}
                </span>,
              ],
              ["tokens", `${s.inputTokens} in / ${s.outputTokens} out`],
              [
                "cost",
                `${formatCost(x.unpriced ? null : s.costUsd, { cached: s.cached })}${x.unpriced ? " (no price in Settings)" : ""}`,
              ],
              ["latency", `${s.latencyMs} ms${s.cached ? " (from the cache)" : ""}`],
              [
                "attempts",
                <span key="a" data-testid="response-attempts">
                  {s.attempts} ({retries} retr{retries === 1 ? "y" : "ies"})
                </span>,
              ],
              [
                "cache hit",
                <span key="c" data-testid="response-cached">
                  {s.cached ? "yes: answered from the response cache, no call made" : "no"}
                </span>,
              ],
              ["stored", s.createdAt.toISOString().replace("T", " ").slice(0, 19)],
            ]}
          />
          {s.error && (
            <p className="text-sm text-red-700" data-testid="response-error">
              Failed (not scored, <span data-testid="response-error-kind">{s.errorKind}</span>): {s.error}
            </p>
          )}
          {s.reasoning && (
            <div>
              <h3 className="mb-1 text-xs font-semibold text-zinc-700">reasoning (parsed)</h3>
              <Pre label="reasoning">{s.reasoning}</Pre>
            </div>
          )}
          <div>
            <h3 className="mb-1 text-xs font-semibold text-zinc-700">raw response</h3>
            {s.rawText ? (
              <Pre testId="raw-response" label="raw response">
                {s.rawText}
              </Pre>
            ) : (
              <p className="text-sm text-zinc-600">No text came back.</p>
            )}
          </div>
        </div>
      </Card>
    </div>
  );
}
