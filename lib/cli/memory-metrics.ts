// `jury memory metrics <id>`, and the figures `memory experiment` prints when it ends: as JSON, or as
// text (labels, paths, the set figures over all queries and over the queries the judge answered, the
// ranked figures, latency and cost).
import type { Db } from "@/db/client";
import { JuryError } from "../errors";
import type { CostSummary, MetricCI, MetricSet } from "../memory/study-metrics";
import type { singleExperimentReport } from "../memory/study-report";

type Report = Awaited<ReturnType<typeof singleExperimentReport>>;
type StudyMetrics = typeof import("../memory/study-metrics");

const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "—");

/** Prints experiment `id`'s metrics; with `collection`, refuses an experiment of another collection. */
export async function printMetrics(db: Db, id: string, json: boolean, collection?: string): Promise<number> {
  const { readSettings } = await import("../settings/store");
  const { singleExperimentReport, requireCollection } = await import("../memory/study-report");
  const figures = await import("../memory/study-metrics");
  if (collection !== undefined) await requireCollection(db, collection);
  const { prices } = await readSettings(db);
  const r = await singleExperimentReport(db, id, prices);
  const e = r.experiment;
  if (collection !== undefined && e.collection !== collection)
    throw new JuryError(
      "usage",
      `experiment ${id} belongs to collection "${e.collection}", not "${collection}"`,
    );
  process.stdout.write(
    json ? `${JSON.stringify(metricsJson(id, r, figures), null, 2)}\n` : metricsText(id, r, figures),
  );
  return 0;
}

function metricsJson(id: string, r: Report, { evidenceLine, MIN_JUDGE_ANSWERED }: StudyMetrics) {
  const e = r.experiment;
  return {
    experiment_id: id,
    label: e.label,
    collection: e.collection,
    status: e.status,
    complete: r.complete,
    notice: r.notice ?? null,
    queries: { finished: r.finished, planned: r.planned, needs_annotation: r.needsAnnotation },
    labels: r.labels,
    config: e.config,
    min_judge_answered: MIN_JUDGE_ANSWERED,
    evidence: evidenceLine(r.metrics),
    metrics: r.metrics,
  };
}

function metricsText(id: string, r: Report, figures: StudyMetrics): string {
  const { describePathMix, evidenceLine, MIN_JUDGE_ANSWERED } = figures;
  const e = r.experiment;
  const m = r.metrics;
  const mix = m.pathMix;
  const qrels = m.convention === "qrels";
  return [
    `${id}: ${e.label}`,
    ...(r.notice ? [`  NOTE: ${r.notice}`] : []),
    `  labels: ${r.labels.description}`,
    ...(r.needsAnnotation
      ? [`  ${r.needsAnnotation} queries need annotation: left out of every metric`]
      : []),
    `  paths: ${describePathMix(mix)}`,
    ...mix.errors.slice(0, 3).map((x) => `    ${x.n}× ${x.message.slice(0, 160)}`),
    `  all queries (what the hook would inject, fallbacks included):`,
    ...setRows(m, qrels),
    ...(m.judgeAnswered
      ? [
          `  queries the judge answered (${mix.answered} of ${mix.queries}${mix.asked && mix.answeredShare < MIN_JUDGE_ANSWERED ? `; below ${Math.round(MIN_JUDGE_ANSWERED * 100)} %, never called best` : ""}):`,
          ...setRows(m.judgeAnswered, qrels),
        ]
      : []),
    `  ranked (${e.config.kind === "bm25" ? "BM25 candidates" : "what the judge kept"}):`,
    row(m.ndcg10),
    row(m.recall100),
    row(m.recall1000),
    `  ${evidenceLine(m)}`,
    `  latency p50 ${m.latencyP50.toFixed(1)} ms, p95 ${m.latencyP95.toFixed(1)} ms; cost ${costText(m.cost, figures)}`,
    "",
  ].join("\n");
}

/** One figure: its mean and 95 % interval over n queries, or why there is none. */
function row(c: MetricCI): string {
  return c.n === 0
    ? `    ${c.label.padEnd(13)} —  n=0 (${c.why ?? "no query to average over"})`
    : `    ${c.label.padEnd(13)} ${pct(c.mean).padStart(6)}  [${pct(c.low)}, ${pct(c.high)}]  n=${c.n} queries${c.note ? `  (${c.note})` : ""}`;
}

/** The set figures: a qrels collection leads with precision@k, as trec_eval does. */
function setRows(s: MetricSet, qrels: boolean): string[] {
  return qrels
    ? [
        row(s.precisionAtK),
        row({ ...s.precision, label: "set precision" }),
        row({ ...s.recall, label: "set recall" }),
        row({ ...s.f1, label: "set F1" }),
      ]
    : [row(s.precision), row(s.recall), row(s.f1), row(s.precisionAtK)];
}

function costText(cost: CostSummary, { formatCost }: StudyMetrics): string {
  if (cost.state === "unpriced")
    return `unpriced (${cost.model} has no price in Settings; ${cost.inputTokens} input and ${cost.outputTokens} output tokens)`;
  if (cost.state === "free") return "none (no judge calls)";
  return `${formatCost(cost, "perQuery")}/query, ${formatCost(cost, "perMonth")}/month at 100 prompts a day`;
}
