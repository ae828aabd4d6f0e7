/**
 * Retrieval metrics with trec_eval semantics (usnistgov/trec_eval 9.x, run as `trec_eval -c`).
 *
 * - Relevance: a grade > 0 is relevant; 0 is judged non-relevant; a negative grade is trec_eval's
 *   "in the pool but unjudged" and counts as unjudged. A retrieved doc absent from the qrels is unjudged.
 *   Ranked and set metrics treat unjudged docs as non-relevant, as trec_eval does.
 * - Queries evaluated: every query in the qrels, in ascending queryId order (plain code-unit order),
 *   so two evaluations over the same qrels pair up index by index. A qrels query with no retrieved
 *   docs scores 0 (trec_eval -c); run queries absent from the qrels are ignored. A qrels query with
 *   no relevant doc (only non-relevant judgments, or an empty judgment map) is still evaluated and
 *   scores 0 on every ranked metric and on set precision/recall/F1, whatever was retrieved. Pass
 *   `{ skipQueriesWithoutRelevant: true }` to drop such queries from the per-query list and the mean.
 * - Ranking: trec_eval ignores the rank column and sorts by score descending, ties broken by docId
 *   descending (`strcmp(b, a)`); `trecOrder` does the same. A docId twice in one query's list throws.
 */
import { mean } from "@/lib/stats/descriptive";

/** queryId → (docId → relevance grade). */
export type Qrels = Map<string, Map<string, number>>;
export type ScoredDoc = { docId: string; score: number };
/** queryId → retrieved docs (any order: they are sorted with `trecOrder` before scoring). */
export type Run = Map<string, ScoredDoc[]>;
/** queryId → an unranked retrieved set (e.g. the memories a judge kept). */
export type RetrievedSets = Map<string, readonly string[]>;
type Judgments = ReadonlyMap<string, number> | undefined;

export type EvaluateOptions = { skipQueriesWithoutRelevant?: boolean };

/** trec_eval's comparator: score descending, then docId descending. */
export function compareTrecOrder(a: ScoredDoc, b: ScoredDoc): number {
  if (a.score !== b.score) return a.score > b.score ? -1 : 1;
  if (a.docId === b.docId) return 0;
  return a.docId < b.docId ? 1 : -1;
}

/** A sorted copy in trec_eval order. Throws on a NaN score or a repeated docId. */
export function trecOrder(docs: readonly ScoredDoc[]): ScoredDoc[] {
  const seen = new Set<string>();
  for (const d of docs) {
    if (Number.isNaN(d.score)) throw new Error(`score of "${d.docId}" is NaN`);
    if (seen.has(d.docId)) throw new Error(`duplicate doc "${d.docId}" in one ranking`);
    seen.add(d.docId);
  }
  return [...docs].sort(compareTrecOrder);
}

const isRelevant = (judgments: Judgments, docId: string) => (judgments?.get(docId) ?? 0) > 0;

function countRelevant(judgments: Judgments): number {
  let n = 0;
  for (const g of judgments?.values() ?? []) if (g > 0) n++;
  return n;
}

function checkCutoff(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`cutoff k must be a positive integer, got ${k}`);
}

function relevantInTop(judgments: Judgments, docs: readonly ScoredDoc[], k: number): number {
  let n = 0;
  for (const d of trecOrder(docs).slice(0, k)) if (isRelevant(judgments, d.docId)) n++;
  return n;
}

/** P@k: relevant docs in the top k, divided by k (even when fewer than k were retrieved). */
export function precisionAt(judgments: Judgments, docs: readonly ScoredDoc[], k: number): number {
  checkCutoff(k);
  return relevantInTop(judgments, docs, k) / k;
}

/** recall@k: relevant docs in the top k over all relevant docs in the qrels; 0 when there are none. */
export function recallAt(judgments: Judgments, docs: readonly ScoredDoc[], k: number): number {
  checkCutoff(k);
  const numRel = countRelevant(judgments);
  return numRel === 0 ? 0 : relevantInTop(judgments, docs, k) / numRel;
}

/**
 * trec_eval's ndcg_cut.k: DCG = sum over ranks r <= k of grade / log2(r + 1) (positive grades only),
 * divided by the DCG of the ideal ranking (all positive qrels grades, descending, cut at k).
 * 0 when the query has no relevant doc.
 */
export function ndcgAt(judgments: Judgments, docs: readonly ScoredDoc[], k: number): number {
  checkCutoff(k);
  let dcg = 0;
  trecOrder(docs)
    .slice(0, k)
    .forEach((d, i) => {
      const g = judgments?.get(d.docId) ?? 0;
      if (g > 0) dcg += g / Math.log2(i + 2);
    });
  const ideal = [...(judgments?.values() ?? [])]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  let idcg = 0;
  ideal.forEach((g, i) => {
    idcg += g / Math.log2(i + 2);
  });
  return idcg > 0 ? dcg / idcg : 0;
}

/** The evaluated query ids: qrels keys, sorted, optionally without the ones lacking a relevant doc. */
export function evaluatedQueryIds(qrels: Qrels, opts: EvaluateOptions = {}): string[] {
  return [...qrels.keys()]
    .filter((q) => !opts.skipQueriesWithoutRelevant || countRelevant(qrels.get(q)) > 0)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export type RankedQueryScores = {
  queryId: string;
  precision: number;
  recall: number;
  ndcg: number;
  /** Relevant docs in the qrels for this query. */
  numRelevant: number;
  numRetrieved: number;
};

export type RankedEvaluation = {
  k: number;
  /** One entry per evaluated query, ascending queryId: bootstrap over these. */
  queries: RankedQueryScores[];
  mean: { precision: number; recall: number; ndcg: number };
};

/** P@k, recall@k and nDCG@k for every evaluated query, and their means over queries (NaN if none). */
export function evaluateRanked(
  qrels: Qrels,
  run: Run,
  k: number,
  opts: EvaluateOptions = {},
): RankedEvaluation {
  checkCutoff(k);
  const queries = evaluatedQueryIds(qrels, opts).map((queryId): RankedQueryScores => {
    const judgments = qrels.get(queryId);
    const docs = run.get(queryId) ?? [];
    return {
      queryId,
      precision: precisionAt(judgments, docs, k),
      recall: recallAt(judgments, docs, k),
      ndcg: ndcgAt(judgments, docs, k),
      numRelevant: countRelevant(judgments),
      numRetrieved: docs.length,
    };
  });
  return {
    k,
    queries,
    mean: {
      precision: mean(queries.map((q) => q.precision)),
      recall: mean(queries.map((q) => q.recall)),
      ndcg: mean(queries.map((q) => q.ndcg)),
    },
  };
}

export type JudgmentCounts = {
  /** Retrieved docs with grade > 0. */
  relevant: number;
  /** Retrieved docs judged with grade 0. */
  nonRelevant: number;
  /** Retrieved docs with no judgment (absent from the qrels, or a negative grade): "needs annotation". */
  unjudged: number;
  /** relevant / (relevant + nonRelevant); null when no retrieved doc is judged. */
  judgedPrecision: number | null;
};

/** Counts for one query's retrieved set (duplicates counted once). */
export function countJudgments(judgments: Judgments, retrieved: Iterable<string>): JudgmentCounts {
  let relevant = 0;
  let nonRelevant = 0;
  let unjudged = 0;
  for (const docId of new Set(retrieved)) {
    const g = judgments?.get(docId);
    if (g === undefined || g < 0) unjudged++;
    else if (g > 0) relevant++;
    else nonRelevant++;
  }
  const judged = relevant + nonRelevant;
  return { relevant, nonRelevant, unjudged, judgedPrecision: judged === 0 ? null : relevant / judged };
}

export type SetQueryScores = JudgmentCounts & {
  queryId: string;
  retrieved: number;
  numRelevant: number;
  /** trec_eval set_P: relevant / retrieved, unjudged counted as non-relevant; 0 when nothing retrieved. */
  precision: number;
  /** trec_eval set_recall: relevant retrieved / relevant in qrels; 0 when the query has no relevant doc. */
  recall: number;
  /** trec_eval set_F (beta 1): 2PR / (P + R), 0 when P + R = 0. */
  f1: number;
};

/** Set precision, recall and F1 of one query's unranked retrieved set, with its judgment counts. */
export function setMetricsForQuery(
  judgments: Judgments,
  retrieved: Iterable<string>,
): Omit<SetQueryScores, "queryId"> {
  const ids = [...new Set(retrieved)];
  const counts = countJudgments(judgments, ids);
  const numRelevant = countRelevant(judgments);
  const precision = ids.length === 0 ? 0 : counts.relevant / ids.length;
  const recall = numRelevant === 0 ? 0 : counts.relevant / numRelevant;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { ...counts, retrieved: ids.length, numRelevant, precision, recall, f1 };
}

export type SetEvaluation = {
  queries: SetQueryScores[];
  mean: { precision: number; recall: number; f1: number };
};

/** Set metrics for every evaluated query (missing from `retrieved` = empty set) and their means. */
export function evaluateSets(
  qrels: Qrels,
  retrieved: RetrievedSets,
  opts: EvaluateOptions = {},
): SetEvaluation {
  const queries = evaluatedQueryIds(qrels, opts).map(
    (queryId): SetQueryScores => ({
      queryId,
      ...setMetricsForQuery(qrels.get(queryId), retrieved.get(queryId) ?? []),
    }),
  );
  return {
    queries,
    mean: {
      precision: mean(queries.map((q) => q.precision)),
      recall: mean(queries.map((q) => q.recall)),
      f1: mean(queries.map((q) => q.f1)),
    },
  };
}

export type JudgedFractionResult = {
  queries: (JudgmentCounts & { queryId: string; retrieved: number })[];
  totals: { retrieved: number; relevant: number; nonRelevant: number; unjudged: number };
  /** Judged share of all retrieved items; NaN when nothing was retrieved. */
  judgedFraction: number;
  /** Mean of judgedPrecision over the queries where it is defined; NaN when none. */
  meanJudgedPrecision: number;
  queriesWithJudgedPrecision: number;
  /** Every (query, doc) retrieved without a judgment, for the annotation queue. */
  needsAnnotation: { queryId: string; docId: string }[];
  /** Queries in `retrieved` but absent from the qrels: not evaluated, all their items are unannotated. */
  queriesNotInQrels: string[];
};

/**
 * How much of a retrieved set is judged. Precision here is over judged items only
 * (relevant / (relevant + nonRelevant)): it does not punish a configuration for surfacing memories
 * nobody has annotated yet, but it assumes the unjudged ones are relevant at the same rate, so it is
 * reported next to the unjudged count. trec_eval-style precision (`evaluateSets`, unjudged =
 * non-relevant) is the pessimistic counterpart; (relevant + unjudged) / retrieved is the optimistic one.
 */
export function judgedFraction(
  qrels: Qrels,
  retrieved: RetrievedSets,
  opts: EvaluateOptions = {},
): JudgedFractionResult {
  const totals = { retrieved: 0, relevant: 0, nonRelevant: 0, unjudged: 0 };
  const needsAnnotation: { queryId: string; docId: string }[] = [];
  const queries = evaluatedQueryIds(qrels, opts).map((queryId) => {
    const judgments = qrels.get(queryId);
    const ids = [...new Set(retrieved.get(queryId) ?? [])];
    const counts = countJudgments(judgments, ids);
    for (const docId of ids) {
      const g = judgments?.get(docId);
      if (g === undefined || g < 0) needsAnnotation.push({ queryId, docId });
    }
    totals.retrieved += ids.length;
    totals.relevant += counts.relevant;
    totals.nonRelevant += counts.nonRelevant;
    totals.unjudged += counts.unjudged;
    return { queryId, retrieved: ids.length, ...counts };
  });
  const defined = queries.map((q) => q.judgedPrecision).filter((p): p is number => p !== null);
  return {
    queries,
    totals,
    judgedFraction:
      totals.retrieved === 0 ? Number.NaN : (totals.relevant + totals.nonRelevant) / totals.retrieved,
    meanJudgedPrecision: mean(defined),
    queriesWithJudgedPrecision: defined.length,
    needsAnnotation,
    queriesNotInQrels: [...retrieved.keys()].filter((q) => !qrels.has(q)).sort(),
  };
}
