import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { TradeoffChart, type TradeoffPoint } from "@/components/charts/tradeoff-chart";
import { ExperimentForm } from "@/components/memory/experiment-form";
import { ExperimentsProgress } from "@/components/memory/experiment-progress";
import { FreshAnnotationButton } from "@/components/memory/fresh-annotation-button";
import { MetricsTable } from "@/components/memory/metrics-table";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import { getDb } from "@/db/client";
import { countMemories } from "@/db/queries/memories";
import { getExperimentLive } from "@/db/queries/progress";
import { errorMessage } from "@/lib/errors";
import { annotationProgress } from "@/lib/memory/annotation-progress";
import type { ExperimentConfig } from "@/lib/memory/experiment";
import { BM25_RUN_DEPTH } from "@/lib/memory/experiment";
import { compareExperiments, MIN_JUDGE_ANSWERED, orderConsistency } from "@/lib/memory/study-metrics";
import { studyReport } from "@/lib/memory/study-report";
import { describePromotedMemoryJudge, notBestReason, promotedMemoryJudge } from "@/lib/settings/promote";
import { isOverridden } from "@/lib/settings/provenance";
import { enabledJudges } from "@/lib/settings/schema";
import { readSettings } from "@/lib/settings/store";
import { collectionSchema } from "@/lib/validations/memory";

type Props = { params: Promise<{ collection: string }>; searchParams: Promise<{ a?: string; b?: string }> };

export default async function StudyPage({ params, searchParams }: Props) {
  await connection();
  const collection = decodeURIComponent((await params).collection);
  const sp = await searchParams;
  if (!collectionSchema.safeParse(collection).success) notFound();
  const db = getDb();
  const memories = countMemories(db, collection);
  if (memories === 0) notFound();
  const settings = readSettings(db);
  const progress = annotationProgress(db, collection);
  const report = studyReport(db, collection, settings.prices);
  const { labels, qrels } = report;
  const queries = progress.queries;
  const experiments = report.experiments.map((r) => r.experiment);
  // the configuration the memory judge holds now, as promoted (a hand edit since: none)
  const promoted = settings.provenance.memoryJudge;
  const inUse =
    promoted?.source === "experiment" && !isOverridden(settings, "memoryJudge", promoted)
      ? promoted.id
      : null;
  const promoteOf = (r: (typeof report.experiments)[number]) => {
    if (!r.complete) return undefined;
    const config = r.experiment.config as ExperimentConfig;
    try {
      const mix = r.metrics.pathMix;
      return {
        experimentId: r.experiment.id,
        mode: config.mode,
        sets: describePromotedMemoryJudge(promotedMemoryJudge(config, settings.memoryJudge)),
        notBest: notBestReason(report.best, r.experiment.id, {
          answered: mix.answered,
          asked: mix.asked,
          share: mix.answeredShare,
        }),
        inUse: inUse === r.experiment.id,
      };
    } catch (err) {
      return { unavailable: `Cannot be used for the hook: ${errorMessage(err)}` };
    }
  };
  const rows = report.experiments.map((r) => ({
    e: r.experiment,
    m: r.metrics,
    done: r.finished,
    planned: r.planned,
    complete: r.complete,
    notice: r.notice,
    best: report.best.best === r.experiment.id,
    promote: promoteOf(r),
  }));
  // the charts show finished configurations only: a partial run's precision is not its precision
  const finished = rows.filter((r) => r.complete);
  const points: TradeoffPoint[] = finished.map((r) => ({
    label: r.e.label,
    precision: r.m.precision.mean,
    low: r.m.precision.low,
    high: r.m.precision.high,
    latencyMs: r.m.latencyP50,
    costPerMonth: r.m.cost.state === "unpriced" ? null : r.m.costPerMonth,
  }));
  const unfinished = rows.length - finished.length;
  const unpriced = finished.filter((r) => r.m.cost.state === "unpriced").length;
  const a = report.experiments.find((r) => r.experiment.id === sp.a);
  const b = report.experiments.find((r) => r.experiment.id === sp.b);
  const paired =
    a && b ? compareExperiments(a.rows, b.rows, qrels, labels.convention, a.experiment.config.topK) : null;
  const consistency = a && b ? orderConsistency(a.rows, b.rows) : null;
  const partial = [a, b].filter((x) => x && !x.complete);
  const firstOpen =
    queries.find((q) => !q.labelled && q.pooled > 0)?.queryId ??
    queries.find((q) => !q.complete && q.pooled > 0)?.queryId ??
    queries[0]?.queryId;

  return (
    <div className="space-y-4">
      <ExperimentsProgress
        items={experiments
          .filter((e) => e.status === "running" || e.status === "queued")
          .flatMap((e) => {
            const initial = getExperimentLive(db, e.id);
            return initial ? [{ id: e.id, label: e.label, initial }] : [];
          })}
      />
      <PageTitle
        actions={
          firstOpen ? (
            <Link
              href={`/memory/${encodeURIComponent(collection)}/annotate?q=${encodeURIComponent(firstOpen)}`}
              className="rounded border border-zinc-300 bg-white px-3 py-1.5 text-sm hover:bg-zinc-50"
              data-testid="annotate-link"
            >
              Annotate
            </Link>
          ) : undefined
        }
      >
        Memory study: {collection}
      </PageTitle>
      <p className="-mt-2 text-sm text-zinc-600" data-testid="annotation-progress">
        {memories} memories · {queries.length} queries ·{" "}
        <strong>
          {progress.complete} of {queries.length} queries complete
        </strong>{" "}
        (every pooled candidate annotated) · {progress.annotations} annotations
      </p>
      <div className="-mt-1 flex flex-wrap items-center justify-between gap-2 text-sm text-zinc-600">
        <p data-testid="labels-info">
          <span className="font-medium text-zinc-800">Labels:</span> {labels.description}.
          {report.needsAnnotation > 0 && (
            <>
              {" "}
              <strong className="text-amber-800" data-testid="needs-annotation">
                {report.needsAnnotation} of {queries.length} queries need annotation
              </strong>{" "}
              and are left out of every metric until a person labels them.
            </>
          )}
        </p>
        {labels.convention === "annotated" && queries.length > 0 && progress.annotations > 0 && (
          <FreshAnnotationButton collection={collection} queries={queries.length} />
        )}
      </div>
      {queries.length === 0 ? (
        <EmptyState title="No study queries">
          This collection has memories but no queries to measure with. Import a study (
          <code>jury memory import-study</code>) or a BEIR collection.
        </EmptyState>
      ) : (
        <Card title="Run a configuration over every query">
          <ExperimentForm
            collection={collection}
            defaultModel={settings.memoryJudge.model}
            judges={enabledJudges(settings)}
            defaultMode={labels.convention === "qrels" ? "search" : "auto"}
            defaultTopK={labels.convention === "qrels" ? 10 : settings.memoryJudge.modes.auto.max_output}
            bm25Depth={BM25_RUN_DEPTH}
          />
        </Card>
      )}
      {rows.length > 0 && (
        <Card
          title={`Results (${rows.length} configuration${rows.length === 1 ? "" : "s"}; intervals are 95 % bootstrap over queries)`}
        >
          <p
            className={`mb-2 text-sm ${report.best.best ? "text-green-800" : "text-zinc-700"}`}
            data-testid="best-verdict"
          >
            {report.best.reason}.
          </p>
          <p className="mb-3 text-xs text-zinc-600">
            Each figure is given twice: over <strong>all</strong> queries (what the hook would inject, its
            fallbacks included) and over the queries the <strong>judge</strong> answered. A configuration is
            called best only when its judge answered at least {Math.round(MIN_JUDGE_ANSWERED * 100)} % of the
            queries it was asked and a paired sign-flip test over the same queries supports its lead.
          </p>
          <MetricsTable rows={rows} convention={labels.convention} />
        </Card>
      )}
      {points.length > 0 && (
        <div className="grid gap-4 md:grid-cols-2">
          <Card
            title={`Precision vs latency (${points.length} finished configuration${points.length === 1 ? "" : "s"}${unfinished ? `; ${unfinished} unfinished not shown` : ""})`}
          >
            <TradeoffChart points={points} x="latencyMs" />
          </Card>
          <Card
            title={`Precision vs cost (${points.length - unpriced} finished configuration${points.length - unpriced === 1 ? "" : "s"}${unpriced ? `; ${unpriced} unpriced not shown` : ""}${unfinished ? `; ${unfinished} unfinished not shown` : ""})`}
          >
            <TradeoffChart points={points} x="costPerMonth" />
          </Card>
        </div>
      )}
      {experiments.length >= 2 && (
        <Card title="Paired comparison (B − A, per query)">
          <form method="get" className="mb-3 flex flex-wrap items-center gap-2 text-sm">
            {(["a", "b"] as const).map((k) => (
              <label key={k}>
                {k.toUpperCase()}{" "}
                <select
                  name={k}
                  defaultValue={k === "a" ? sp.a : sp.b}
                  className="rounded border border-zinc-300 px-2 py-1 text-sm"
                >
                  {experiments.map((e) => (
                    <option key={e.id} value={e.id}>
                      {e.id} · {e.label}
                    </option>
                  ))}
                </select>
              </label>
            ))}
            <button type="submit" className="rounded bg-indigo-600 px-3 py-1 text-white">
              Compare
            </button>
          </form>
          {partial.length > 0 && (
            <p className="mb-2 text-xs text-amber-800" data-testid="paired-incomplete">
              {partial.map((x) => x?.notice).join("; ")}: the comparison covers only the queries both
              finished.
            </p>
          )}
          {paired && consistency && (
            <ScrollTable label="Paired comparison">
              <table className="w-full text-left text-sm tabular-nums" data-testid="paired-table">
                <TableHead
                  columns={[
                    "Metric",
                    "B − A",
                    "95 % interval",
                    { label: "p (sign-flip)", title: "exact sign-flip randomisation test over queries" },
                    "Queries",
                  ]}
                />
                <tbody>
                  {paired.map((p) => (
                    <tr key={p.metric}>
                      <td>{p.metric}</td>
                      <td>
                        {Number.isFinite(p.meanDiff)
                          ? `${p.meanDiff >= 0 ? "+" : ""}${(p.meanDiff * 100).toFixed(1)} pts`
                          : "—"}
                      </td>
                      <td>
                        {Number.isFinite(p.low)
                          ? `[${(p.low * 100).toFixed(1)}, ${(p.high * 100).toFixed(1)}]`
                          : "—"}
                      </td>
                      <td>{p.p.toFixed(3)}</td>
                      <td>{p.n}</td>
                    </tr>
                  ))}
                  <tr>
                    <td title="run the same judge configuration twice with different shuffle salts to read this as order consistency">
                      Kept-set agreement
                    </td>
                    <td colSpan={4}>
                      identical on {consistency.identical} of {consistency.n} queries · mean Jaccard{" "}
                      {Number.isFinite(consistency.meanJaccard) ? consistency.meanJaccard.toFixed(2) : "—"}
                    </td>
                  </tr>
                </tbody>
              </table>
            </ScrollTable>
          )}
        </Card>
      )}
    </div>
  );
}
