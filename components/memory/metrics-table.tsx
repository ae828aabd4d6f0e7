import { TableHead } from "@/components/ui/table-head";
import type { Experiment } from "@/lib/domain";
import type { ExperimentMetrics, MetricCI } from "@/lib/memory/study-metrics";

const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 1 : 0) : "—");
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)}%` : "—");

function Ci({ m, testId }: { m: MetricCI; testId?: string }) {
  return (
    <span data-testid={testId}>
      <span className="font-medium">{pct(m.mean)}</span>
      <span className="text-xs text-zinc-500">
        {" "}
        [{pct(m.low)}–{pct(m.high)}] n={m.n}
      </span>
    </span>
  );
}

export function MetricsTable({ rows }: { rows: { e: Experiment; m: ExperimentMetrics; done: number }[] }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm tabular-nums" data-testid="experiments-table">
        <TableHead
          columns={[
            "Configuration",
            {
              label: "Precision",
              title: "relevant ÷ annotated retrieved, mean over queries; 95% bootstrap interval over queries",
            },
            { label: "Recall", title: "over queries with at least one relevant memory" },
            "F1",
            "P@k",
            { label: "Needs annotation", title: "retrieved memories nobody has annotated for that query" },
            "Latency p50 / p95",
            "$ / query",
            { label: "$ / month", title: "cost per query × 100 prompts a day × 30 days" },
          ]}
        />
        <tbody>
          {rows.map(({ e, m, done }) => (
            <tr key={e.id} className="border-t border-zinc-100 align-top" data-testid="experiment-row">
              <td className="py-1 pr-2">
                <div className="text-xs font-medium">{e.label}</div>
                <div className="font-mono text-xs text-zinc-500">
                  {e.id} · {e.status === "running" ? `running ${done} of ${m.queries || "…"}` : e.status}
                  {e.error && <span className="text-red-700"> {e.error}</span>}
                </div>
              </td>
              <td>
                <Ci m={m.precision} testId="metric-precision" />
              </td>
              <td>
                <Ci m={m.recall} testId="metric-recall" />
              </td>
              <td>
                <Ci m={m.f1} />
              </td>
              <td>
                <Ci m={m.precisionAtK} />
              </td>
              <td>
                {m.needsAnnotation} of {m.retrieved}
              </td>
              <td>
                {ms(m.latencyP50)} / {ms(m.latencyP95)} ms
              </td>
              <td>${m.costPerQuery.toFixed(5)}</td>
              <td>${m.costPerMonth.toFixed(2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
