import { describe, expect, it } from "vitest";
import {
  countJudgments,
  evaluateRanked,
  evaluateSets,
  judgedFraction,
  ndcgAt,
  precisionAt,
  type Qrels,
  type Run,
  recallAt,
  type ScoredDoc,
  setMetricsForQuery,
  trecOrder,
} from "./ir-metrics";

const docs = (...pairs: [string, number][]): ScoredDoc[] => pairs.map(([docId, score]) => ({ docId, score }));

// Graded judgments: d1 = 3, d2 = 2, d5 = 2, d3 = 1 are relevant (4 docs), d4 judged non-relevant.
const q1 = new Map([
  ["d1", 3],
  ["d2", 2],
  ["d3", 1],
  ["d4", 0],
  ["d5", 2],
]);
// Ranked d4, d1, d3, d2, d6 (d6 unjudged); given out of order on purpose.
const q1Docs = docs(["d2", 2], ["d4", 5], ["d6", 1], ["d1", 4], ["d3", 3]);

describe("trecOrder", () => {
  it("sorts by score descending, ties by docId descending (trec_eval's comp_sim_docno)", () => {
    const order = trecOrder(docs(["a", 1], ["c", 1], ["z", 0.5], ["b", 1], ["y", 2]));
    expect(order.map((d) => d.docId)).toEqual(["y", "c", "b", "a", "z"]);
  });

  it("rejects a repeated docId and a NaN score", () => {
    expect(() => trecOrder(docs(["a", 1], ["a", 2]))).toThrow(/duplicate doc "a"/);
    expect(() => trecOrder(docs(["a", Number.NaN]))).toThrow(/NaN/);
  });

  it("does not mutate its input", () => {
    const input = docs(["a", 1], ["b", 2]);
    trecOrder(input);
    expect(input.map((d) => d.docId)).toEqual(["a", "b"]);
  });
});

describe("precisionAt / recallAt", () => {
  it("counts relevant docs in the top k (graded relevance counts as relevant when > 0)", () => {
    expect(precisionAt(q1, q1Docs, 3)).toBeCloseTo(2 / 3, 12); // d4 no, d1 yes, d3 yes
    expect(recallAt(q1, q1Docs, 3)).toBe(2 / 4);
    expect(precisionAt(q1, q1Docs, 1)).toBe(0);
  });

  it("divides P@k by k even when fewer than k docs were retrieved", () => {
    expect(precisionAt(q1, q1Docs, 10)).toBe(3 / 10);
    expect(recallAt(q1, q1Docs, 10)).toBe(3 / 4);
  });

  it("breaks score ties by docId descending", () => {
    const rel = new Map([["a", 1]]);
    const tied = docs(["a", 1], ["b", 1]);
    expect(precisionAt(rel, tied, 1)).toBe(0); // b ranks first
    expect(precisionAt(new Map([["b", 1]]), tied, 1)).toBe(1);
  });

  it("is 0 for no judgments, and recall is 0 without relevant docs", () => {
    expect(precisionAt(undefined, q1Docs, 3)).toBe(0);
    expect(recallAt(new Map([["d1", 0]]), q1Docs, 3)).toBe(0);
  });

  it("rejects a non-positive or fractional cutoff", () => {
    expect(() => precisionAt(q1, q1Docs, 0)).toThrow(RangeError);
    expect(() => ndcgAt(q1, q1Docs, 2.5)).toThrow(RangeError);
  });
});

describe("ndcgAt (trec_eval ndcg_cut)", () => {
  it("matches a hand computation with graded relevance", () => {
    // top 3: d4 (0), d1 (3), d3 (1): DCG = 0/log2(2) + 3/log2(3) + 1/log2(4) = 1.892789 + 0.5
    // ideal grades 3, 2, 2, 1 cut at 3: IDCG = 3/1 + 2/log2(3) + 2/log2(4) = 3 + 1.261860 + 1
    expect(ndcgAt(q1, q1Docs, 3)).toBeCloseTo(2.392789 / 5.26186, 5);
    expect(ndcgAt(q1, q1Docs, 3)).toBeCloseTo(0.454742, 6);
    // top 5 adds d2 (2) at rank 4 and unjudged d6 at rank 5; IDCG adds the grade-1 doc at rank 4
    expect(ndcgAt(q1, q1Docs, 5)).toBeCloseTo(0.571651, 6);
  });

  it("is 1 for the ideal ranking and 0 when nothing relevant is retrieved", () => {
    expect(ndcgAt(q1, docs(["d1", 4], ["d5", 3], ["d2", 3], ["d3", 1]), 10)).toBeCloseTo(1, 12);
    expect(ndcgAt(q1, docs(["d4", 1], ["x", 0]), 10)).toBe(0);
    expect(ndcgAt(q1, [], 10)).toBe(0);
  });

  it("is 0 when the query has no relevant doc", () => {
    expect(ndcgAt(new Map([["d1", 0]]), docs(["d1", 1]), 5)).toBe(0);
  });

  it("ignores negative grades (unjudged) for the gain and for the ideal", () => {
    const qrels = new Map([
      ["a", 1],
      ["b", -1],
    ]);
    expect(ndcgAt(qrels, docs(["b", 2], ["a", 1]), 2)).toBeCloseTo(1 / Math.log2(3), 12);
  });
});

describe("evaluateRanked", () => {
  const qrels: Qrels = new Map([
    ["q2", new Map([["x", 1]])],
    ["q1", q1],
    ["q3", new Map([["y", 0]])], // no relevant doc
  ]);
  const run: Run = new Map([
    ["q1", q1Docs],
    ["q3", docs(["y", 1])],
    ["q9", docs(["x", 1])], // not in the qrels: ignored
  ]);

  it("evaluates every qrels query in queryId order; a query with no retrieved docs scores 0", () => {
    const r = evaluateRanked(qrels, run, 3);
    expect(r.queries.map((q) => q.queryId)).toEqual(["q1", "q2", "q3"]);
    const q2 = r.queries[1];
    expect(q2).toEqual({ queryId: "q2", precision: 0, recall: 0, ndcg: 0, numRelevant: 1, numRetrieved: 0 });
    expect(r.queries[0].numRelevant).toBe(4);
    expect(r.queries[0].numRetrieved).toBe(5);
    expect(r.mean.precision).toBeCloseTo(2 / 3 / 3, 12);
    expect(r.mean.recall).toBeCloseTo(0.5 / 3, 12);
    expect(r.mean.ndcg).toBeCloseTo(0.454742 / 3, 6);
  });

  it("can skip queries without a relevant doc", () => {
    const r = evaluateRanked(qrels, run, 3, { skipQueriesWithoutRelevant: true });
    expect(r.queries.map((q) => q.queryId)).toEqual(["q1", "q2"]);
    expect(r.mean.precision).toBeCloseTo(2 / 3 / 2, 12);
  });

  it("returns NaN means for empty qrels", () => {
    const r = evaluateRanked(new Map(), run, 3);
    expect(r.queries).toEqual([]);
    expect(r.mean.ndcg).toBeNaN();
  });
});

describe("set metrics", () => {
  it("computes trec_eval set_P, set_recall and set_F with unjudged counted as non-relevant", () => {
    const m = setMetricsForQuery(q1, ["d1", "d4", "d6", "d1"]); // duplicate d1 counted once
    expect(m).toMatchObject({ retrieved: 3, relevant: 1, nonRelevant: 1, unjudged: 1, numRelevant: 4 });
    expect(m.precision).toBeCloseTo(1 / 3, 12);
    expect(m.recall).toBe(1 / 4);
    expect(m.f1).toBeCloseTo((2 * (1 / 3) * (1 / 4)) / (1 / 3 + 1 / 4), 12);
    expect(m.judgedPrecision).toBe(1 / 2);
  });

  it("is 0 (not NaN) for an empty set and for a query without relevant docs", () => {
    expect(setMetricsForQuery(q1, [])).toMatchObject({
      precision: 0,
      recall: 0,
      f1: 0,
      judgedPrecision: null,
    });
    expect(setMetricsForQuery(new Map([["a", 0]]), ["a"])).toMatchObject({ precision: 0, recall: 0, f1: 0 });
  });

  it("evaluates every qrels query and averages", () => {
    const qrels: Qrels = new Map([
      ["a", new Map([["m1", 1]])],
      ["b", q1],
    ]);
    const r = evaluateSets(qrels, new Map([["b", ["d1", "d2"]]]));
    expect(r.queries.map((q) => [q.queryId, q.precision, q.recall])).toEqual([
      ["a", 0, 0],
      ["b", 1, 0.5],
    ]);
    expect(r.mean).toEqual({ precision: 0.5, recall: 0.25, f1: 2 / 3 / 2 });
  });
});

describe("judgedFraction", () => {
  it("counts relevant, non-relevant and unjudged items; negative grades are unjudged", () => {
    expect(countJudgments(new Map([["a", -1]]), ["a", "b"])).toEqual({
      relevant: 0,
      nonRelevant: 0,
      unjudged: 2,
      judgedPrecision: null,
    });
  });

  it("reports precision over judged items with the unjudged count and the annotation queue", () => {
    const qrels: Qrels = new Map([
      ["q1", q1],
      ["q2", new Map([["m", 1]])],
      ["q3", new Map()],
    ]);
    const r = judgedFraction(
      qrels,
      new Map([
        ["q1", ["d1", "d4", "d6", "d7"]],
        ["q2", ["m"]],
        ["q3", []],
        ["qx", ["z"]],
      ]),
    );
    expect(r.queries).toEqual([
      { queryId: "q1", retrieved: 4, relevant: 1, nonRelevant: 1, unjudged: 2, judgedPrecision: 0.5 },
      { queryId: "q2", retrieved: 1, relevant: 1, nonRelevant: 0, unjudged: 0, judgedPrecision: 1 },
      { queryId: "q3", retrieved: 0, relevant: 0, nonRelevant: 0, unjudged: 0, judgedPrecision: null },
    ]);
    expect(r.totals).toEqual({ retrieved: 5, relevant: 2, nonRelevant: 1, unjudged: 2 });
    expect(r.judgedFraction).toBe(3 / 5);
    expect(r.meanJudgedPrecision).toBe(0.75);
    expect(r.queriesWithJudgedPrecision).toBe(2);
    expect(r.needsAnnotation).toEqual([
      { queryId: "q1", docId: "d6" },
      { queryId: "q1", docId: "d7" },
    ]);
    expect(r.queriesNotInQrels).toEqual(["qx"]);
  });

  it("has a NaN judged fraction when nothing was retrieved", () => {
    const r = judgedFraction(new Map([["q", new Map([["a", 1]])]]), new Map());
    expect(r.judgedFraction).toBeNaN();
    expect(r.meanJudgedPrecision).toBeNaN();
  });
});
