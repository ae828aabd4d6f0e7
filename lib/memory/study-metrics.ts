import type { ExperimentResult } from "@/db/schema";
import { bootstrapMeanCI, type MeanCI, pairedBootstrapDiffCI, signFlipPValue } from "../stats/bootstrap";
import { countJudgments, evaluateRanked, type Qrels, type Run, setMetricsForQuery } from "./ir-metrics";

export type MetricCI = MeanCI & { label: string };

export type ExperimentMetrics = {
  /** judged precision (relevant ÷ judged retrieved) over queries with ≥ 1 judged retrieved memory */
  precision: MetricCI;
  /** set recall over queries with ≥ 1 relevant memory */
  recall: MetricCI;
  f1: MetricCI;
  /** trec_eval P@k over every annotated query, k = the configuration's top-k */
  precisionAtK: MetricCI;
  ndcg10: MetricCI;
  recall100: MetricCI;
  needsAnnotation: number;
  retrieved: number;
  annotatedQueries: number;
  latencyP50: number;
  latencyP95: number;
  costPerQuery: number;
  /** seed 000's table, measured: cost per query × 100 prompts a day × 30 days */
  costPerMonth: number;
  queries: number;
  paths: Record<string, number>;
};

const ci = (label: string, values: number[]): MetricCI => ({ label, ...bootstrapMeanCI(values) });

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const idx = Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1));
  return s[idx];
}

/** The ranked list a configuration produced: BM25's candidates in order, or what the judge kept in order. */
export function runOf(rows: ExperimentResult[], ranked: "retrieved" | "candidates"): Run {
  const run: Run = new Map();
  for (const r of rows) {
    if (ranked === "candidates")
      run.set(
        r.queryId,
        r.candidates.map((c) => ({ docId: c.memoryId, score: c.score })),
      );
    else
      run.set(
        r.queryId,
        r.retrieved.map((id, i) => ({ docId: id, score: r.retrieved.length - i })),
      );
  }
  return run;
}

export function experimentMetrics(
  rows: ExperimentResult[],
  qrels: Qrels,
  topK: number,
  isBm25: boolean,
): ExperimentMetrics {
  const annotated = rows.filter((r) => qrels.has(r.queryId));
  const precisionValues: number[] = [];
  const recallValues: number[] = [];
  const f1Values: number[] = [];
  let needsAnnotation = 0;
  let retrieved = 0;
  for (const r of rows) {
    const j = qrels.get(r.queryId);
    const counts = countJudgments(j, r.retrieved);
    needsAnnotation += counts.unjudged;
    retrieved += r.retrieved.length;
    if (!j) continue;
    if (counts.judgedPrecision !== null) precisionValues.push(counts.judgedPrecision);
    const s = setMetricsForQuery(j, r.retrieved);
    if (s.numRelevant > 0) {
      recallValues.push(s.recall);
      const p = counts.judgedPrecision ?? 0;
      f1Values.push(p + s.recall === 0 ? 0 : (2 * p * s.recall) / (p + s.recall));
    }
  }
  const annotatedQrels: Qrels = new Map([...qrels].filter(([q]) => rows.some((r) => r.queryId === q)));
  const pk = evaluateRanked(annotatedQrels, runOf(annotated, "retrieved"), Math.max(1, topK));
  const deep = runOf(annotated, isBm25 ? "candidates" : "retrieved");
  const at10 = evaluateRanked(annotatedQrels, deep, 10);
  const at100 = evaluateRanked(annotatedQrels, deep, 100);
  const latencies = rows.map((r) => r.latencyMs);
  const costPerQuery = rows.length ? rows.reduce((a, r) => a + r.costUsd, 0) / rows.length : 0;
  const paths: Record<string, number> = {};
  for (const r of rows) paths[r.path] = (paths[r.path] ?? 0) + 1;
  return {
    precision: ci("precision", precisionValues),
    recall: ci("recall", recallValues),
    f1: ci("F1", f1Values),
    precisionAtK: ci(
      `P@${topK}`,
      pk.queries.map((q) => q.precision),
    ),
    ndcg10: ci(
      "nDCG@10",
      at10.queries.map((q) => q.ndcg),
    ),
    recall100: ci(
      "recall@100",
      at100.queries.map((q) => q.recall),
    ),
    needsAnnotation,
    retrieved,
    annotatedQueries: annotatedQrels.size,
    latencyP50: percentile(latencies, 0.5),
    latencyP95: percentile(latencies, 0.95),
    costPerQuery,
    costPerMonth: costPerQuery * 100 * 30,
    queries: rows.length,
    paths,
  };
}

export type PairedComparison = {
  metric: string;
  n: number;
  meanDiff: number;
  low: number;
  high: number;
  p: number;
};

/** B − A per query (queries both ran and that are annotated), with a bootstrap interval and an exact sign-flip p. */
export function compareExperiments(
  a: ExperimentResult[],
  b: ExperimentResult[],
  qrels: Qrels,
): PairedComparison[] {
  const common = a
    .map((r) => r.queryId)
    .filter((q) => qrels.has(q) && b.some((x) => x.queryId === q))
    .sort();
  const per = (rows: ExperimentResult[], q: string) => rows.find((r) => r.queryId === q)!;
  const metrics: { metric: string; of: (r: ExperimentResult, j: Map<string, number>) => number | null }[] = [
    { metric: "precision", of: (r, j) => countJudgments(j, r.retrieved).judgedPrecision },
    {
      metric: "recall",
      of: (r, j) =>
        setMetricsForQuery(j, r.retrieved).numRelevant > 0 ? setMetricsForQuery(j, r.retrieved).recall : null,
    },
  ];
  return metrics.map(({ metric, of }) => {
    const xs: number[] = [];
    const ys: number[] = [];
    for (const q of common) {
      const j = qrels.get(q)!;
      const x = of(per(a, q), j);
      const y = of(per(b, q), j);
      if (x !== null && y !== null) {
        xs.push(x);
        ys.push(y);
      }
    }
    const d = pairedBootstrapDiffCI(xs, ys);
    return { metric, n: d.n, meanDiff: d.meanDiff, low: d.low, high: d.high, p: signFlipPValue(xs, ys).p };
  });
}

/** How often two judge configurations (e.g. two shuffles) keep the same set: exact agreement and mean Jaccard. */
export function orderConsistency(
  a: ExperimentResult[],
  b: ExperimentResult[],
): { n: number; identical: number; meanJaccard: number } {
  let identical = 0;
  let jaccard = 0;
  let n = 0;
  for (const ra of a) {
    const rb = b.find((x) => x.queryId === ra.queryId);
    if (!rb) continue;
    n++;
    const A = new Set(ra.retrieved);
    const B = new Set(rb.retrieved);
    const inter = [...A].filter((x) => B.has(x)).length;
    const union = new Set([...A, ...B]).size;
    if (inter === union) identical++;
    jaccard += union === 0 ? 1 : inter / union;
  }
  return { n, identical, meanJaccard: n ? jaccard / n : Number.NaN };
}
