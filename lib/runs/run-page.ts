import type { Db } from "@/db/client";
import { getRunBatches } from "@/db/queries/batches";
import { getVerdictLabel } from "@/db/queries/labels";
import { getRunLive } from "@/db/queries/progress";
import { getRunScores } from "@/db/queries/run-live";
import {
  type CaseIndexEntry,
  getCellJudgeStats,
  getFailureMessages,
  getRunCase,
  getRunCaseIndex,
  getRunResultsForCases,
  getRunSamplesForCases,
  getVerdictSummaries,
  judgeCountsOf,
} from "@/db/queries/run-page";
import { getRunById, getRunCost, getRunSampleHistory } from "@/db/queries/runs";
import type { RunOptions } from "@/db/schema";
import type { RunCase, Sample } from "../domain";
import { isLive } from "../jobs/live";
import { mean } from "../judging/aggregate";
import { panelStatsFromCounts } from "../judging/panel-stats-from-counts";
import { runCost } from "./cost-summary";
import { groupFailureMessages, runCoverageFrom } from "./coverage";
import { computeVerdicts } from "./finalize-run";
import { verdictRows } from "./live-verdicts";
import { pageOf, parsePage } from "./paging";
import { DETERMINISTIC_JUDGE } from "./plan-run";
import { scoreSpreads } from "./score-spreads";
import { cellKey, parseTriageQuery, triageCellsFrom, triageView, verdictSummaries } from "./triage";

/**
 * Everything the run page (app/runs/[id]/page.tsx) shows, at any size of run. What covers the whole
 * run (coverage, failures by judge and error, the triage counts and order, panel agreement) comes
 * from SQL aggregates; rows are read only for the cases of the page shown (their verdicts) and for
 * the selected cell (its case and samples). The score spreads per criterion and judge come from the
 * same per cell × judge aggregates.
 */

type Params = Record<string, string | string[] | undefined>;

export type CellRef = { caseId: string; criterionId: string };

export async function loadRunPage(db: Db, runId: string, sp: Params) {
  const run = await getRunById(db, { id: runId });
  if (!run) return undefined;
  const progress = await getRunLive(db, runId);
  if (!progress) return undefined;
  const cases = await getRunCaseIndex(db, { runId });
  const criteria = [...new Set(cases.flatMap((c) => c.criteria.map((x) => x.id)))];
  const stats = await getCellJudgeStats(db, { runId });
  const live = isLive(run.status);
  // a live run's verdicts are computed from its samples so far (partial), not read from a finish
  const liveRows = live ? await liveVerdicts(db, run, cases) : undefined;
  const verdicts = liveRows ? verdictSummaries(liveRows) : await getVerdictSummaries(db, { runId });

  const hasDeterministic = cases.some((c) => c.criteria.some((x) => x.type === "deterministic"));
  const triageJudges = [...run.options.judges, ...(hasDeterministic ? [DETERMINISTIC_JUDGE] : [])];
  const query = parseTriageQuery(sp, { judges: triageJudges, criteria });
  const view = triageView(
    triageCellsFrom(cases, verdicts, stats, { live }),
    cases.map((c) => c.caseId),
    criteria,
    query,
    run.options.n,
  );
  const page = pageOf(view.rows, parsePage(sp.page));
  const pageCaseIds = page.rows.map((r) => r.caseId);
  const onPageRows = liveRows
    ? liveRows.filter((r) => pageCaseIds.includes(r.caseId))
    : await getRunResultsForCases(db, { runId, caseIds: pageCaseIds });
  const pageResults = new Map(onPageRows.map((r) => [cellKey(r.caseId, r.criterionId), r]));
  const onPage = new Set(pageCaseIds);
  const caseNames = new Map(cases.filter((c) => onPage.has(c.caseId)).map((c) => [c.caseId, c.name]));

  const coverage = runCoverageFrom(run.options.judges, run.totalTasks, judgeCountsOf(stats));
  const failures =
    coverage.samples_failed > 0 ? groupFailureMessages(await getFailureMessages(db, { runId })) : [];

  const spCase = typeof sp.case === "string" ? sp.case : undefined;
  const spCriterion = typeof sp.criterion === "string" ? sp.criterion : undefined;
  const firstLlm = cases.flatMap((c) =>
    c.criteria.filter((x) => x.type === "llm").map((x) => ({ caseId: c.caseId, criterionId: x.id })),
  )[0];
  const selected: CellRef | undefined =
    spCase && spCriterion ? { caseId: spCase, criterionId: spCriterion } : firstLlm;

  return {
    run,
    live,
    progress,
    caseCount: cases.length,
    criteria,
    coverage,
    failures,
    unpriced: run.options.unpriced ?? [],
    cost: runCost(await getRunCost(db, { runId })),
    batches: (await getRunBatches(db, { runId })).map((b) => ({
      id: b.id,
      judge: b.judge,
      status: b.status,
      total: b.taskIds.length,
      succeeded: b.succeeded,
      failed: b.failed,
    })),
    triage: {
      query,
      judges: triageJudges,
      view,
      page,
      caseNames,
      results: pageResults,
      keep: { case: spCase, criterion: spCriterion },
    },
    selected,
    cell: selected ? await loadCell(db, run, selected) : undefined,
    panel: panelStatsFromCounts(stats, run.options.judges),
    spreads: scoreSpreads({ cases, cells: stats, judges: run.options.judges, n: run.options.n }),
  };
}

type RunLike = {
  id: string;
  options: Pick<RunOptions, "judges" | "n" | "criterionJudges" | "criterionN">;
};

/**
 * A live run's verdicts so far: the finished run's rule (computeVerdicts) over the samples stored
 * until now. The page marks the ones with samples pending as partial.
 */
async function liveVerdicts(
  db: Db,
  run: RunLike & { options: Pick<RunOptions, "panel" | "criterionJudges"> },
  cases: CaseIndexEntry[],
) {
  const scores = await getRunScores(db, { runId: run.id });
  const verdicts = computeVerdicts(cases, scores, run.options.judges, {
    n: run.options.n,
    panel: run.options.panel,
    criterionJudges: run.options.criterionJudges,
  });
  return verdictRows(run.id, verdicts);
}

/**
 * One case × criterion cell: its case, its current samples in judge then sample order, the
 * superseded ones apart, and what its figures rest on. Failed samples are counted apart: never in a
 * mean, a spread, a chart or its count.
 */
/** The judges asked on a criterion: its own panel (promoted in Settings), else the run's. */
const panelOf = (run: RunLike, criterionId: string) =>
  run.options.criterionJudges?.[criterionId] ?? run.options.judges;

async function loadCell(db: Db, run: RunLike, selected: CellRef) {
  const c: RunCase | undefined = await getRunCase(db, { runId: run.id, caseId: selected.caseId });
  const criterion = c?.criteria.find((x) => x.id === selected.criterionId);
  if (!c || !criterion) return undefined;
  const judgeOrder = (j: string) => run.options.judges.indexOf(j) + 1 || Number.MAX_SAFE_INTEGER;
  const samples = (
    await getRunSamplesForCases(db, {
      runId: run.id,
      caseIds: [selected.caseId],
      criterionId: selected.criterionId,
    })
  ).sort((x, y) => judgeOrder(x.judge) - judgeOrder(y.judge) || x.sampleIndex - y.sampleIndex);
  const superseded = (await getRunSampleHistory(db, { runId: run.id, ...selected }))
    .filter((s) => s.supersededAt !== null)
    .sort(
      (x, y) => judgeOrder(x.judge) - judgeOrder(y.judge) || x.sampleIndex - y.sampleIndex || x.id - y.id,
    );
  const scored = samples.filter((s) => s.score !== null && !s.error);
  const judges = [...new Set(scored.map((s) => s.judge))];
  const deterministic = criterion.type === "deterministic";
  const askedSamples = deterministic
    ? 1
    : panelOf(run, selected.criterionId).length *
      (run.options.criterionN?.[selected.criterionId] ?? run.options.n);
  const judgeMeans = judges.map((j) => ({
    judge: j,
    mean: mean(scored.filter((s) => s.judge === j).map((s) => s.score as number)),
  }));
  return {
    ...selected,
    caseName: c.name,
    output: c.output,
    criterion,
    samples,
    superseded,
    scored: scored as (Sample & { score: number })[],
    failed: samples.length - scored.length,
    judges,
    judgeMeans,
    panelMean: judgeMeans.length ? mean(judgeMeans.map((m) => m.mean)) : null,
    askedJudges: deterministic ? 1 : panelOf(run, selected.criterionId).length,
    askedSamples,
    /** samples neither answered nor failed yet (a live run's cell is partial while any is) */
    pending: Math.max(0, askedSamples - samples.length),
    n: deterministic ? 1 : (run.options.criterionN?.[selected.criterionId] ?? run.options.n),
    label: await getVerdictLabel(db, { runId: run.id, ...selected }),
  };
}

export type CellDetailData = NonNullable<Awaited<ReturnType<typeof loadCell>>>;
