import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { LabelButtons } from "@/components/agreement/label-buttons";
import { SpreadChart } from "@/components/charts/spread-chart";
import { CoverageLine } from "@/components/runs/coverage-line";
import { FailuresTable } from "@/components/runs/failures-table";
import { LiveProgress } from "@/components/runs/live-progress";
import { PanelStatsTable } from "@/components/runs/panel-stats-table";
import { ResampleButton, RetryFailedButton } from "@/components/runs/requeue-buttons";
import { ResultsTable } from "@/components/runs/results-table";
import { SampleList } from "@/components/runs/sample-list";
import { StatusBadge } from "@/components/runs/status-badge";
import { TriageControls } from "@/components/runs/triage-controls";
import { Card, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { getVerdictLabel } from "@/db/queries/labels";
import { getRunLive } from "@/db/queries/progress";
import {
  getRunById,
  getRunCases,
  getRunResults,
  getRunSampleHistory,
  getRunSamples,
} from "@/db/queries/runs";
import { isLive } from "@/lib/jobs/live";
import { mean } from "@/lib/judging/aggregate";
import { panelStats } from "@/lib/judging/panel-stats";
import { groupFailures, runCoverage } from "@/lib/runs/coverage";
import { DETERMINISTIC_JUDGE } from "@/lib/runs/plan-run";
import { parseTriageQuery, triageCells, triageView } from "@/lib/runs/triage";
import { runIdSchema } from "@/lib/validations/runs";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export default async function RunPage({ params, searchParams }: Props) {
  await connection();
  const { id } = await params;
  const sp = await searchParams;
  if (!runIdSchema.safeParse(id).success) notFound();
  const db = getDb();
  const run = getRunById(db, { id });
  if (!run) notFound();
  const progress = getRunLive(db, id);
  if (!progress) notFound();
  const cases = getRunCases(db, { runId: id });
  const results = getRunResults(db, { runId: id });
  const samples = getRunSamples(db, { runId: id });
  const criteria = [...new Set(cases.flatMap((c) => c.criteria.map((x) => x.id)))];

  const llmCells = cases.flatMap((c) =>
    c.criteria.filter((x) => x.type === "llm").map((x) => ({ caseId: c.caseId, criterionId: x.id })),
  );
  const spCase = typeof sp.case === "string" ? sp.case : undefined;
  const spCriterion = typeof sp.criterion === "string" ? sp.criterion : undefined;
  const selected = spCase && spCriterion ? { caseId: spCase, criterionId: spCriterion } : llmCells[0];
  const hasDeterministic = cases.some((c) => c.criteria.some((x) => x.type === "deterministic"));
  const triageJudges = [...run.options.judges, ...(hasDeterministic ? [DETERMINISTIC_JUDGE] : [])];
  const query = parseTriageQuery(sp, { judges: triageJudges, criteria });
  const view = triageView(
    triageCells(cases, results, samples),
    cases.map((c) => c.caseId),
    criteria,
    query,
    run.options.n,
  );
  const selCase = selected && cases.find((c) => c.caseId === selected.caseId);
  const selCriterion = selCase ? selCase.criteria.find((x) => x.id === selected.criterionId) : undefined;
  const cellLabel = selected
    ? getVerdictLabel(db, { runId: id, caseId: selected.caseId, criterionId: selected.criterionId })
    : undefined;
  const judgeOrder = (j: string) => run.options.judges.indexOf(j) + 1 || Number.MAX_SAFE_INTEGER;
  const cellSamples = selected
    ? samples
        .filter((s) => s.caseId === selected.caseId && s.criterionId === selected.criterionId)
        .sort((x, y) => judgeOrder(x.judge) - judgeOrder(y.judge) || x.sampleIndex - y.sampleIndex)
    : [];
  // failed samples are counted apart: never in a mean, a spread, a chart or its count
  const scored = cellSamples.filter((s) => s.score !== null && !s.error);
  const failedInCell = cellSamples.length - scored.length;
  const cellJudges = [...new Set(scored.map((s) => s.judge))];
  const askedJudges = selCriterion?.type === "deterministic" ? 1 : run.options.judges.length;
  const askedSamples = selCriterion?.type === "deterministic" ? 1 : run.options.judges.length * run.options.n;
  const judgeMeans = cellJudges.map((j) => ({
    judge: j,
    mean: mean(scored.filter((s) => s.judge === j).map((s) => s.score as number)),
  }));
  const coverage = runCoverage(run.options.judges, run.totalTasks, samples);
  const failures = groupFailures(samples);
  const unpriced = run.options.unpriced ?? [];
  const live = isLive(run.status);
  const supersededInCell = selected
    ? getRunSampleHistory(db, { runId: id, caseId: selected.caseId, criterionId: selected.criterionId })
        .filter((s) => s.supersededAt !== null)
        .sort(
          (x, y) => judgeOrder(x.judge) - judgeOrder(y.judge) || x.sampleIndex - y.sampleIndex || x.id - y.id,
        )
    : [];

  return (
    <div className="space-y-4">
      <PageTitle
        actions={
          <div className="flex flex-wrap items-center gap-3 text-sm">
            <span className="text-zinc-700">
              Export samples:{" "}
              <a
                href={`/runs/${run.id}/export?format=csv`}
                className="text-indigo-700 underline"
                data-testid="export-csv"
                download
              >
                CSV
              </a>{" "}
              ·{" "}
              <a
                href={`/runs/${run.id}/export?format=json`}
                className="text-indigo-700 underline"
                data-testid="export-json"
                download
              >
                JSON
              </a>
            </span>
            <Link href={`/runs/compare?b=${run.id}`} className="text-indigo-700 underline">
              Compare with another run
            </Link>
          </div>
        }
      >
        {run.suiteName} <StatusBadge status={run.status} />
      </PageTitle>
      <p className="-mt-3 text-xs text-zinc-600">
        <span className="font-mono">{run.id}</span> · judges {run.options.judges.join(", ")} · N ={" "}
        {run.options.n} · temperature {run.options.temperature} · {cases.length} cases × {criteria.length}{" "}
        criteria
        {run.error && <span className="ml-2 text-red-700">{run.error}</span>}
      </p>
      <p className="-mt-2 text-sm">
        Coverage: <CoverageLine coverage={coverage} testId="run-coverage" />
        {unpriced.length > 0 && (
          <span className="ml-2 text-xs text-zinc-600" data-testid="run-unpriced">
            cost unpriced for {unpriced.join(", ")} (no price in Settings)
          </span>
        )}
      </p>
      <Card>
        <LiveProgress runId={run.id} initial={progress} unpriced={unpriced.length > 0} />
      </Card>
      {failures.length > 0 && (
        <Card
          title={`Failed samples: ${coverage.samples_failed} of ${coverage.samples_asked}, by judge and error (counted apart from every score)`}
        >
          <div className="mb-2 flex flex-wrap items-center gap-3 text-xs text-zinc-600">
            <RetryFailedButton runId={run.id} failed={coverage.samples_failed} disabled={live} />
            <span>
              {live
                ? "Wait for the run to stop to retry."
                : "Each failed sample is kept, marked retried, and its call made again through the run."}
            </span>
          </div>
          <FailuresTable failures={failures} runId={run.id} />
        </Card>
      )}
      <div id="verdicts">
        <Card
          title={`Verdicts (${results.length} of ${cases.length * criteria.length} case × criterion cells${query.status !== "all" || query.judge ? ` · ${view.matching} match the filter` : ""})`}
        >
          <TriageControls
            query={query}
            counts={view.counts}
            judges={triageJudges}
            criteria={criteria}
            keep={{ case: spCase, criterion: spCriterion }}
          />
          <ResultsTable runId={run.id} cases={cases} view={view} query={query} selected={selected} />
        </Card>
      </div>
      {selected && selCriterion && (
        <div id="cell">
          <Card
            title={`${selCase?.name} · ${selected.criterionId}: ${scored.length} of ${askedSamples} samples answered, from ${cellJudges.length} of ${askedJudges} judge${askedJudges === 1 ? "" : "s"}${failedInCell ? ` · ${failedInCell} failed (not shown in the chart)` : ""}`}
          >
            <div className="mb-3 flex flex-wrap items-center gap-3 text-sm" data-testid="human-label">
              <span className="font-medium text-zinc-700">Your label for this verdict:</span>
              <LabelButtons
                runId={run.id}
                caseId={selected.caseId}
                criterionId={selected.criterionId}
                scale={selCriterion.scale}
                initial={cellLabel ? { passed: cellLabel.passed, score: cellLabel.score } : null}
              />
            </div>
            {selCriterion.type === "llm" && scored.length > 0 && (
              <SpreadChart
                judges={cellJudges}
                samples={scored.map((s) => ({
                  judge: s.judge,
                  score: s.score as number,
                  sample: s.sampleIndex,
                }))}
                means={judgeMeans}
                panelMean={judgeMeans.length ? mean(judgeMeans.map((m) => m.mean)) : null}
                threshold={selCriterion.threshold}
                scale={selCriterion.scale}
              />
            )}
            <details className="my-2 text-sm">
              <summary className="cursor-pointer text-xs text-zinc-600">the output that was judged</summary>
              <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap rounded bg-zinc-50 p-2 text-xs">
                {selCase?.output}
              </pre>
            </details>
            <div className="my-2 flex flex-wrap items-center gap-3 text-xs text-zinc-600">
              <ResampleButton
                runId={run.id}
                caseId={selected.caseId}
                criterionId={selected.criterionId}
                disabled={live || cellSamples.length === 0}
              />
            </div>
            <SampleList
              runId={run.id}
              samples={cellSamples}
              superseded={supersededInCell}
              unpriced={unpriced}
            />
          </Card>
        </div>
      )}
      <Card title="Panel agreement (over this run's cases)">
        <PanelStatsTable stats={panelStats(samples, run.options.judges)} />
      </Card>
    </div>
  );
}
