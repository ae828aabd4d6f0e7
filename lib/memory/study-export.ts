import type { Db } from "@/db/client";
import { countMemories } from "@/db/queries/memories";
import { getQrels, listAnnotations, listStudies, listStudyQueries } from "@/db/queries/study";
import { rowsToCsv } from "../csv";
import { JuryError } from "../errors";
import type { Price } from "../pricing";
import { redactSecrets } from "../redact";
import { describeConfig, type ExperimentConfig } from "./experiment";
import { describePathMix, type MetricCI } from "./study-metrics";
import { studyReport } from "./study-report";
import { writeQrels } from "./trec";

/**
 * A study's labels and metrics as files: labels as CSV (one row per stored query × memory label) or
 * TREC qrels (the labelled queries, as `jury memory export-qrels` writes them), metrics as CSV or
 * JSON (one row per configuration, the figures the study page's table shows, from studyReport). The
 * dashboard's export route and `jury memory export-labels|export-metrics` both call exportStudy, so
 * the two give the same bytes. CSV text is guarded against spreadsheet formulas (lib/csv.ts).
 */

export const labelFormats = ["csv", "qrels"] as const;
export const metricFormats = ["csv", "json"] as const;
export type StudyExport =
  | { what: "labels"; format: (typeof labelFormats)[number] }
  | { what: "metrics"; format: (typeof metricFormats)[number] };

export const LABEL_COLUMNS = [
  "collection",
  "query_id",
  "query_text",
  "memory_id",
  "relevant",
  "relevance",
  "source",
  "author",
  "updated_at",
] as const;

export type LabelRow = {
  collection: string;
  query_id: string;
  query_text: string;
  memory_id: string;
  /** "yes" for a grade above 0, "no" otherwise */
  relevant: "yes" | "no";
  relevance: number;
  /** who set it: "human" (a person in Jury), "qrels" (an import), "example" (the bundled example) */
  source: string;
  /** who gave it (a user's name, "local", "<os user> (cli)"); empty: imported, an example, or before authors were kept */
  author: string;
  updated_at: string;
};

const ciColumns = (name: string) => [name, `${name}_low`, `${name}_high`, `${name}_n`] as const;

export const METRIC_COLUMNS = [
  "experiment_id",
  "configuration",
  "status",
  "complete",
  "best",
  "kind",
  "mode",
  "model",
  "top_k",
  "pool_size",
  "samples",
  "convention",
  "queries_finished",
  "queries_planned",
  "queries_annotated",
  "judge_asked",
  "judge_answered",
  ...ciColumns("precision"),
  ...ciColumns("precision_judge_answered"),
  ...ciColumns("recall"),
  ...ciColumns("recall_judge_answered"),
  ...ciColumns("f1"),
  ...ciColumns("p_at_k"),
  ...ciColumns("ndcg10"),
  ...ciColumns("recall100"),
  "judged_retrieved",
  "retrieved",
  "needs_annotation",
  "latency_p50_ms",
  "latency_p95_ms",
  "cost_state",
  "cost_per_query_usd",
  "cost_per_month_usd",
  "path_mix",
  "paths",
] as const;

export type MetricRow = Record<(typeof METRIC_COLUMNS)[number], string | number | boolean | null>;

/** Throws `not_found:collection` naming the collections there are. */
export async function requireStudy(db: Db, collection: string): Promise<void> {
  if ((await countMemories(db, collection)) > 0) return;
  const known = (await listStudies(db)).map((s) => s.collection);
  throw new JuryError(
    "not_found:collection",
    `No collection "${collection}" (${known.length ? `there are: ${known.join(", ")}` : "none imported yet"})`,
  );
}

/** Every stored label of a collection, by query id then memory id. */
export async function labelRows(db: Db, collection: string): Promise<LabelRow[]> {
  await requireStudy(db, collection);
  const text = new Map((await listStudyQueries(db, collection)).map((q) => [q.queryId, q.text]));
  return (await listAnnotations(db, collection))
    .sort((a, b) => cmp(a.queryId, b.queryId) || cmp(a.memoryId, b.memoryId))
    .map((a) => ({
      collection,
      query_id: a.queryId,
      query_text: redactSecrets(text.get(a.queryId) ?? ""), // as every export: a key typed into a query is not handed on
      memory_id: a.memoryId,
      relevant: a.relevance > 0 ? "yes" : "no",
      relevance: a.relevance,
      source: a.source,
      author: a.author ?? "",
      updated_at: a.updatedAt.toISOString(),
    }));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const num = (x: number) => (Number.isFinite(x) ? x : null);

function ciCells(name: string, m: MetricCI | undefined): Record<string, number | null> {
  return {
    [name]: m && m.n > 0 ? num(m.mean) : null,
    [`${name}_low`]: m && m.n > 0 ? num(m.low) : null,
    [`${name}_high`]: m && m.n > 0 ? num(m.high) : null,
    [`${name}_n`]: m ? m.n : null,
  };
}

/** One row per configuration, as the study page's table shows it (studyReport's figures). */
export async function metricRows(
  db: Db,
  collection: string,
  prices: Record<string, Price>,
): Promise<{ rows: MetricRow[]; best: string | null; bestReason: string }> {
  await requireStudy(db, collection);
  const report = await studyReport(db, collection, prices);
  const qrels = report.labels.convention === "qrels";
  const rows = report.experiments.map((r): MetricRow => {
    const c = r.experiment.config as ExperimentConfig;
    const m = r.metrics;
    const judge = c.kind !== "bm25";
    return {
      experiment_id: r.experiment.id,
      configuration: r.experiment.label || describeConfig(c),
      status: r.experiment.status,
      complete: r.complete,
      best: report.best.best === r.experiment.id,
      kind: c.kind,
      mode: c.mode,
      model: c.model ?? null,
      top_k: c.topK,
      pool_size: judge ? c.poolSize : null,
      samples: judge ? (c.n ?? 1) : null,
      convention: m.convention,
      queries_finished: r.finished,
      queries_planned: r.planned,
      queries_annotated: m.annotatedQueries,
      judge_asked: judge ? m.pathMix.asked : null,
      judge_answered: judge ? m.pathMix.answered : null,
      ...ciCells("precision", m.precision),
      ...ciCells("precision_judge_answered", m.judgeAnswered?.precision),
      ...ciCells("recall", m.recall),
      ...ciCells("recall_judge_answered", m.judgeAnswered?.recall),
      ...ciCells("f1", m.f1),
      ...ciCells("p_at_k", m.precisionAtK),
      ...ciCells("ndcg10", qrels ? m.ndcg10 : undefined),
      ...ciCells("recall100", qrels ? m.recall100 : undefined),
      judged_retrieved: m.judgedRetrieved,
      retrieved: m.retrieved,
      needs_annotation: m.needsAnnotation,
      latency_p50_ms: num(m.latencyP50),
      latency_p95_ms: num(m.latencyP95),
      cost_state: m.cost.state,
      cost_per_query_usd: m.cost.state === "priced" ? m.cost.perQuery : m.cost.state === "free" ? 0 : null,
      cost_per_month_usd: m.cost.state === "priced" ? m.cost.perMonth : m.cost.state === "free" ? 0 : null,
      path_mix: describePathMix(m.pathMix),
      paths: m.pathMix.paths.map((p) => `${p.path}=${p.n}`).join(";"),
    } as MetricRow;
  });
  return { rows, best: report.best.best, bestReason: report.best.reason };
}

/** A study's export as the file a person downloads: its text, content type and file name. */
export async function exportStudy(
  db: Db,
  collection: string,
  what: StudyExport,
  prices: Record<string, Price>,
): Promise<{ body: string; contentType: string; filename: string }> {
  const csv = "text/csv; charset=utf-8";
  if (what.what === "labels") {
    if (what.format === "qrels") {
      await requireStudy(db, collection);
      return {
        body: writeQrels(await getQrels(db, collection)),
        contentType: "text/plain; charset=utf-8",
        filename: `${collection}.qrels`,
      };
    }
    return {
      body: rowsToCsv(LABEL_COLUMNS, await labelRows(db, collection)),
      contentType: csv,
      filename: `${collection}-labels.csv`,
    };
  }
  const m = await metricRows(db, collection, prices);
  if (what.format === "csv")
    return {
      body: rowsToCsv(METRIC_COLUMNS, m.rows),
      contentType: csv,
      filename: `${collection}-metrics.csv`,
    };
  return {
    body: `${JSON.stringify({ collection, best: m.best, best_reason: m.bestReason, configurations: m.rows }, null, 2)}\n`,
    contentType: "application/json; charset=utf-8",
    filename: `${collection}-metrics.json`,
  };
}
