import { RawOutput } from "@/components/ui/raw-output";
import type { Sample } from "@/lib/domain";

/**
 * Every sample of one case × criterion: score, reasoning, raw output, latency, tokens, cost, error.
 * `unpriced`: judges with no price when the run was planned: their cost shows "unpriced", never $0.
 */
export function SampleList({ samples, unpriced = [] }: { samples: Sample[]; unpriced?: string[] }) {
  if (samples.length === 0) return <p className="text-sm text-zinc-600">No samples finished yet.</p>;
  return (
    <ol className="space-y-2" data-testid="sample-list">
      {samples.map((s) => (
        <li key={s.id} className="rounded border border-zinc-200 p-2 text-sm" data-testid="sample">
          <div className="flex flex-wrap items-center gap-3 text-xs text-zinc-600">
            <code className="font-medium text-zinc-900">{s.judge}</code>
            <span>sample {s.sampleIndex + 1}</span>
            <span className="text-base font-semibold tabular-nums text-zinc-900">{s.score ?? "—"}</span>
            <span>{s.latencyMs} ms</span>
            <span>
              {s.inputTokens} in / {s.outputTokens} out tokens
            </span>
            <span>{unpriced.includes(s.judge) && !s.cached ? "unpriced" : `$${s.costUsd.toFixed(5)}`}</span>
            {s.attempts > 1 && <span>{s.attempts} attempts</span>}
            {s.cached && <span className="rounded bg-zinc-100 px-1">cached</span>}
          </div>
          {s.error && <p className="mt-1 text-red-700">Failed (not scored): {s.error}</p>}
          {s.reasoning && (
            <p className="mt-1 whitespace-pre-wrap" data-testid="sample-reasoning">
              {s.reasoning}
            </p>
          )}
          <RawOutput text={s.rawText} />
        </li>
      ))}
    </ol>
  );
}
