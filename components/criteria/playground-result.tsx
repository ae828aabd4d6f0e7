import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import type { PlaygroundResult } from "@/lib/criteria/playground";
import { coverageText } from "@/lib/judging/aggregate";
import { formatCost } from "@/lib/pricing";

/** The playground's answer: the aggregate as a run would compute it, then every sample. */
export function PlaygroundResultView({ result: r }: { result: PlaygroundResult }) {
  const v = r.verdict;
  const [lo, hi] = r.criterion.scale;
  return (
    <section className="space-y-3" data-testid="playground-result" aria-label="Result">
      <div className="flex flex-wrap items-baseline gap-x-4 gap-y-1" data-testid="playground-verdict">
        <span className="text-2xl font-semibold tabular-nums" data-testid="playground-score">
          {v.final_score === null ? "—" : v.final_score}
        </span>
        <span className="text-sm text-zinc-600">
          on {lo}–{hi}, threshold {v.threshold}
        </span>
        <span
          data-testid="playground-passed"
          className={`rounded px-2 py-0.5 text-xs font-medium ${v.final_score === null ? "bg-zinc-100 text-zinc-800" : v.passed ? "bg-green-100 text-green-900" : "bg-red-100 text-red-900"}`}
        >
          {v.final_score === null ? "no verdict" : v.passed ? "passes" : "fails"}
        </span>
        <span className="text-sm" data-testid="playground-agreement">
          {v.agreement}
          {v.cross_model_std !== null && ` (cross-judge std ${v.cross_model_std})`}
        </span>
        {v.flag_for_review && (
          <span className="rounded bg-amber-100 px-2 py-0.5 text-xs text-amber-900">flagged for review</span>
        )}
        {v.straddles_threshold && (
          <span className="rounded bg-amber-100 px-2 py-0.5 text-xs text-amber-900">
            samples on both sides of the threshold
          </span>
        )}
      </div>
      <p className="text-xs text-zinc-600" data-testid="playground-coverage">
        {coverageText(v.coverage)}
        {r.criterion.type === "llm" && (
          <>
            {" "}
            · {r.calls.live} live call{r.calls.live === 1 ? "" : "s"}, {r.calls.cached} from the cache ·{" "}
            {formatCost(r.calls.costUsd)} spent
            {r.calls.unpriced.length > 0 && ` + unpriced (${r.calls.unpriced.join(", ")})`}
          </>
        )}
      </p>
      {r.params && (
        <p className="text-xs text-zinc-600">
          parameters: <code>{JSON.stringify(r.params)}</code>
        </p>
      )}
      <ScrollTable label="Samples">
        <table className="w-full text-left text-sm" data-testid="playground-samples">
          <TableHead
            columns={[
              "Judge",
              { label: "#", align: "right" },
              { label: "Score", align: "right" },
              { label: "Reasoning or error", className: "min-w-[16rem]" },
              "Source",
              { label: "Latency", align: "right" },
              { label: "Tokens in / out", align: "right" },
              { label: "Cost", align: "right" },
            ]}
          />
          <tbody>
            {r.samples.map((s) => (
              <tr
                key={`${s.judge}-${s.sampleIndex}`}
                className="border-t border-zinc-100 align-top"
                data-testid="playground-sample"
              >
                <td className="whitespace-nowrap py-1 font-mono text-xs">{s.judge}</td>
                <td className="py-1 text-right tabular-nums">{s.sampleIndex + 1}</td>
                <td className="py-1 text-right font-medium tabular-nums" data-testid="sample-score">
                  {s.score ?? "—"}
                </td>
                <td className="py-1">
                  {s.error ? <span className="text-red-700">{s.error}</span> : s.reasoning}
                </td>
                <td className="whitespace-nowrap py-1 text-xs">{s.cached ? "cache" : "live"}</td>
                <td className="whitespace-nowrap py-1 text-right tabular-nums">
                  {s.cached ? "—" : `${s.latencyMs} ms`}
                </td>
                <td className="whitespace-nowrap py-1 text-right tabular-nums">
                  {s.inputTokens} / {s.outputTokens}
                </td>
                <td className="whitespace-nowrap py-1 text-right tabular-nums" data-testid="sample-cost">
                  {formatCost(s.costUsd, { cached: s.cached })}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
      {r.request && (
        <details className="text-sm">
          <summary className="cursor-pointer text-zinc-700">What each judge was sent</summary>
          <p className="mt-2 text-xs font-medium text-zinc-700">System</p>
          <pre className="max-h-40 overflow-auto whitespace-pre-wrap rounded bg-zinc-50 p-2 text-xs">
            {r.request.system}
          </pre>
          <p className="mt-2 text-xs font-medium text-zinc-700">Prompt</p>
          <pre
            className="max-h-96 overflow-auto whitespace-pre-wrap rounded bg-zinc-50 p-2 text-xs"
            data-testid="playground-prompt"
          >
            {r.request.prompt}
          </pre>
        </details>
      )}
    </section>
  );
}
