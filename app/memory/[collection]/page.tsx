import { notFound } from "next/navigation";
import { connection } from "next/server";
import { PeopleAgreementCard } from "@/components/agreement/people-card";
import type { TradeoffPoint } from "@/components/charts/tradeoff-chart";
import { ExperimentsProgress } from "@/components/memory/experiment-progress";
import type { MetricsRow } from "@/components/memory/metrics-table";
import { NewExperimentCard } from "@/components/memory/new-experiment-card";
import { PairedComparisonCard } from "@/components/memory/paired-comparison";
import { StudyHeader } from "@/components/memory/study-header";
import { StudyResultsCard } from "@/components/memory/study-results-card";
import { TradeoffCards } from "@/components/memory/tradeoff-cards";
import { type Db, getDb } from "@/db/client";
import { countMemories } from "@/db/queries/memories";
import { getExperimentLive } from "@/db/queries/progress";
import { studyPeopleAgreement } from "@/lib/agreement/people-reading";
import type { Experiment } from "@/lib/domain";
import { errorMessage } from "@/lib/errors";
import type { LiveProgress } from "@/lib/jobs/live";
import { annotationProgress } from "@/lib/memory/annotation-progress";
import { hookReadsNote } from "@/lib/memory/collection";
import type { ExperimentConfig } from "@/lib/memory/experiment";
import { BM25_RUN_DEPTH } from "@/lib/memory/experiment";
import { pairedPicks } from "@/lib/memory/paired-picks";
import { compareExperiments, orderConsistency } from "@/lib/memory/study-metrics";
import { type StudyReport, studyReport } from "@/lib/memory/study-report";
import { describePromotedMemoryJudge, promotedMemoryJudge } from "@/lib/settings/promote";
import { experimentGuard } from "@/lib/settings/promote-guard";
import { isOverridden } from "@/lib/settings/provenance";
import { enabledJudges, type Settings } from "@/lib/settings/schema";
import { readSettings } from "@/lib/settings/store";
import { collectionSchema } from "@/lib/validations/memory";

type Picks = { a?: string; b?: string };
type Props = { params: Promise<{ collection: string }>; searchParams: Promise<Picks> };

export default async function StudyPage({ params, searchParams }: Props) {
  await connection();
  const collection = decodeURIComponent((await params).collection);
  const sp = await searchParams;
  if (!collectionSchema.safeParse(collection).success) notFound();
  const db = getDb();
  const memories = await countMemories(db, collection);
  if (memories === 0) notFound();
  const settings = await readSettings(db);
  const progress = await annotationProgress(db, collection);
  const report = await studyReport(db, collection, settings.prices);
  const { labels } = report;
  const queries = progress.queries;
  const experiments = report.experiments.map((r) => r.experiment);
  const rows = metricsRows(report, settings);
  const charts = tradeoff(rows);
  const qrelsStudy = labels.convention === "qrels";
  const live = await liveExperiments(db, experiments);
  const people = await studyPeopleAgreement(db, collection);

  return (
    <div className="space-y-4">
      <ExperimentsProgress items={live} />
      <StudyHeader
        collection={collection}
        memories={memories}
        queries={queries.length}
        complete={progress.complete}
        annotations={progress.annotations}
        labels={labels}
        needsAnnotation={report.needsAnnotation}
        firstOpen={
          queries.find((q) => !q.labelled && q.pooled > 0)?.queryId ??
          queries.find((q) => !q.complete && q.pooled > 0)?.queryId ??
          queries[0]?.queryId
        }
      />
      <NewExperimentCard
        collection={collection}
        queries={queries.length}
        defaultModel={settings.memoryJudge.model}
        judges={enabledJudges(settings)}
        defaultMode={qrelsStudy ? "search" : "auto"}
        defaultTopK={qrelsStudy ? 10 : settings.memoryJudge.modes.auto.max_output}
        bm25Depth={BM25_RUN_DEPTH}
      />
      {rows.length > 0 && (
        <StudyResultsCard
          rows={rows}
          convention={labels.convention}
          best={report.best}
          hookReads={hookReadsNote(collection, settings.memoryJudge.collection)}
        />
      )}
      {charts.points.length > 0 && <TradeoffCards {...charts} />}
      {experiments.length >= 2 && <PairedComparisonCard experiments={experiments} {...paired(report, sp)} />}
      <PeopleAgreementCard r={people} what="the memories of this study's queries" />
    </div>
  );
}

/** The experiments running or queued, each with its progress as the page draws it. */
async function liveExperiments(db: Db, experiments: Experiment[]) {
  const out: { id: string; label: string; initial: LiveProgress }[] = [];
  for (const e of experiments) {
    if (e.status !== "running" && e.status !== "queued") continue;
    const initial = await getExperimentLive(db, e.id);
    if (initial) out.push({ id: e.id, label: e.label, initial });
  }
  return out;
}

/** A row of the results table per configuration: its figures, whether it is best, how to promote it. */
function metricsRows(report: StudyReport, settings: Settings): MetricsRow[] {
  // the configuration the memory judge holds now, as promoted (a hand edit since: none)
  const promoted = settings.provenance.memoryJudge;
  const inUse =
    promoted?.source === "experiment" && !isOverridden(settings, "memoryJudge", promoted)
      ? promoted.id
      : null;
  return report.experiments.map((r) => ({
    e: r.experiment,
    m: r.metrics,
    done: r.finished,
    planned: r.planned,
    complete: r.complete,
    notice: r.notice,
    best: report.best.best === r.experiment.id,
    promote: promoteOf(r, report, settings, inUse),
  }));
}

/** What using a finished configuration for the hook would set, or why it cannot be used. */
function promoteOf(
  r: StudyReport["experiments"][number],
  report: StudyReport,
  settings: Settings,
  inUse: string | null,
): MetricsRow["promote"] {
  if (!r.complete) return undefined;
  const config = r.experiment.config as ExperimentConfig;
  try {
    return {
      experimentId: r.experiment.id,
      mode: config.mode,
      sets: describePromotedMemoryJudge(
        promotedMemoryJudge(config, settings.memoryJudge, r.experiment.collection),
      ),
      guard: experimentGuard(report, r.experiment.id),
      inUse: inUse === r.experiment.id,
    };
  } catch (err) {
    return { unavailable: `Cannot be used for the hook: ${errorMessage(err)}` };
  }
}

/** The charts show finished configurations only: a partial run's precision is not its precision. */
function tradeoff(rows: MetricsRow[]) {
  const finished = rows.filter((r) => r.complete);
  const points: TradeoffPoint[] = finished.map((r) => ({
    label: r.e.label,
    precision: r.m.precision.mean,
    low: r.m.precision.low,
    high: r.m.precision.high,
    latencyMs: r.m.latencyP50,
    costPerMonth: r.m.cost.state === "unpriced" ? null : r.m.costPerMonth,
  }));
  return {
    points,
    unfinished: rows.length - finished.length,
    unpriced: finished.filter((r) => r.m.cost.state === "unpriced").length,
  };
}

/**
 * The experiments picked as A and B (two different ones unless the address asks otherwise), and
 * B − A over the queries both ran.
 */
function paired(report: StudyReport, sp: Picks) {
  const picks = pairedPicks(
    report.experiments.map((r) => ({ id: r.experiment.id, complete: r.complete })),
    sp,
  );
  const a = report.experiments.find((r) => r.experiment.id === picks.a);
  const b = report.experiments.find((r) => r.experiment.id === picks.b);
  return {
    a: picks.a,
    b: picks.b,
    partialNotices: [a, b].filter((x) => x && !x.complete).map((x) => x?.notice),
    paired:
      a && b
        ? compareExperiments(a.rows, b.rows, report.qrels, report.labels.convention, a.experiment.config.topK)
        : null,
    consistency: a && b ? orderConsistency(a.rows, b.rows) : null,
  };
}
