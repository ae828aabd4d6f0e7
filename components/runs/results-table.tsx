import Link from "next/link";
import { ScrollTable } from "@/components/ui/scroll-table";
import type { ResultRow, RunCase } from "@/lib/domain";
import type { CriterionVerdict } from "@/lib/judging/aggregate";
import { ConsensusBadge } from "./status-badge";

type Props = {
  runId: string;
  cases: RunCase[];
  criteria: string[];
  results: ResultRow[];
  selected?: { caseId: string; criterionId: string };
};

/**
 * Cases × criteria: final score, pass/fail, what it rests on (judges and samples answered of asked),
 * consensus (only where two judges or more answered), review flags. Each cell opens its samples.
 */
export function ResultsTable({ runId, cases, criteria, results, selected }: Props) {
  const cell = (caseId: string, criterionId: string) =>
    results.find((r) => r.caseId === caseId && r.criterionId === criterionId);
  return (
    <ScrollTable label="Verdicts">
      <table className="w-full text-left text-sm" data-testid="results-table">
        <thead className="text-xs text-zinc-600">
          <tr>
            <th className="py-1 font-medium">Case</th>
            {criteria.map((c) => (
              <th key={c} className="py-1 font-medium">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {cases.map((c) => (
            <tr key={c.caseId} className="border-t border-zinc-100 align-top">
              <td className="py-1.5 pr-3">
                <div className="font-medium">{c.name}</div>
                <div className="font-mono text-xs text-zinc-600">{c.caseId}</div>
              </td>
              {criteria.map((cr) => {
                const r = cell(c.caseId, cr);
                const d: Partial<CriterionVerdict> = r?.data ?? {};
                const cov = d.coverage;
                const isSel = selected?.caseId === c.caseId && selected.criterionId === cr;
                return (
                  <td key={cr} className={`py-1.5 pr-3 ${isSel ? "bg-indigo-50" : ""}`}>
                    {r ? (
                      <Link
                        href={`/runs/${runId}?case=${encodeURIComponent(c.caseId)}&criterion=${encodeURIComponent(cr)}#cell`}
                        data-testid={`cell-${c.caseId}-${cr}`}
                        className="block rounded hover:bg-zinc-50"
                      >
                        <span className="tabular-nums font-medium">
                          {r.finalScore === null ? "—" : r.finalScore.toFixed(2)}
                        </span>
                        <span className="text-xs text-zinc-600"> / {d.threshold}</span>{" "}
                        <span
                          className={`text-xs font-semibold ${r.passed ? "text-green-700" : "text-red-700"}`}
                        >
                          {r.passed ? "pass" : "FAIL"}
                        </span>
                        {cov && (
                          <div
                            data-testid="cell-coverage"
                            className={`text-xs ${cov.samples_answered < cov.samples_asked ? "text-orange-800" : "text-zinc-600"}`}
                          >
                            {d.criterion_type === "llm" &&
                              `${cov.judges_answered} of ${cov.judges_asked} judge${cov.judges_asked === 1 ? "" : "s"} · `}
                            {cov.samples_answered} of {cov.samples_asked} sample
                            {cov.samples_asked === 1 ? "" : "s"}
                            {cov.samples_failed > 0 && ` (${cov.samples_failed} failed)`}
                          </div>
                        )}
                        <div className="mt-0.5 flex flex-wrap gap-1">
                          <ConsensusBadge level={r.consensusLevel} agreement={d.agreement} />
                          {r.flagForReview && (
                            <span
                              className="rounded bg-red-600 px-1 text-xs text-white"
                              title={`cross-model std > ${d.panel?.consensus_threshold ?? 1.5} (on a 1–10 scale)`}
                            >
                              review
                            </span>
                          )}
                          {d.straddles_threshold && (
                            <span
                              className="rounded bg-amber-200 px-1 text-xs"
                              title="samples fall on both sides of the threshold"
                            >
                              straddles
                            </span>
                          )}
                          {d.error && <span className="text-xs text-red-700">{d.error}</span>}
                        </div>
                      </Link>
                    ) : (
                      <span className="text-xs text-zinc-600">pending</span>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
