import { TableHead } from "@/components/ui/table-head";
import { budgetWarningText } from "@/lib/judging/budget";
import { ASSUMED_LATENCY_MS, estimateRun, type SuiteSummary } from "@/lib/runs/estimate";

type Props = {
  suite: SuiteSummary | undefined;
  judges: string[];
  n: number;
  prices: Record<string, { inputPerMTok: number; outputPerMTok: number }>;
  concurrency: number;
  latencyMsByJudge: Record<string, number>;
};

const fmtTime = (s: number) => (s < 90 ? `${Math.round(s)} s` : `${(s / 60).toFixed(1)} min`);

/** Seed 004's cost table for the chosen suite and judges, with the chosen N highlighted. */
export function EstimateTable({ suite, judges, n, prices, concurrency, latencyMsByJudge }: Props) {
  if (!suite) return <p className="text-sm text-zinc-500">Choose a suite to see the estimate.</p>;
  const ns = [...new Set([1, 3, 5, Number.isFinite(n) ? n : 3])]
    .filter((x) => x >= 1 && x <= 10)
    .sort((a, b) => a - b);
  const measured = judges.filter((j) => latencyMsByJudge[j] !== undefined);
  const { warnings } = estimateRun(suite, judges, 1, prices, concurrency);
  return (
    <div data-testid="estimate" className="mb-4 text-sm">
      <table className="w-full text-left tabular-nums">
        <TableHead columns={["N", "Calls", "Input tokens", "Output tokens", "Est. cost", "Est. time"]} />
        <tbody>
          {ns.map((k) => {
            const e = estimateRun(suite, judges, k, prices, concurrency, latencyMsByJudge);
            const current = k === n;
            return (
              <tr
                key={k}
                className={current ? "bg-indigo-50 font-medium" : ""}
                data-testid={current ? "estimate-current" : undefined}
              >
                <td>{k}</td>
                <td data-testid={current ? "estimate-calls" : undefined}>{e.calls.toLocaleString()}</td>
                <td>~{e.inputTokens.toLocaleString()}</td>
                <td>~{e.outputTokens.toLocaleString()}</td>
                <td>{e.costUsd === null ? "unpriced" : `~$${e.costUsd.toFixed(e.costUsd < 1 ? 4 : 2)}`}</td>
                <td>~{fmtTime(e.seconds)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="mt-1 text-xs text-zinc-500">
        {suite.cases} cases × {suite.llmCriteria} LLM criteria × {judges.length} judge
        {judges.length === 1 ? "" : "s"} × N
        {suite.deterministicCriteria
          ? ` (+${suite.cases * suite.deterministicCriteria} deterministic checks, no calls)`
          : ""}
        . Tokens from prompt length ÷ 4; time assumes{" "}
        {measured.length ? "each judge's median latency so far" : `${ASSUMED_LATENCY_MS / 1000} s per call`}{" "}
        at concurrency {concurrency}.
        {estimateRun(suite, judges, 1, prices, concurrency).unpricedJudges.length > 0 &&
          ` No price for ${estimateRun(suite, judges, 1, prices, concurrency).unpricedJudges.join(", ")}: add one in Settings.`}
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
