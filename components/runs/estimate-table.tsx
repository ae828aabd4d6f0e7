import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import { budgetWarningText } from "@/lib/judging/budget";
import type { Price } from "@/lib/pricing";
import {
  ASSUMED_LATENCY_MS,
  callsText,
  type EstimateMode,
  estimateRun,
  type SuiteSummary,
} from "@/lib/runs/estimate";

type Props = {
  suite: SuiteSummary | undefined;
  judges: string[];
  n: number;
  prices: Record<string, Price>;
  concurrency: number;
  latencyMsByJudge: Record<string, number>;
  /** the run's temperature: cached answers count only at the temperature they were given at */
  temperature?: number;
  /** prompt caching and batch mode, as the run would use them */
  mode?: EstimateMode;
};

const fmtTime = (s: number) => (s < 90 ? `${Math.round(s)} s` : `${(s / 60).toFixed(1)} min`);

/**
 * The cost table for the chosen suite and judges, with the chosen N highlighted. Calls the
 * response cache already holds are counted apart and cost nothing; a judge with no price makes the
 * cost "unpriced", never $0.
 */
export function EstimateTable({
  suite,
  judges,
  n,
  prices,
  concurrency,
  latencyMsByJudge,
  temperature,
  mode,
}: Props) {
  if (!suite) return <p className="text-sm text-zinc-600">Choose a suite to see the estimate.</p>;
  const ns = [...new Set([1, 3, 5, Number.isFinite(n) ? n : 3])]
    .filter((x) => x >= 1 && x <= 10)
    .sort((a, b) => a - b);
  const measured = judges.filter((j) => latencyMsByJudge[j] !== undefined);
  const at = (k: number) =>
    estimateRun(suite, judges, k, prices, concurrency, latencyMsByJudge, temperature, mode);
  const { warnings } = at(1);
  const current = Number.isFinite(n) && n >= 1 && n <= 10 ? at(n) : undefined;
  return (
    <div data-testid="estimate" className="mb-4 text-sm">
      <ScrollTable label="Estimate">
        <table className="w-full text-left tabular-nums">
          <TableHead
            // what a person decides on, cost and time, first: a phone shows them without scrolling
            columns={[
              "N",
              { label: "Est. cost", title: "of the calls to make only" },
              "Est. time",
              "Calls",
              { label: "Cached", title: "answers already in the response cache: no call, no cost" },
              "To call",
              "Input tokens",
              "Output tokens",
            ]}
          />
          <tbody>
            {ns.map((k) => {
              const e = at(k);
              const isCurrent = k === n;
              return (
                <tr
                  key={k}
                  className={isCurrent ? "bg-indigo-50 font-medium" : ""}
                  data-testid={isCurrent ? "estimate-current" : undefined}
                >
                  <td>{k}</td>
                  <td className="whitespace-nowrap" data-testid={isCurrent ? "estimate-cost" : undefined}>
                    {e.costUsd === null ? "unpriced" : `~$${e.costUsd.toFixed(e.costUsd < 1 ? 4 : 2)}`}
                  </td>
                  <td className="whitespace-nowrap">~{fmtTime(e.seconds)}</td>
                  <td data-testid={isCurrent ? "estimate-calls" : undefined}>{e.calls.toLocaleString()}</td>
                  <td data-testid={isCurrent ? "estimate-cached" : undefined}>
                    {e.cachedCalls.toLocaleString()}
                  </td>
                  <td data-testid={isCurrent ? "estimate-to-call" : undefined}>
                    {e.callsToMake.toLocaleString()}
                  </td>
                  <td>~{e.inputTokens.toLocaleString()}</td>
                  <td>~{e.outputTokens.toLocaleString()}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollTable>
      <p className="mt-1 text-xs text-zinc-600">
        {current && <span data-testid="estimate-summary">{callsText(current)}. </span>}
        {suite.cases} cases × {suite.llmCriteria} LLM criteria × {judges.length} judge
        {judges.length === 1 ? "" : "s"} × N
        {suite.deterministicCriteria
          ? ` (+${suite.cases * suite.deterministicCriteria} deterministic checks, no calls)`
          : ""}
        . Tokens from prompt length ÷ 4, for the calls to make; time assumes{" "}
        {measured.length
          ? "each judge's median latency over its latest 500 calls"
          : `${ASSUMED_LATENCY_MS / 1000} s per call`}{" "}
        at concurrency {concurrency}.
        {current && current.unpricedJudges.length > 0 && (
          <span data-testid="estimate-unpriced">
            {" "}
            No price for {current.unpricedJudges.join(", ")}: the cost is unpriced until you add one in
            Settings.
          </span>
        )}
      </p>
      {warnings.length > 0 && (
        <div data-testid="estimate-warnings" className="mt-1 text-xs text-amber-700">
          <p>
            {warnings.length} case field{warnings.length === 1 ? " is" : "s are"} over the per-field budget
            and will be sent cut, with a truncation marker:
          </p>
          <ul className="list-disc pl-5">
            {warnings.slice(0, 5).map((w) => (
              <li key={`${w.caseId}|${w.field}`}>{budgetWarningText(w)}</li>
            ))}
            {warnings.length > 5 && <li>and {warnings.length - 5} more</li>}
          </ul>
        </div>
      )}
    </div>
  );
}
