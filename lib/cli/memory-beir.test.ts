import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { hashString } from "../providers/mock-model";
import { tempDir } from "../testing/fixtures";
import { runJurySync } from "../testing/run-jury";

const jury = (args: string[], db: string) => {
  const r = runJurySync(args, { env: { JURY_DB: db } });
  if (r.code !== 0) throw new Error(`jury ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
};

/** A small BEIR collection: 300 documents over 12 topics, 15 queries, graded qrels. */
function makeBeir(): string {
  const dir = tempDir("jury-beir-");
  const topics = [
    "payments",
    "checkout",
    "webhooks",
    "retries",
    "caching",
    "search",
    "auth",
    "billing",
    "deploy",
    "logging",
    "queues",
    "emails",
  ];
  const words = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
  ];
  const docs: string[] = [];
  for (let i = 0; i < 300; i++) {
    const t = topics[i % topics.length];
    const filler = Array.from({ length: 8 }, (_, k) => words[hashString(`${i}:${k}`) % words.length]).join(
      " ",
    );
    const extra = i % 7 === 0 ? topics[(i + 3) % topics.length] : "";
    docs.push(JSON.stringify({ _id: `d${i}`, title: `${t} note ${i}`, text: `${t} ${filler} ${extra}` }));
  }
  fs.writeFileSync(path.join(dir, "corpus.jsonl"), `${docs.join("\n")}\n`);
  const queries = Array.from({ length: 15 }, (_, q) => ({
    _id: `q${q}`,
    text: `${topics[q % 12]} ${words[q % 12]} problem`,
  }));
  fs.writeFileSync(path.join(dir, "queries.jsonl"), `${queries.map((q) => JSON.stringify(q)).join("\n")}\n`);
  const qrels = ["query-id\tcorpus-id\tscore"];
  for (let q = 0; q < 15; q++) {
    for (let i = q % 12; i < 300; i += 12)
      if (hashString(`${q}-${i}`) % 3 !== 0) qrels.push(`q${q}\td${i}\t${1 + (hashString(`g${q}${i}`) % 2)}`);
  }
  fs.mkdirSync(path.join(dir, "qrels"));
  fs.writeFileSync(path.join(dir, "qrels", "test.tsv"), `${qrels.join("\n")}\n`);
  return dir;
}

/** An independent trec_eval: reads the exported files as text and averages over every query in the qrels. */
function trecEval(qrelsText: string, runText: string) {
  const qrels = new Map<string, Map<string, number>>();
  for (const line of qrelsText.trim().split("\n")) {
    const [q, , d, r] = line.split(/\s+/);
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, Number(r));
  }
  const run = new Map<string, { d: string; s: number }[]>();
  for (const line of runText.trim().split("\n")) {
    const [q, , d, , s] = line.split(/\s+/);
    if (!run.has(q)) run.set(q, []);
    run.get(q)!.push({ d, s: Number(s) });
  }
  let ndcg = 0;
  let recall = 0;
  for (const [q, rel] of qrels) {
    const ranked = (run.get(q) ?? []).sort((a, b) => b.s - a.s || (a.d < b.d ? 1 : a.d > b.d ? -1 : 0));
    let dcg = 0;
    ranked.slice(0, 10).forEach((x, i) => {
      dcg += (rel.get(x.d) ?? 0) / Math.log2(i + 2);
    });
    const ideal = [...rel.values()].filter((g) => g > 0).sort((a, b) => b - a);
    let idcg = 0;
    ideal.slice(0, 10).forEach((g, i) => {
      idcg += g / Math.log2(i + 2);
    });
    ndcg += idcg ? dcg / idcg : 0;
    const relevant = ideal.length;
    recall += relevant ? ranked.slice(0, 100).filter((x) => (rel.get(x.d) ?? 0) > 0).length / relevant : 0;
  }
  return { ndcg10: ndcg / qrels.size, recall100: recall / qrels.size };
}

it("BEIR import → BM25 → TREC export: Jury's nDCG@10 and recall@100 equal an independent computation from the files", () => {
  const db = path.join(tempDir(), "beir.db");
  expect(jury(["memory", "import-beir", makeBeir(), "--collection", "beir"], db)).toMatch(
    /Imported 300 memories, 15 queries/,
  );
  const out = JSON.parse(
    jury(
      [
        "memory",
        "experiment",
        "--collection",
        "beir",
        "--kind",
        "bm25",
        "--mode",
        "search",
        "--top-k",
        "10",
        "--json",
      ],
      db,
    ),
  );
  const runText = jury(["memory", "export-run", out.experiment_id], db);
  const qrelsText = jury(["memory", "export-qrels", "--collection", "beir"], db);
  expect(runText.split("\n")[0]).toMatch(/^q\d+ Q0 d\d+ 1 [-\d.e]+ exp_/);
  const mine = trecEval(qrelsText, runText);
  expect(out.metrics.ndcg10.n).toBe(15);
  expect(out.metrics.ndcg10.mean).toBeCloseTo(mine.ndcg10, 10);
  expect(out.metrics.recall100.mean).toBeCloseTo(mine.recall100, 10);
  expect(mine.ndcg10).toBeGreaterThan(0);
  expect(mine.recall100).toBeGreaterThan(0);
});
