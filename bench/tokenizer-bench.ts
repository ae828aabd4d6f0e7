// Stemming or not: BM25 candidates from the FTS5 index as shipped (porter over unicode61) against the
// same index with plain unicode61, on the example study (its 20 queries and their ground truth).
// Both sides run Jury's own retrieval code (retrieveCandidates); only the index's tokenizer differs.
// Per query: P@3 and recall@3 (what auto mode injects with the judge off) and recall@15 (the pool a
// judge is shown). Means with 95 % bootstrap intervals over queries; the paired difference
// porter − plain with its interval and an exact sign-flip p. Run with `npm run bench`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb, type SqliteDb } from "@/db/client";
import { getQrels, listStudyQueries } from "@/db/queries/study";
import { retrieveCandidates } from "@/lib/memory/candidates";
import { importStudyFolder } from "@/lib/memory/import";
import { evaluateRanked, type Qrels, type Run } from "@/lib/memory/ir-metrics";
import { bootstrapMeanCI, pairedBootstrapDiffCI, signFlipPValue } from "@/lib/stats/bootstrap";

const json = process.argv.includes("--json");
const STUDY = path.resolve("examples/memory-study");
const COLLECTION = "study";
const POOL = 15;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-tokenizer-"));

async function studyDb(name: string, tokenizer?: string): Promise<SqliteDb> {
  const db = createDb(path.join(dir, `${name}.db`));
  await importStudyFolder(db, STUDY, COLLECTION);
  if (tokenizer) {
    // the shipped indexes (full for search mode, head for auto mode), rebuilt with another
    // tokenizer (the sync triggers refer to them by name)
    db.$client.exec(`
      DROP TABLE memories_fts;
      CREATE VIRTUAL TABLE memories_fts USING fts5(title, tags, body, content='memories',
        content_rowid='rowid', tokenize='${tokenizer}');
      INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');
      DROP TABLE memories_head;
      CREATE VIRTUAL TABLE memories_head USING fts5(title, tags, content='memories',
        content_rowid='rowid', tokenize='${tokenizer}');
      INSERT INTO memories_head(memories_head) VALUES ('rebuild');`);
  }
  return db;
}

function runOf(db: SqliteDb, mode: "auto" | "search"): Run {
  const run: Run = new Map();
  for (const q of listStudyQueries(db, COLLECTION)) {
    const { candidates } = retrieveCandidates(db, {
      collection: COLLECTION,
      prompt: q.text,
      mode,
      poolSize: POOL,
    });
    run.set(
      q.queryId,
      candidates.map((c) => ({ docId: c.memoryId, score: c.score })),
    );
  }
  return run;
}

const sides = {
  porter: await studyDb("porter"),
  plain: await studyDb("plain", "unicode61 remove_diacritics 2"),
};
const qrels: Qrels = getQrels(sides.porter, COLLECTION);

type Row = {
  mode: string;
  metric: string;
  porter: string;
  plain: string;
  diff: string;
  p: number;
  n: number;
};
const rows: Row[] = [];
const pct = (x: number) => (100 * x).toFixed(1);
const ci = (xs: number[]) => {
  const c = bootstrapMeanCI(xs);
  return `${pct(c.mean)} [${pct(c.low)}, ${pct(c.high)}]`;
};
for (const mode of ["auto", "search"] as const) {
  const porterRun = runOf(sides.porter, mode);
  const plainRun = runOf(sides.plain, mode);
  for (const [metric, k, key] of [
    ["P@3", 3, "precision"],
    ["recall@3", 3, "recall"],
    [`recall@${POOL}`, POOL, "recall"],
  ] as const) {
    // queries without a relevant memory have no recall to speak of
    const opts = { skipQueriesWithoutRelevant: key === "recall" };
    const a = evaluateRanked(qrels, plainRun, k, opts).queries.map((q) => q[key]);
    const b = evaluateRanked(qrels, porterRun, k, opts).queries.map((q) => q[key]);
    const d = pairedBootstrapDiffCI(a, b);
    rows.push({
      mode,
      metric,
      porter: ci(b),
      plain: ci(a),
      diff: `${d.meanDiff >= 0 ? "+" : ""}${pct(d.meanDiff)} [${pct(d.low)}, ${pct(d.high)}]`,
      p: signFlipPValue(a, b).p,
      n: a.length,
    });
  }
}
for (const db of Object.values(sides)) db.$client.close();
fs.rmSync(dir, { recursive: true, force: true });

if (json) console.log(JSON.stringify({ tokenizer: rows }, null, 2));
else {
  console.log(
    `Tokenizer: porter stemming vs plain unicode61, example study (BM25 candidates, pool ${POOL}), % with 95 % bootstrap intervals`,
  );
  console.log(
    `  ${"mode".padEnd(7)}${"metric".padEnd(11)}${"porter".padEnd(22)}${"plain".padEnd(22)}${"porter − plain".padEnd(24)}sign-flip p   queries`,
  );
  for (const r of rows)
    console.log(
      `  ${r.mode.padEnd(7)}${r.metric.padEnd(11)}${r.porter.padEnd(22)}${r.plain.padEnd(22)}${r.diff.padEnd(24)}${r.p.toFixed(3).padEnd(14)}${r.n}`,
    );
}
