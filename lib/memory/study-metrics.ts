/**
 * The precision study's figures, computed so that they never look better than the evidence:
 *
 * - Every configuration's path mix (the fallback ladder: the judge answered, a fallback and why, an
 *   error) is counted, and precision, recall, F1 and P@k are computed twice: over every query (what
 *   the hook would inject, fallbacks included) and over the queries the judge answered.
 * - Labels follow the collection's convention. `qrels` (imported BEIR/TREC judgments): an unjudged
 *   document is not relevant, as trec_eval counts it, and the figures are trec_eval's (set_P,
 *   set_recall, set_F, P@k, ndcg_cut_10, recall_100, recall_1000). `annotated` (labelled in Jury):
 *   an unjudged memory "needs annotation"; precision is over judged items only and says how many
 *   judged items it rests on.
 * - A configuration is called best only when its judge answered at least MIN_JUDGE_ANSWERED of the
 *   queries it was asked and a paired test over the same queries supports its lead over every other
 *   finished configuration; otherwise the verdict says why there is not enough evidence.
 */
import type { ExperimentResult } from "@/db/schema";
import { costOf, type Price } from "../pricing";
import { bootstrapMeanCI, type MeanCI, pairedBootstrapDiffCI, signFlipPValue } from "../stats/bootstrap";
import {
  countJudgments,
  evaluateRanked,
  precisionAt,
  type Qrels,
  type Run,
  setMetricsForQuery,
} from "./ir-metrics";

export type LabelConvention = "qrels" | "annotated";

/**
 * A configuration is highlighted as best only when its judge answered at least this share of the
 * queries it was asked (queries with no BM25 candidate are not asked). Below it, the figures are
 * mostly the fallback's, not the judge's.
 */
export const MIN_JUDGE_ANSWERED = 0.9;
/** The paired sign-flip test must give p below this for a lead to count. */
export const BEST_ALPHA = 0.05;

/** A mean with its 95 % bootstrap interval over queries; `why` says why n is 0, `note` qualifies it. */
export type MetricCI = MeanCI & { label: string; why?: string; note?: string };

export type MetricSet = { precision: MetricCI; recall: MetricCI; f1: MetricCI; precisionAtK: MetricCI };

/** What each fallback path means for the figures. */
export const PATH_INFO: Record<
  string,
  { group: "answered" | "fallback" | "error" | "none" | "baseline"; label: string }
> = {
  judge: { group: "answered", label: "judge answered" },
  judge_error: { group: "error", label: "judge failed: BM25 fallback" },
  timeout: { group: "error", label: "judge timed out: BM25 fallback" },
  no_api_key: { group: "fallback", label: "no API key: BM25 top-k" },
  judge_disabled: { group: "fallback", label: "judge disabled: BM25 top-k" },
  keyword_fallback: { group: "fallback", label: "FTS5 unavailable: keyword scan" },
  no_candidates: { group: "none", label: "no BM25 candidate: nothing to judge" },
  bm25: { group: "baseline", label: "BM25 only (no judge)" },
};

export type PathMix = {
  queries: number;
  /** queries the judge was asked (every query with at least one candidate), 0 for a BM25 run */
  asked: number;
  answered: number;
  /** answered ÷ asked; NaN when the judge was asked nothing (and for BM25 runs) */
  answeredShare: number;
  paths: { path: string; n: number; label: string; group: string }[];
  /** judge errors grouped by message, most frequent first */
  errors: { message: string; n: number }[];
};

export type CostSummary =
  | { state: "free" }
  | { state: "priced"; perQuery: number; perMonth: number }
  | { state: "unpriced"; model: string; inputTokens: number; outputTokens: number };

export type ExperimentMetrics = MetricSet & {
  convention: LabelConvention;
  /** the same four figures over the queries the judge answered; null for a BM25 run */
  judgeAnswered: MetricSet | null;
  ndcg10: MetricCI;
  recall100: MetricCI;
  recall1000: MetricCI;
  /** retrieved (query, memory) pairs with no label: "needs annotation" (annotated) or counted not relevant (qrels) */
  needsAnnotation: number;
  /** retrieved (query, memory) pairs over the labelled queries, and how many of them are judged */
  retrieved: number;
  judgedRetrieved: number;
  /** labelled queries the figures are computed over */
  annotatedQueries: number;
  /** finished queries left out because they need annotation */
  unlabelledQueries: number;
  latencyP50: number;
  latencyP95: number;
  cost: CostSummary;
  /** kept for callers that want a number: 0 when unpriced (check `cost.state`) */
  costPerQuery: number;
  /** cost per query × 100 prompts a day × 30 days */
  costPerMonth: number;
  queries: number;
  paths: Record<string, number>;
  pathMix: PathMix;
};

const ci = (label: string, values: number[], why?: string): MetricCI => {
  const m: MetricCI = { label, ...bootstrapMeanCI(values) };
  if (m.n === 0 && why) m.why = why;
  return m;
};

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

/** The retrieved set as a ranking (kept order), so P@k is computed on exactly what was kept. */
const keptRanking = (r: ExperimentResult) =>
  r.retrieved.map((id, i) => ({ docId: id, score: r.retrieved.length - i }));

export function pathMix(rows: ExperimentResult[], isBm25: boolean): PathMix {
  const counts = new Map<string, number>();
  const errors = new Map<string, number>();
  for (const r of rows) {
    counts.set(r.path, (counts.get(r.path) ?? 0) + 1);
    if (r.error) errors.set(r.error, (errors.get(r.error) ?? 0) + 1);
  }
  const answered = counts.get("judge") ?? 0;
  const asked = isBm25 ? 0 : rows.length - (counts.get("no_candidates") ?? 0);
  return {
    queries: rows.length,
    asked,
    answered,
    answeredShare: asked > 0 ? answered / asked : Number.NaN,
    paths: [...counts]
      .map(([path, n]) => ({
        path,
        n,
        label: PATH_INFO[path]?.label ?? path,
        group: PATH_INFO[path]?.group ?? "fallback",
      }))
      .sort((a, b) => b.n - a.n || a.path.localeCompare(b.path)),
    errors: [...errors].map(([message, n]) => ({ message, n })).sort((a, b) => b.n - a.n),
  };
}

/** One line: "judge answered 14 of 20 (judge_error 6)". */
export function describePathMix(m: PathMix): string {
  const rest = m.paths.filter((p) => p.path !== "judge" && p.path !== "bm25");
  if (m.asked === 0 && m.answered === 0 && rest.length === 0) return `BM25 only on ${m.queries} queries`;
  const head = `judge answered ${m.answered} of ${m.asked} quer${m.asked === 1 ? "y" : "ies"} asked`;
  return rest.length ? `${head} (${rest.map((p) => `${p.path} ${p.n}`).join(", ")})` : head;
}

/** Per-query values of one metric under a convention; null when the query has no value for it. */
type PerQuery = (r: ExperimentResult, j: ReadonlyMap<string, number>) => number | null;

function perQueryMetrics(convention: LabelConvention, topK: number): Record<keyof MetricSet, PerQuery> {
  const k = Math.max(1, topK);
  if (convention === "qrels")
    // trec_eval: every query in the qrels counts; nothing retrieved scores 0
    return {
      precision: (r, j) => setMetricsForQuery(j, r.retrieved).precision,
      recall: (r, j) => setMetricsForQuery(j, r.retrieved).recall,
      f1: (r, j) => setMetricsForQuery(j, r.retrieved).f1,
      precisionAtK: (r, j) => precisionAt(j, keptRanking(r), k),
    };
  return {
    // over judged items only; a query with no judged retrieved memory has no precision
    precision: (r, j) => countJudgments(j, r.retrieved).judgedPrecision,
    recall: (r, j) => {
      const s = setMetricsForQuery(j, r.retrieved);
      return s.numRelevant > 0 ? s.recall : null;
    },
    f1: (r, j) => {
      const s = setMetricsForQuery(j, r.retrieved);
      if (s.numRelevant === 0) return null;
      const p = countJudgments(j, r.retrieved).judgedPrecision ?? 0;
      return p + s.recall === 0 ? 0 : (2 * p * s.recall) / (p + s.recall);
    },
    precisionAtK: (r, j) => precisionAt(j, keptRanking(r), k),
  };
}

function metricSet(
  rows: ExperimentResult[],
  qrels: Qrels,
  convention: LabelConvention,
  topK: number,
  empty: string | undefined,
): MetricSet {
  const per = perQueryMetrics(convention, topK);
  const evaluated = rows.filter((r) => qrels.has(r.queryId)).sort((a, b) => (a.queryId < b.queryId ? -1 : 1));
  const values = (of: PerQuery) =>
    evaluated.flatMap((r) => {
      const v = of(r, qrels.get(r.queryId)!);
      return v === null ? [] : [v];
    });
  const nothingRetrieved = evaluated.every((r) => r.retrieved.length === 0);
  const precisionWhy =
    empty ??
    (nothingRetrieved ? "nothing was kept for any labelled query" : "no retrieved memory is annotated yet");
  const recallWhy = empty ?? "no labelled query has a relevant memory";
  return {
    precision: ci("precision", values(per.precision), precisionWhy),
    recall: ci("recall", values(per.recall), recallWhy),
    f1: ci("F1", values(per.f1), recallWhy),
    precisionAtK: ci(`P@${Math.max(1, topK)}`, values(per.precisionAtK), empty),
  };
}

export function costSummary(
  rows: ExperimentResult[],
  c: { kind: string; model?: string },
  price: Price | undefined,
): CostSummary {
  if (c.kind === "bm25") return { state: "free" };
  const inputTokens = rows.reduce((a, r) => a + r.inputTokens, 0);
  const outputTokens = rows.reduce((a, r) => a + r.outputTokens, 0);
  const stored = rows.reduce((a, r) => a + r.costUsd, 0);
  // the price in force now, or (a price since removed) what was stored when the calls were made
  const total = price ? costOf(price, { inputTokens, outputTokens }) : stored > 0 ? stored : null;
  if (total === null) return { state: "unpriced", model: c.model ?? "", inputTokens, outputTokens };
  const perQuery = rows.length ? total / rows.length : 0;
  return { state: "priced", perQuery, perMonth: perQuery * 100 * 30 };
}

/** "$0.00042" / "unpriced" / "free": never $0 for a model without a price. */
export function formatCost(c: CostSummary, which: "perQuery" | "perMonth"): string {
  if (c.state === "free") return "$0 (no calls)";
  if (c.state === "unpriced") return "unpriced";
  return which === "perQuery" ? `$${c[which].toFixed(5)}` : `$${c[which].toFixed(2)}`;
}

export type MetricsOptions = {
  topK: number;
  kind: string;
  /** how deep the stored ranking goes (BM25's depth, a judge's pool): ranked metrics say when it is shallower than their cutoff */
  depth: number;
  convention: LabelConvention;
  model?: string;
  price?: Price;
};

export function experimentMetrics(
  rows: ExperimentResult[],
  qrels: Qrels,
  opts: MetricsOptions,
): ExperimentMetrics {
  const isBm25 = opts.kind === "bm25";
  const labelled = rows.filter((r) => qrels.has(r.queryId));
  const unlabelled = rows.filter((r) => !qrels.has(r.queryId)).length;
  const empty =
    rows.length === 0
      ? "no query has finished yet"
      : labelled.length === 0
        ? `no finished query is labelled (${unlabelled} need annotation)`
        : undefined;
  const all = metricSet(rows, qrels, opts.convention, opts.topK, empty);
  const answeredRows = rows.filter((r) => r.path === "judge");
  const mix = pathMix(rows, isBm25);
  const judgeAnswered = isBm25
    ? null
    : metricSet(
        answeredRows,
        qrels,
        opts.convention,
        opts.topK,
        answeredRows.length === 0
          ? `the judge answered no query (${describePathMix(mix)})`
          : answeredRows.every((r) => !qrels.has(r.queryId))
            ? "the judge answered no labelled query"
            : undefined,
      );

  let retrieved = 0;
  let judgedRetrieved = 0;
  let needsAnnotation = 0;
  for (const r of labelled) {
    const c = countJudgments(qrels.get(r.queryId), r.retrieved);
    retrieved += c.relevant + c.nonRelevant + c.unjudged;
    judgedRetrieved += c.relevant + c.nonRelevant;
    needsAnnotation += c.unjudged;
  }
  for (const r of rows) if (!qrels.has(r.queryId)) needsAnnotation += new Set(r.retrieved).size;

  const evaluated: Qrels = new Map(labelled.map((r) => [r.queryId, qrels.get(r.queryId)!]));
  const deep = runOf(labelled, isBm25 ? "candidates" : "retrieved");
  const ranked = (label: string, cutoff: number, of: "ndcg" | "recall"): MetricCI => {
    const e = evaluateRanked(evaluated, deep, cutoff);
    const m = ci(
      label,
      e.queries.map((q) => q[of]),
      empty,
    );
    if (opts.depth < cutoff)
      m.note = isBm25
        ? `the run kept ${opts.depth} ranked candidates: this is ${of === "ndcg" ? "nDCG" : "recall"}@${opts.depth}`
        : `a judge run ranks only what it kept (at most top ${opts.topK} of a pool of ${opts.depth})`;
    return m;
  };
  const latencies = rows.map((r) => r.latencyMs);
  const cost = costSummary(rows, { kind: opts.kind, model: opts.model }, opts.price);
  const paths: Record<string, number> = {};
  for (const r of rows) paths[r.path] = (paths[r.path] ?? 0) + 1;
  return {
    convention: opts.convention,
    ...all,
    judgeAnswered,
    ndcg10: ranked("nDCG@10", 10, "ndcg"),
    recall100: ranked("R@100", 100, "recall"),
    recall1000: ranked("R@1000", 1000, "recall"),
    needsAnnotation,
    retrieved,
    judgedRetrieved,
    annotatedQueries: evaluated.size,
    unlabelledQueries: unlabelled,
    latencyP50: percentile(latencies, 0.5),
    latencyP95: percentile(latencies, 0.95),
    cost,
    costPerQuery: cost.state === "priced" ? cost.perQuery : 0,
    costPerMonth: cost.state === "priced" ? cost.perMonth : 0,
    queries: rows.length,
    paths,
    pathMix: mix,
  };
}

/** "precision rests on 41 judged of 60 retrieved items (19 need annotation)" for an annotated study. */
export function evidenceLine(m: ExperimentMetrics): string {
  if (m.convention === "qrels")
    return `trec_eval convention: ${m.needsAnnotation} of ${m.retrieved} retrieved documents are unjudged and count as not relevant`;
  return `precision rests on ${m.judgedRetrieved} judged of ${m.retrieved} retrieved item${m.retrieved === 1 ? "" : "s"} over ${m.precision.n} quer${m.precision.n === 1 ? "y" : "ies"}${m.needsAnnotation ? ` (${m.needsAnnotation} need annotation)` : ""}`;
}

export type PairedComparison = {
  metric: string;
  n: number;
  meanDiff: number;
  low: number;
  high: number;
  p: number;
};

/**
 * B − A per query, over the labelled queries both ran (and, for an annotated study's precision,
 * where both have a judged retrieved item), with a bootstrap interval and a sign-flip p.
 */
export function compareExperiments(
  a: ExperimentResult[],
  b: ExperimentResult[],
  qrels: Qrels,
  convention: LabelConvention = "annotated",
  topK = 3,
): PairedComparison[] {
  const byA = new Map(a.map((r) => [r.queryId, r]));
  const byB = new Map(b.map((r) => [r.queryId, r]));
  const common = [...byA.keys()].filter((q) => qrels.has(q) && byB.has(q)).sort();
  const per = perQueryMetrics(convention, topK);
  return (["precision", "recall"] as const).map((metric) => {
    const xs: number[] = [];
    const ys: number[] = [];
    for (const q of common) {
      const j = qrels.get(q)!;
      const x = per[metric](byA.get(q)!, j);
      const y = per[metric](byB.get(q)!, j);
      if (x !== null && y !== null) {
        xs.push(x);
        ys.push(y);
      }
    }
    const d = pairedBootstrapDiffCI(xs, ys);
    return { metric, n: d.n, meanDiff: d.meanDiff, low: d.low, high: d.high, p: signFlipPValue(xs, ys).p };
  });
}

export type BestCandidate = {
  id: string;
  label: string;
  rows: ExperimentResult[];
  metrics: ExperimentMetrics;
  /** every planned query finished and the experiment is done */
  complete: boolean;
  topK: number;
};

export type BestVerdict = { best: string; reason: string } | { best: null; reason: string; leader?: string };

const pts = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)} pts`;

/**
 * Which configuration, if any, may be called best by precision over every query: the finished one
 * with the highest precision, when its judge answered at least `minAnswered` of the queries it was
 * asked (a BM25 run has no judge to fail) and a paired sign-flip test over the same queries gives
 * p < BEST_ALPHA for its lead over every other finished configuration.
 */
export function pickBest(
  candidates: BestCandidate[],
  qrels: Qrels,
  convention: LabelConvention,
  minAnswered = MIN_JUDGE_ANSWERED,
): BestVerdict {
  const finished = candidates.filter((c) => c.complete && Number.isFinite(c.metrics.precision.mean));
  const unfinished = candidates.length - candidates.filter((c) => c.complete).length;
  const tail = unfinished
    ? ` (${unfinished} unfinished configuration${unfinished === 1 ? "" : "s"} not compared)`
    : "";
  if (finished.length < 2)
    return {
      best: null,
      reason: `not enough evidence: ${finished.length === 0 ? "no finished configuration has a precision" : "only one finished configuration has a precision, nothing to compare it with"}${tail}`,
    };
  const sorted = [...finished].sort((x, y) => y.metrics.precision.mean - x.metrics.precision.mean);
  const leader = sorted[0];
  const mix = leader.metrics.pathMix;
  if (leader.metrics.judgeAnswered && !(mix.answeredShare >= minAnswered))
    return {
      best: null,
      leader: leader.id,
      reason: `not enough evidence: the highest precision is ${leader.label}'s, but its judge answered only ${mix.answered} of ${mix.asked} queries asked (${Number.isFinite(mix.answeredShare) ? Math.round(mix.answeredShare * 100) : 0} %, below ${Math.round(minAnswered * 100)} %): its figures are mostly the fallback's`,
    };
  for (const other of sorted.slice(1)) {
    const [p] = compareExperiments(other.rows, leader.rows, qrels, convention, leader.topK);
    if (!(p.n > 0 && p.meanDiff > 0 && p.p < BEST_ALPHA))
      return {
        best: null,
        leader: leader.id,
        reason: `not enough evidence: ${leader.label} leads ${other.label} by ${Number.isFinite(p.meanDiff) ? pts(p.meanDiff) : "—"} precision over ${p.n} paired quer${p.n === 1 ? "y" : "ies"}, paired sign-flip p = ${p.p.toFixed(3)} (needs < ${BEST_ALPHA})${tail}`,
      };
  }
  return {
    best: leader.id,
    reason: `best precision: ${leader.label}, ahead of each other finished configuration with paired sign-flip p < ${BEST_ALPHA}${leader.metrics.judgeAnswered ? `; its judge answered ${mix.answered} of ${mix.asked} queries` : ""}${tail}`,
  };
}

/** How often two judge configurations (e.g. two shuffles) keep the same set: exact agreement and mean Jaccard. */
export function orderConsistency(
  a: ExperimentResult[],
  b: ExperimentResult[],
): { n: number; identical: number; meanJaccard: number } {
  let identical = 0;
  let jaccard = 0;
  let n = 0;
  const byB = new Map(b.map((r) => [r.queryId, r]));
  for (const ra of a) {
    const rb = byB.get(ra.queryId);
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
