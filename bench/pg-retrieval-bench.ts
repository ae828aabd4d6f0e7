// Memory retrieval on PostgreSQL beside SQLite's FTS5: retrieveCandidatesPg (lib/memory/candidates-pg.ts,
// FTS5's BM25 computed in SQL) against retrieveCandidates as shipped.
//
// 1. Quality on the example study (54 memories, 20 labelled queries; auto and search mode) and on
//    examples/beir-synthetic (1,500 documents, 50 test queries; search mode): nDCG@10 and R@100 from
//    depth-1000 runs, nDCG@10 from the hook's pool of 15; means over queries with 95 % bootstrap
//    intervals, the paired difference PostgreSQL − FTS5 with its interval and an exact sign-flip p;
//    LOSS marks an interval wholly below 0.
// 2. Latency of a pool of 15 over 10,000 and 100,000 generated memories (memory-bench's generator:
//    a 5,000-word made-up vocabulary, skewed), 100 timed queries per mode after 10 warm-up ones, each
//    query on both stores in turn: p50/p95 wall time, and how much of FTS5's top 15 PostgreSQL keeps.
//    The load time of each store (PostgreSQL's includes the trigger that indexes every memory).
//
// Needs a PostgreSQL server where it may create databases: JURY_TEST_DATABASE_URL (each store is a
// database of its own, dropped at the end). Not in `npm run bench` (minutes at 100,000 memories):
//   node scripts/build-cli.mjs && JURY_TEST_DATABASE_URL=postgres://… node dist/pg-retrieval-bench.mjs [--json] [--sizes 10000,100000]
import os from "node:os";
import path from "node:path";
import type { PgDb, SqliteDb } from "@/db/client";
import { copyCollectionToPg } from "@/db/pg/memory-search";
import { type MemoryInput, upsertMemories } from "@/db/queries/memories";
import { getQrels, listStudyQueries } from "@/db/queries/study";
import { type RetrievalMode, retrieveCandidates } from "@/lib/memory/candidates";
import { retrieveCandidatesPg } from "@/lib/memory/candidates-pg";
import { importBeir, importStudyFolder } from "@/lib/memory/import";
import { evaluateRanked, type Run } from "@/lib/memory/ir-metrics";
import {
  bootstrapMeanCI,
  type MeanCI,
  mulberry32,
  pairedBootstrapDiffCI,
  signFlipPValue,
} from "@/lib/stats/bootstrap";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";

const args = process.argv.slice(2);
const json = args.includes("--json");
const sizesAt = args.indexOf("--sizes");
const SIZES = sizesAt >= 0 ? args[sizesAt + 1].split(",").map(Number) : [10_000, 100_000];
const progress = (s: string) => process.stderr.write(`${s}\n`);

type Retrieve = (collection: string, prompt: string, mode: RetrievalMode, pool: number) => Promise<string[]>;
const fts5 =
  (db: SqliteDb): Retrieve =>
  async (collection, prompt, mode, poolSize) =>
    retrieveCandidates(db, { collection, prompt, mode, poolSize }).candidates.map((c) => c.memoryId);
const postgres =
  (db: PgDb): Retrieve =>
  async (collection, prompt, mode, poolSize) =>
    (await retrieveCandidatesPg(db, { collection, prompt, mode, poolSize })).candidates.map(
      (c) => c.memoryId,
    );

// --- quality ---------------------------------------------------------------------------------------
type QualityRow = {
  collection: string;
  mode: RetrievalMode;
  metric: string;
  n: number;
  fts5: MeanCI;
  pg: MeanCI;
  diff: { mean: number; low: number; high: number };
  p: number;
};

const METRICS = [
  { metric: "nDCG@10", k: 10, depth: 1000, key: "ndcg" },
  { metric: "R@100", k: 100, depth: 1000, key: "recall" },
  { metric: "nDCG@10 (pool 15)", k: 10, depth: 15, key: "ndcg" },
] as const;

async function runOf(sqlite: SqliteDb, collection: string, mode: RetrievalMode, depth: number, r: Retrieve) {
  const run: Run = new Map();
  for (const q of listStudyQueries(sqlite, collection)) {
    const ids = await r(collection, q.text, mode, depth);
    // ranks as scores (trec_eval orders by score): the retrievers' own order, kept
    run.set(
      q.queryId,
      ids.map((docId, i) => ({ docId, score: ids.length - i })),
    );
  }
  return run;
}

async function quality(): Promise<QualityRow[]> {
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
  const rows: QualityRow[] = [];
  for (const set of sets) {
    const sqlite = await freshStore("sqlite");
    const pg = await freshStore("pg");
    try {
      await set.load(sqlite.db);
      await copyCollectionToPg(sqlite.db, pg.db, set.collection);
      const qrels = getQrels(sqlite.db, set.collection);
      for (const mode of set.modes)
        for (const m of METRICS) {
          const a = await runOf(sqlite.db, set.collection, mode, m.depth, fts5(sqlite.db));
          const b = await runOf(sqlite.db, set.collection, mode, m.depth, postgres(pg.db));
          const opts = { skipQueriesWithoutRelevant: true };
          const x = evaluateRanked(qrels, a, m.k, opts).queries.map((q) => q[m.key]);
          const y = evaluateRanked(qrels, b, m.k, opts).queries.map((q) => q[m.key]);
          const d = pairedBootstrapDiffCI(x, y);
          rows.push({
            collection: set.collection,
            mode,
            metric: m.metric,
            n: x.length,
            fts5: bootstrapMeanCI(x),
            pg: bootstrapMeanCI(y),
            diff: { mean: d.meanDiff, low: d.low, high: d.high },
            p: signFlipPValue(x, y).p,
          });
        }
    } finally {
      await sqlite.close();
      await pg.close();
    }
  }
  return rows;
}

// --- latency (memory-bench's generator, seed and draw order) -----------------------------------------
const rand = mulberry32(42);
const syllables = [
  "ka",
  "lo",
  "mi",
  "ne",
  "ru",
  "ta",
  "po",
  "shi",
  "ven",
  "dor",
  "qua",
  "zel",
  "bri",
  "fo",
  "gan",
  "hu",
];
const word = () =>
  Array.from(
    { length: 2 + Math.floor(rand() * 3) },
    () => syllables[Math.floor(rand() * syllables.length)],
  ).join("");
const vocab = Array.from({ length: 5000 }, word);
const pick = () => vocab[Math.floor(rand() ** 1.5 * vocab.length)];
const phrase = (n: number) => Array.from({ length: n }, pick).join(" ");
const categories = ["decision", "constraint", "procedure", "bug", "preference"];

function generate(n: number): MemoryInput[] {
  return Array.from({ length: n }, (_, j) => ({
    memoryId: `m${j}`,
    category: categories[j % categories.length],
    title: phrase(6),
    tags: Array.from({ length: 3 }, pick),
    body: phrase(60),
  }));
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
};
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

type LatencyRow = {
  memories: number;
  mode: RetrievalMode;
  queries: number;
  fts5: { p50_ms: number; p95_ms: number };
  pg: { p50_ms: number; p95_ms: number };
  /** of FTS5's top 15, the share PostgreSQL's top 15 holds (mean over queries) */
  top15_overlap: number;
};

async function latency(n: number): Promise<{ load: { sqlite_s: number; pg_s: number }; rows: LatencyRow[] }> {
  const sqlite: Store<SqliteDb> = await freshStore("sqlite");
  const pg: Store<PgDb> = await freshStore("pg");
  try {
    let t = performance.now();
    const items = generate(n);
    for (let i = 0; i < n; i += 5000) upsertMemories(sqlite.db, "default", items.slice(i, i + 5000));
    const sqliteS = (performance.now() - t) / 1000;
    t = performance.now();
    await copyCollectionToPg(sqlite.db, pg.db, "default");
    await pg.db.$client.query("analyze");
    const pgS = (performance.now() - t) / 1000;
    progress(`  ${n} memories loaded: SQLite ${sqliteS.toFixed(1)} s, PostgreSQL ${pgS.toFixed(1)} s`);
    const rows: LatencyRow[] = [];
    for (const mode of ["auto", "search"] as const) {
      const prompts = Array.from({ length: 110 }, (_, q) => `please ${phrase(3 + (q % 5))} now`);
      const a: number[] = [];
      const b: number[] = [];
      const overlap: number[] = [];
      for (const [q, prompt] of prompts.entries()) {
        // in turn first and last, so both see the same load
        const runA = async () => {
          const s = performance.now();
          const ids = await fts5(sqlite.db)("default", prompt, mode, 15);
          return { ids, ms: performance.now() - s };
        };
        const runB = async () => {
          const s = performance.now();
          const ids = await postgres(pg.db)("default", prompt, mode, 15);
          return { ids, ms: performance.now() - s };
        };
        const [ra, rb] = q % 2 ? [await runA(), await runB()] : [undefined, await runB()];
        const x = ra ?? (await runA());
        if (q < 10) continue;
        a.push(x.ms);
        b.push(rb.ms);
        const want = new Set(x.ids);
        overlap.push(want.size ? rb.ids.filter((id) => want.has(id)).length / want.size : 1);
      }
      rows.push({
        memories: n,
        mode,
        queries: a.length,
        fts5: { p50_ms: round(pct(a, 0.5)), p95_ms: round(pct(a, 0.95)) },
        pg: { p50_ms: round(pct(b, 0.5)), p95_ms: round(pct(b, 0.95)) },
        top15_overlap: round(overlap.reduce((s, v) => s + v, 0) / overlap.length, 3),
      });
    }
    return { load: { sqlite_s: round(sqliteS, 1), pg_s: round(pgS, 1) }, rows };
  } finally {
    await sqlite.close();
    await pg.close();
  }
}

// --- main ------------------------------------------------------------------------------------------------
if (!storeKinds().includes("pg")) {
  console.error(
    "pg-retrieval-bench: set JURY_TEST_DATABASE_URL to a PostgreSQL server it may create databases on",
  );
  process.exit(2);
}
const load = os.loadavg().map((x) => round(x));
const f3 = (x: number) => x.toFixed(3);
const signed = (x: number) => `${x >= 0 ? "+" : "−"}${f3(Math.abs(x))}`;
const ci = (c: MeanCI) => `${f3(c.mean)} [${f3(c.low)}, ${f3(c.high)}]`;
const say = (s: string) => {
  if (!json) console.log(s);
};
progress("quality…");
const q = await quality();
say(
  "Retrieval quality, FTS5 (SQLite, as shipped) → PostgreSQL (BM25 in SQL), 95 % bootstrap intervals over queries",
);
say(
  `  ${"collection".padEnd(15)}${"mode".padEnd(7)}${"metric".padEnd(19)}${"FTS5".padEnd(22)}${"PostgreSQL".padEnd(22)}${"PostgreSQL − FTS5".padEnd(32)}${"p".padEnd(7)}n`,
);
for (const r of q)
  say(
    `  ${r.collection.padEnd(15)}${r.mode.padEnd(7)}${r.metric.padEnd(19)}${ci(r.fts5).padEnd(22)}${ci(r.pg).padEnd(22)}${`${signed(r.diff.mean)} [${signed(r.diff.low)}, ${signed(r.diff.high)}]${r.diff.high < 0 ? " LOSS" : ""}`.padEnd(32)}${r.p.toFixed(3).padEnd(7)}${r.n}`,
  );
say("\nLatency of a pool of 15 (wall ms; both stores on this machine), and FTS5's top 15 kept by PostgreSQL");
const lat: Awaited<ReturnType<typeof latency>>[] = [];
for (const n of SIZES) {
  progress(`latency at ${n} memories…`);
  const l = await latency(n);
  lat.push(l);
  say(`  load: SQLite ${l.load.sqlite_s} s, PostgreSQL ${l.load.pg_s} s (memories indexed by its trigger)`);
  for (const r of l.rows)
    say(
      `  ${String(r.memories).padStart(7)} ${r.mode.padEnd(7)} FTS5 p50 ${r.fts5.p50_ms} p95 ${r.fts5.p95_ms}   PostgreSQL p50 ${r.pg.p50_ms} p95 ${r.pg.p95_ms}   top-15 kept ${f3(r.top15_overlap)}   (${r.queries} queries)`,
    );
}
const machine = {
  cpus: os.cpus().length,
  load_at_start: load,
  load_at_end: os.loadavg().map((x) => round(x)),
};
if (json) console.log(JSON.stringify({ machine, quality: q, latency: lat }, null, 2));
else
  say(
    `\nmachine: ${machine.cpus} CPUs, load ${load.join(" ")} at start, ${machine.load_at_end.join(" ")} at end`,
  );
