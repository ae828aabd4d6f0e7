import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import type { Experiment } from "@/lib/domain";
import {
  describePathMix,
  type ExperimentMetrics,
  evidenceLine,
  formatCost,
  type LabelConvention,
  type MetricCI,
  type MetricSet,
  MIN_JUDGE_ANSWERED,
} from "@/lib/memory/study-metrics";
import { PromoteButton, type PromoteInfo } from "./promote-button";

const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 1 : 0) : "—");
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)}%` : "—");

/** A mean with its interval and n; n=0 says why. */
function Ci({ m, testId }: { m: MetricCI; testId?: string }) {
  if (m.n === 0)
    return (
      <span className="text-zinc-600">
        <span data-testid={testId}>— n=0</span>
        {m.why && (
          <span className="block text-xs" data-testid={testId ? `${testId}-why` : undefined}>
            {m.why}
          </span>
        )}
      </span>
    );
  return (
    <span title={m.note}>
      <span data-testid={testId}>
        <span className="font-medium">{pct(m.mean)}</span>
        <span className="text-xs text-zinc-600">
          {" "}
          [{pct(m.low)}–{pct(m.high)}] n={m.n}
        </span>
      </span>
      {m.note && <span className="block text-xs text-amber-700">{m.note}</span>}
    </span>
  );
}

/** The figure over every query, and under it the same figure over the queries the judge answered. */
function Twice({ m, of, testId }: { m: ExperimentMetrics; of: keyof MetricSet; testId: string }) {
  return (
    <div className="space-y-0.5">
      <div>
        <span className="mr-1 text-[10px] uppercase text-zinc-600">all</span>
        <Ci m={m[of]} testId={testId} />
      </div>
      {m.judgeAnswered && (
        <div>
          <span className="mr-1 text-[10px] uppercase text-zinc-600">judge</span>
          <Ci m={m.judgeAnswered[of]} testId={`${testId}-judge`} />
        </div>
      )}
    </div>
  );
}

function PathMixCell({ m }: { m: ExperimentMetrics }) {
  const mix = m.pathMix;
  const low = m.judgeAnswered && mix.asked > 0 && mix.answeredShare < MIN_JUDGE_ANSWERED;
  return (
    <div className="text-xs" data-testid="path-mix">
      <div className={low ? "font-medium text-amber-800" : undefined}>{describePathMix(mix)}</div>
      <ul className="text-zinc-600">
        {mix.paths.map((p) => (
          <li key={p.path} data-testid="path-mix-item" data-path={p.path}>
            {p.n} × {p.label}
          </li>
        ))}
      </ul>
      {mix.errors.slice(0, 2).map((e) => (
        <div key={e.message} className="truncate text-red-700" title={e.message}>
          {e.n} × {e.message}
        </div>
      ))}
    </div>
  );
}

/**
 * Below md the Configuration column sticks to the left of the scrolling table, at a width that leaves
 * room for the figures beside it; its background covers what scrolls under it.
 */
const STICKY =
  "max-md:sticky max-md:left-0 max-md:z-10 max-md:w-40 max-md:min-w-40 max-md:max-w-40 max-md:border-r max-md:border-zinc-200";

export type MetricsRow = {
  e: Experiment;
  m: ExperimentMetrics;
  done: number;
  planned: number;
  complete: boolean;
  notice?: string;
  best: boolean;
  /** a finished configuration's "Use for the hook" (absent while it is unfinished) */
  promote?: PromoteInfo | { unavailable: string };
};

export function MetricsTable({ rows, convention }: { rows: MetricsRow[]; convention: LabelConvention }) {
  const qrels = convention === "qrels";
  return (
    <ScrollTable label="Configurations">
      <table className="w-full text-left text-sm tabular-nums" data-testid="experiments-table">
        <TableHead
          columns={[
            // the key column stays in view while the figures scroll beside it (a phone)
            { label: "Configuration", className: `${STICKY} bg-white` },
            {
              label: "Path mix",
              title: "which path each query took: judge answered, a fallback and why, an error",
            },
            {
              label: qrels ? "Set precision" : "Precision",
              title: qrels
                ? "trec_eval set_P: relevant ÷ retrieved, unjudged counted as not relevant; mean over queries, 95% bootstrap interval"
                : "relevant ÷ annotated retrieved (unjudged memories need annotation), mean over queries; 95% bootstrap interval",
            },
            {
              label: "Recall",
              title: qrels ? "trec_eval set_recall" : "over queries with at least one relevant memory",
            },
            "F1",
            { label: "P@k", title: "trec_eval P@k over what was kept, k = the configuration's top-k" },
            ...(qrels
              ? [
                  {
                    label: "nDCG@10",
                    title: "trec_eval ndcg_cut_10 over the ranked run (BM25: its candidates)",
                  },
                  { label: "R@100", title: "trec_eval recall_100" },
                ]
              : []),
            "Latency p50 / p95",
            "$ / query",
            { label: "$ / month", title: "cost per query × 100 prompts a day × 30 days" },
          ]}
        />
        <tbody>
          {rows.map(({ e, m, done, planned, complete, notice, best, promote }) => (
            <tr
              key={e.id}
              className={`border-t border-zinc-100 align-top ${best ? "bg-green-50" : ""}`}
              data-testid="experiment-row"
              data-best={best ? "true" : undefined}
            >
              <td className={`py-1 pr-2 ${STICKY} ${best ? "bg-green-50" : "bg-white"}`}>
                <div className="text-xs font-medium">
                  {best && (
                    <span
                      className="mr-1 rounded bg-green-700 px-1 text-[10px] font-semibold uppercase text-white"
                      data-testid="best-badge"
                    >
                      best
                    </span>
                  )}
                  {e.label}
                </div>
                <div className="font-mono text-xs text-zinc-600">
                  {e.id} · {e.status === "running" ? `running ${done} of ${planned}` : e.status}
                  {e.createdBy && <span data-testid="experiment-by"> · by {e.createdBy}</span>}
                  {e.error && <span className="text-red-700"> {e.error}</span>}
                </div>
                {!complete && notice && (
                  <div className="mt-0.5 text-xs text-amber-800" data-testid="experiment-incomplete">
                    {notice}
                  </div>
                )}
                <div className="mt-0.5 text-xs text-zinc-600" data-testid="evidence">
                  {evidenceLine(m)}
                </div>
                {promote &&
                  ("unavailable" in promote ? (
                    <div className="mt-1 text-xs text-zinc-600" data-testid="promote-unavailable">
                      {promote.unavailable}
                    </div>
                  ) : (
                    <PromoteButton p={promote} />
                  ))}
              </td>
              <td className="pr-2">
                <PathMixCell m={m} />
              </td>
              <td>
                <Twice m={m} of="precision" testId="metric-precision" />
              </td>
              <td>
                <Twice m={m} of="recall" testId="metric-recall" />
              </td>
              <td>
                <Twice m={m} of="f1" testId="metric-f1" />
              </td>
              <td>
                <Twice m={m} of="precisionAtK" testId="metric-pk" />
              </td>
              {qrels && (
                <>
                  <td>
                    <Ci m={m.ndcg10} testId="metric-ndcg10" />
                  </td>
                  <td>
                    <Ci m={m.recall100} testId="metric-recall100" />
                  </td>
                </>
              )}
              <td>
                {ms(m.latencyP50)} / {ms(m.latencyP95)} ms
              </td>
              <td
                data-testid="cost-per-query"
                title={m.cost.state === "unpriced" ? `${m.cost.model} has no price in Settings` : undefined}
              >
                {formatCost(m.cost, "perQuery")}
              </td>
              <td data-testid="cost-per-month">{formatCost(m.cost, "perMonth")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
