import { Card } from "@/components/ui/card";
import type { ResultRow } from "@/lib/domain";
import type { PageOf } from "@/lib/runs/paging";
import {
  type TriageQuery,
  type TriageRow,
  type TriageView,
  triageSearch,
  verdictsHeading,
} from "@/lib/runs/triage";
import { CasePager, pageRange } from "./case-pager";
import { ResultsTable } from "./results-table";
import { TriageControls } from "./triage-controls";

type Props = {
  runId: string;
  /** the run is live: verdicts with samples pending are partial */
  live: boolean;
  triage: {
    query: TriageQuery;
    judges: string[];
    view: TriageView;
    page: PageOf<TriageRow>;
    caseNames: ReadonlyMap<string, string>;
    results: ReadonlyMap<string, ResultRow>;
    /** the selected cell's params, kept through a filter change and a page change */
    keep: { case?: string; criterion?: string };
  };
  criteria: string[];
  selected?: { caseId: string; criterionId: string };
};

/**
 * The verdict table: how many cells have a verdict, the triage controls, one page of cases (under a
 * filter, of the matching cases) and the pager.
 */
export function VerdictsCard({ runId, live, triage, criteria, selected }: Props) {
  const { query, view, page } = triage;
  const href = (n: number) =>
    `/runs/${runId}${triageSearch(query, { ...triage.keep, page: n > 1 ? String(n) : undefined })}#verdicts`;
  return (
    <div id="verdicts">
      <Card
        title={`Verdicts (${verdictsHeading(view, query)}${page.pages > 1 ? ` · ${pageRange(page)}` : ""})`}
      >
        <TriageControls
          query={query}
          counts={view.counts}
          judges={triage.judges}
          criteria={criteria}
          keep={triage.keep}
        />
        <ResultsTable
          runId={runId}
          live={live}
          rows={page.rows}
          criteria={view.criteria}
          names={triage.caseNames}
          results={triage.results}
          query={query}
          page={page.page}
          selected={selected}
        />
        <CasePager page={page} href={href} />
      </Card>
    </div>
  );
}
