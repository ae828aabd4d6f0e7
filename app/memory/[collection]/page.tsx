import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { TradeoffChart, type TradeoffPoint } from "@/components/charts/tradeoff-chart";
import { ExperimentForm } from "@/components/memory/experiment-form";
import { ExperimentsProgress } from "@/components/memory/experiment-progress";
import { MetricsTable } from "@/components/memory/metrics-table";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { TableHead } from "@/components/ui/table-head";
import { getDb } from "@/db/client";
import { getExperimentResults, listExperiments } from "@/db/queries/experiments";
import { countMemories } from "@/db/queries/memories";
import { getExperimentLive } from "@/db/queries/progress";
import { getQrels, listStudyQueries } from "@/db/queries/study";
import { annotationProgress } from "@/lib/memory/annotation-progress";
import { compareExperiments, experimentMetrics, orderConsistency } from "@/lib/memory/study-metrics";
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
  const queries = listStudyQueries(db, collection);
  const qrels = getQrels(db, collection);
  const settings = readSettings(db);
  const progress = annotationProgress(db, collection);
  const experiments = listExperiments(db, collection);
  const results = new Map(experiments.map((e) => [e.id, getExperimentResults(db, e.id)]));
  const rows = experiments.map((e) => ({
    e,
    m: experimentMetrics(results.get(e.id) ?? [], qrels, e.config.topK, e.config.kind === "bm25"),
    done: results.get(e.id)?.length ?? 0,
  }));
  const points: TradeoffPoint[] = rows
    .filter((r) => r.e.status === "done")
    .map((r) => ({
      label: r.e.label,
      precision: r.m.precision.mean,
      low: r.m.precision.low,
      high: r.m.precision.high,
      latencyMs: r.m.latencyP50,
      costPerMonth: r.m.costPerMonth,
    }));
  const a = experiments.find((e) => e.id === sp.a);
  const b = experiments.find((e) => e.id === sp.b);
  const paired = a && b ? compareExperiments(results.get(a.id) ?? [], results.get(b.id) ?? [], qrels) : null;
  const consistency = a && b ? orderConsistency(results.get(a.id) ?? [], results.get(b.id) ?? []) : null;
  const firstOpen = progress.queries.find((q) => !q.complete && q.pooled > 0)?.queryId ?? queries[0]?.queryId;

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
          />
        </Card>
      )}
      {rows.length > 0 && (
        <Card
          title={`Results (${rows.length} configuration${rows.length === 1 ? "" : "s"}; intervals are 95 % bootstrap over queries)`}
        >
          <MetricsTable rows={rows} />
        </Card>
      )}
      {points.length > 0 && (
        <div className="grid gap-4 md:grid-cols-2">
          <Card title={`Precision vs latency (${points.length} configurations)`}>
            <TradeoffChart points={points} x="latencyMs" />
          </Card>
          <Card title={`Precision vs cost (${points.length} configurations)`}>
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
          {paired && consistency && (
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
          )}
        </Card>
      )}
    </div>
  );
}
