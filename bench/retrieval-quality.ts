// Retrieval quality before and after issue 15, on the example study (54 memories, 20 hand-labelled
// queries) and on examples/beir-synthetic (1,500 generated documents, 50 test queries), each in a
// database of its own. Before: the old query (legacy-retrieval.ts). After: retrieveCandidates as
// shipped; "at scale": how it ranks a query whose terms are common in a large store: prefixes off
// (prefixBudget −1: there the exact terms find more memories than asked for, so prefixes never come
// in) and search mode pruned by document frequency as hard as at 100,000 memories (its budget, 6,000
// postings, is 6 % of that store: 3 postings for the study's 54 memories, 90 for beir-synthetic's
// 1,500; auto mode does not prune); "hard": search mode pruned to the rarest term alone (budget 0),
// which shows the measurement can see a loss (why the budget never falls below 6 % of the
// collection: PRUNE_SHARE). nDCG@10, R@100 and R@1000 come from depth-1000 runs (as the README's and
// beir-synthetic.test.ts's figures do); nDCG@10 and P@3 also from the hook's pool of 15, where
// pruning shows (at depth 1000 too few memories hold the rare terms, and every term chooses). Means
// over queries with 95 % bootstrap intervals; the paired difference after − before with its interval
// and an exact sign-flip p; LOSS marks an interval wholly below 0.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb, type SqliteDb } from "@/db/client";
import { countMemories } from "@/db/queries/memories";
import { getQrels, listStudyQueries } from "@/db/queries/study";
import { POSTINGS_BUDGETS, type RetrievalMode, retrieveCandidates } from "@/lib/memory/candidates";
import { importBeir, importStudyFolder } from "@/lib/memory/import";
import { evaluateRanked, type Qrels, type Run, trecOrder } from "@/lib/memory/ir-metrics";
import { bootstrapMeanCI, type MeanCI, pairedBootstrapDiffCI, signFlipPValue } from "@/lib/stats/bootstrap";
import { legacyCandidates } from "./legacy-retrieval";

export type QualityRow = {
  collection: string;
  mode: RetrievalMode;
  variant: "shipped" | "at_scale" | "hard";
  metric: string;
  n: number;
  before: MeanCI;
  after: MeanCI;
  diff: { mean: number; low: number; high: number };
  p: number;
  /** queries whose top k (in trec_eval's order) differs */
  changed: number;
};

type Retriever = (
  db: SqliteDb,
  collection: string,
  prompt: string,
  mode: RetrievalMode,
  k: number,
) => { memoryId: string; score: number }[];

const before: Retriever = (db, collection, prompt, mode, poolSize) =>
  legacyCandidates(db, { collection, prompt, mode, poolSize });
const after =
  (prefixBudget?: number, pruneBudget?: number): Retriever =>
  (db, collection, prompt, mode, poolSize) =>
    retrieveCandidates(db, { collection, prompt, mode, poolSize, prefixBudget, pruneBudget }).candidates;

/** The prune budget as a share of the bench's 100,000 memories: "at scale" prunes as hard. */
const scaledPrune = (mode: RetrievalMode, memories: number) =>
  Math.round(POSTINGS_BUDGETS[mode === "auto" ? "head" : "full"].pruneShare * memories);

function runOf(db: SqliteDb, collection: string, mode: RetrievalMode, depth: number, r: Retriever): Run {
  const run: Run = new Map();
  for (const q of listStudyQueries(db, collection))
    run.set(
      q.queryId,
      r(db, collection, q.text, mode, depth).map((c) => ({ docId: c.memoryId, score: c.score })),
    );
  return run;
}

const METRICS = [
  { metric: "nDCG@10", k: 10, depth: 1000, key: "ndcg" },
  { metric: "R@100", k: 100, depth: 1000, key: "recall" },
  { metric: "R@1000", k: 1000, depth: 1000, key: "recall" },
  { metric: "nDCG@10 (pool 15)", k: 10, depth: 15, key: "ndcg" },
  { metric: "P@3 (pool 15)", k: 3, depth: 15, key: "precision" },
] as const;

function compare(
  qrels: Qrels,
  runs: Map<string, Run>,
  a: string,
  b: string,
  m: (typeof METRICS)[number],
): Omit<QualityRow, "collection" | "mode" | "variant" | "metric"> {
  // nDCG and recall need a relevant memory; precision counts every labelled query
  const opts = { skipQueriesWithoutRelevant: m.key !== "precision" };
  const runA = runs.get(`${a}@${m.depth}`) as Run;
  const runB = runs.get(`${b}@${m.depth}`) as Run;
  const xs = evaluateRanked(qrels, runA, m.k, opts).queries;
  const ys = evaluateRanked(qrels, runB, m.k, opts).queries;
  const x = xs.map((q) => q[m.key]);
  const y = ys.map((q) => q[m.key]);
  const d = pairedBootstrapDiffCI(x, y);
  // in trec_eval's order (score, then id), so that equal scores listed in another order do not count
  const ids = (run: Run, q: string) =>
    trecOrder(run.get(q) ?? [])
      .slice(0, m.k)
      .map((r) => r.docId)
      .join(" ");
  return {
    n: x.length,
    before: bootstrapMeanCI(x),
    after: bootstrapMeanCI(y),
    diff: { mean: d.meanDiff, low: d.low, high: d.high },
    p: signFlipPValue(x, y).p,
    changed: xs.filter((q) => ids(runA, q.queryId) !== ids(runB, q.queryId)).length,
  };
}

export async function retrievalQuality(): Promise<QualityRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-quality-"));
  const rows: QualityRow[] = [];
  const sets = [
    {
      collection: "study",
      load: (db: SqliteDb) => importStudyFolder(db, path.resolve("examples/memory-study"), "study"),
      modes: ["auto", "search"] as const,
    },
    {
      collection: "beir-synthetic",
      load: (db: SqliteDb) => importBeir(db, path.resolve("examples/beir-synthetic"), "beir-synthetic"),
      modes: ["search"] as const,
    },
  ];
  try {
    for (const set of sets) {
      const db = createDb(path.join(dir, `${set.collection}.db`));
      await set.load(db);
      const qrels = getQrels(db, set.collection);
      const memories = countMemories(db, set.collection);
      for (const mode of set.modes) {
        const runs = new Map<string, Run>();
        for (const depth of [15, 1000]) {
          runs.set(`before@${depth}`, runOf(db, set.collection, mode, depth, before));
          runs.set(`shipped@${depth}`, runOf(db, set.collection, mode, depth, after()));
          runs.set(
            `at_scale@${depth}`,
            runOf(db, set.collection, mode, depth, after(-1, scaledPrune(mode, memories))),
          );
          if (mode === "search")
            runs.set(`hard@${depth}`, runOf(db, set.collection, mode, depth, after(-1, 0)));
        }
        for (const variant of ["shipped", "at_scale", "hard"] as const)
          for (const m of METRICS) {
            // pruned hard: only where pruning shows (search mode, the hook's pool)
            if (variant === "hard" && (mode !== "search" || m.depth !== 15)) continue;
            rows.push({
              collection: set.collection,
              mode,
              variant,
              metric: m.metric,
              ...compare(qrels, runs, "before", variant, m),
            });
          }
      }
      db.$client.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

const f3 = (x: number) => x.toFixed(3);
const signed = (x: number) => `${x >= 0 ? "+" : "−"}${f3(Math.abs(x))}`;

export function printQuality(rows: QualityRow[]): void {
  console.log(
    "Retrieval quality, before (old query) → after (as shipped; and at scale: exact terms only, search pruned as at 100,000), 95 % bootstrap intervals over queries",
  );
  console.log(
    `  ${"collection".padEnd(15)}${"mode".padEnd(7)}${"ranking".padEnd(9)}${"metric".padEnd(19)}${"before".padEnd(22)}${"after".padEnd(22)}${"after − before".padEnd(32)}${"p".padEnd(7)}${"changed".padEnd(9)}n`,
  );
  for (const r of rows) {
    const ci = (c: MeanCI) => `${f3(c.mean)} [${f3(c.low)}, ${f3(c.high)}]`;
    const significantLoss = r.diff.high < 0;
    console.log(
      `  ${r.collection.padEnd(15)}${r.mode.padEnd(7)}${({ shipped: "shipped", at_scale: "at scale", hard: "hard" } as const)[r.variant].padEnd(9)}${r.metric.padEnd(19)}${ci(r.before).padEnd(22)}${ci(r.after).padEnd(22)}${`${signed(r.diff.mean)} [${signed(r.diff.low)}, ${signed(r.diff.high)}]${significantLoss ? " LOSS" : ""}`.padEnd(32)}${r.p.toFixed(3).padEnd(7)}${String(r.changed).padEnd(9)}${r.n}`,
    );
  }
}
