import Link from "next/link";
import { ScrollTable } from "@/components/ui/scroll-table";
import type { ResultRow } from "@/lib/domain";
import type { CriterionVerdict } from "@/lib/judging/aggregate";
import { isPartialVerdict, pendingSamples } from "@/lib/runs/live-verdicts";
import { cellKey, type TriageCell, type TriageQuery, type TriageRow, triageSearch } from "@/lib/runs/triage";
import { ConsensusBadge } from "./status-badge";

type Props = {
  runId: string;
  /** the run is live: a verdict with samples pending is partial */
  live: boolean;
  /** the rows of the page shown (the triage view's, paged) */
  rows: TriageRow[];
  /** the columns: the triage view's criteria */
  criteria: string[];
  /** the names of the cases shown, and their stored verdicts by cellKey */
  names: ReadonlyMap<string, string>;
  results: ReadonlyMap<string, ResultRow>;
  query: TriageQuery;
  /** the page shown, kept in each cell's link (1: left out) */
  page: number;
  selected?: { caseId: string; criterionId: string };
};

/**
 * Below md the Case column sticks to the left of the scrolling table, narrow (long names wrap), so
 * the first criteria's verdicts and coverage stay in view beside it; its background covers what
 * scrolls under it.
 */
const STICKY = "max-md:sticky max-md:left-0 max-md:z-10 max-md:w-28 max-md:min-w-28 max-md:max-w-28";

const filtered = (q: TriageQuery) => q.status !== "all" || q.judge !== null;

/**
 * Cases × criteria: final score, pass/fail, what it rests on (judges and samples answered of asked),
 * consensus (only where two judges or more answered), review flags. Each cell opens its samples.
 * While the run is live, a cell with samples pending shows its score so far marked "partial", with
 * no pass/fail, consensus or flag.
 * Under a triage filter only the matching cells are shown (the cases and criteria without one are
 * left out); with a judge chosen, each cell also shows that judge's own mean and failures.
 */
export function ResultsTable({ runId, live, rows, criteria, names, results, query, page, selected }: Props) {
  if (rows.length === 0)
    return (
      <p className="text-sm text-zinc-600" data-testid="triage-empty">
        No cell matches this filter.
      </p>
    );
  return (
    <ScrollTable label="Verdicts">
      <table className="w-full text-left text-sm" data-testid="results-table">
        <thead className="text-xs text-zinc-600">
          <tr>
            <th scope="col" className={`${STICKY} bg-white py-1 font-medium`}>
              Case
            </th>
            {criteria.map((c) => (
              <th key={c} scope="col" className="py-1 font-medium">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={row.caseId}
              className="border-t border-zinc-100 align-top"
              data-testid={`case-row-${row.caseId}`}
            >
              <th scope="row" className={`${STICKY} bg-white py-1.5 pr-3 text-left font-normal`}>
                <div className="font-medium [overflow-wrap:anywhere]">{names.get(row.caseId)}</div>
                <div className="font-mono text-xs text-zinc-600 [overflow-wrap:anywhere]">{row.caseId}</div>
              </th>
              {criteria.map((cr) => {
                const hit = row.cells.find((c) => c.cell.criterionId === cr);
                const isSel = selected?.caseId === row.caseId && selected.criterionId === cr;
                const mark = hit?.match && filtered(query);
                return (
                  <td
                    key={cr}
                    data-match={hit ? String(hit.match) : undefined}
                    className={`py-1.5 pr-3 ${isSel ? "bg-indigo-50" : mark ? "bg-amber-50" : ""} ${mark ? "shadow-[inset_3px_0_0_0_#b45309]" : ""}`}
                  >
                    {hit ? (
                      <Cell
                        runId={runId}
                        live={live}
                        cell={hit.cell}
                        result={results.get(cellKey(row.caseId, cr))}
                        query={query}
                        page={page}
                      />
                    ) : filtered(query) ? (
                      <span className="sr-only">hidden by the filter</span>
                    ) : (
                      <span className="text-xs text-zinc-600">—</span>
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

type CellProps = {
  runId: string;
  live: boolean;
  cell: TriageCell;
  result: ResultRow | undefined;
  query: TriageQuery;
  page: number;
};

function Cell({ runId, live, cell, result: r, query, page }: CellProps) {
  if (!r)
    return (
      <span className="text-xs text-zinc-600" data-testid="cell-pending">
        pending
      </span>
    );
  const d: Partial<CriterionVerdict> = r.data ?? {};
  const cov = d.coverage;
  const partial = isPartialVerdict(live, cov);
  const mine = query.judge ? cell.byJudge.get(query.judge) : undefined;
  return (
    <Link
      href={`/runs/${runId}${triageSearch(query, { case: cell.caseId, criterion: cell.criterionId, page: page > 1 ? String(page) : undefined })}#cell`}
      data-testid={`cell-${cell.caseId}-${cell.criterionId}`}
      className="block rounded hover:bg-zinc-50"
    >
      <span className="tabular-nums font-medium">
        {r.finalScore === null ? "—" : r.finalScore.toFixed(2)}
      </span>
      <span className="text-xs text-zinc-600"> / {d.threshold}</span>{" "}
      {partial ? (
        // samples still pending: the score so far, never a pass or a FAIL
        <span
          className="rounded border border-dashed border-zinc-400 px-1 text-xs italic text-zinc-700"
          data-testid="cell-partial"
          title="samples are still arriving: this verdict may change"
        >
          partial
        </span>
      ) : (
        <span className={`text-xs font-semibold ${r.passed ? "text-green-800" : "text-red-700"}`}>
          {r.passed ? "pass" : "FAIL"}
        </span>
      )}
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
          {partial && ` (${pendingSamples(cov)} pending)`}
        </div>
      )}
      {mine && (
        <div className="text-xs text-zinc-700" data-testid="cell-judge">
          {query.judge}: {mine.mean === null ? "no answer" : mine.mean.toFixed(2)}
          {mine.failed > 0 && <span className="text-red-700"> · {mine.failed} failed</span>}
        </div>
      )}
      {!partial && (
        <div className="mt-0.5 flex flex-wrap gap-1">
          <ConsensusBadge level={r.consensusLevel} agreement={d.agreement} />
          {r.flagForReview && (
            <span
              className="rounded bg-red-700 px-1 text-xs text-white"
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
      )}
    </Link>
  );
}
