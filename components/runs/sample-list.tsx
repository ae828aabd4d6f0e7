import Link from "next/link";
import { RawOutput } from "@/components/ui/raw-output";
import type { Sample } from "@/lib/domain";
import { formatCost } from "@/lib/pricing";
import { sampleLabel } from "@/lib/runs/sample-number";

type Props = {
  runId: string;
  samples: Sample[];
  /** this item's earlier samples, replaced by a retry or a re-sample: kept, shown apart */
  superseded?: Sample[];
  /** judges with no price when the run was planned: their cost shows "unpriced", never $0 */
  unpriced?: string[];
  /** samples asked of each judge per prompt */
  n: number;
};

/**
 * Every sample of one case × criterion: score, reasoning, raw output, latency, tokens, cost, error,
 * and a link to its call (the exact request and the raw response). Superseded samples follow,
 * marked with why and when they were replaced; they count in no figure.
 */
export function SampleList({ runId, samples, superseded = [], unpriced = [], n }: Props) {
  return (
    <div className="space-y-3">
      {samples.length === 0 ? (
        <p className="text-sm text-zinc-600">No samples finished yet.</p>
      ) : (
        <ol className="space-y-2" data-testid="sample-list">
          {samples.map((s) => (
            <SampleCard key={s.id} runId={runId} s={s} unpriced={unpriced} n={n} />
          ))}
        </ol>
      )}
      {superseded.length > 0 && (
        <details className="text-sm" data-testid="superseded-samples">
          <summary className="cursor-pointer text-xs font-medium text-zinc-700">
            {superseded.length} earlier sample{superseded.length === 1 ? "" : "s"} (retried or re-sampled:
            kept for the record, in no figure)
          </summary>
          <ol className="mt-2 space-y-2">
            {superseded.map((s) => (
              <SampleCard key={s.id} runId={runId} s={s} unpriced={unpriced} n={n} />
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}

function SampleCard({ runId, s, unpriced, n }: { runId: string; s: Sample; unpriced: string[]; n: number }) {
  const old = s.supersededAt !== null;
  return (
    <li
      className={`rounded border p-2 text-sm ${old ? "border-dashed border-zinc-300 bg-zinc-50" : "border-zinc-200"}`}
      data-testid={old ? "superseded-sample" : "sample"}
      data-sample-id={s.id}
    >
      <div className="flex flex-wrap items-center gap-3 text-xs text-zinc-600">
        <code className="font-medium text-zinc-900">{s.judge}</code>
        <span data-testid="sample-number">{sampleLabel(s.sampleIndex, n)}</span>
        <span className="text-base font-semibold tabular-nums text-zinc-900" data-testid="sample-score">
          {s.score ?? "—"}
        </span>
        <span>{s.latencyMs} ms</span>
        <span>
          {s.inputTokens} in / {s.outputTokens} out tokens
        </span>
        <span>{formatCost(unpriced.includes(s.judge) && !s.cached ? null : s.costUsd)}</span>
        {s.attempts > 1 && <span>{s.attempts} attempts</span>}
        {s.cached && <span className="rounded bg-zinc-100 px-1">cached</span>}
        {old && (
          <span className="rounded bg-zinc-200 px-1 text-zinc-800" data-testid="superseded-reason">
            {s.supersededReason === "resampled" ? "re-sampled" : "retried"}{" "}
            {s.supersededAt?.toISOString().replace("T", " ").slice(0, 19)}
          </span>
        )}
        <Link
          href={`/runs/${runId}/samples/${s.id}`}
          className="text-indigo-700 underline"
          data-testid="inspect-call"
        >
          {s.judge === "deterministic" ? "inspect check" : "inspect call"}
        </Link>
      </div>
      {s.error && <p className="mt-1 text-red-700">Failed (not scored): {s.error}</p>}
      {s.reasoning && (
        <p className="mt-1 whitespace-pre-wrap" data-testid="sample-reasoning">
          {s.reasoning}
        </p>
      )}
      <RawOutput text={s.rawText} />
    </li>
  );
}
