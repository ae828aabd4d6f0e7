// The shipped synthetic BEIR collection: its files are exactly what generate.mjs writes, and BM25's
// figures on it (the ones reported for it) equal an independent trec_eval-style computation from the
// exported qrels and run files.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";
import { runJurySync } from "@/lib/testing/run-jury";

const dir = __dirname;

const jury = (args: string[], db: string) => {
  const r = runJurySync(args, { env: { JURY_DB: db } });
  if (r.code !== 0) throw new Error(`jury ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
};

function parseFiles(qrelsText: string, runText: string) {
  const qrels = new Map<string, Map<string, number>>();
  for (const line of qrelsText.trim().split("\n")) {
    const [q, , d, r] = line.split(/\s+/);
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)?.set(d, Number(r));
  }
  const run = new Map<string, { d: string; s: number }[]>();
  for (const line of runText.trim().split("\n")) {
    const [q, , d, , s] = line.split(/\s+/);
    if (!run.has(q)) run.set(q, []);
    run.get(q)?.push({ d, s: Number(s) });
  }
  return { qrels, run };
}

/** trec_eval's order: score descending, then document id descending. */
const trecSort = (xs: { d: string; s: number }[]) =>
  [...xs].sort((a, b) => b.s - a.s || (a.d < b.d ? 1 : a.d > b.d ? -1 : 0));

/**
 * `trec_eval -c -M k -m set` (set_P, set_recall, set_F), written from the files alone: each query's
 * ranking in trec_eval's order cut to its first k (-M), every query of the qrels counted (-c).
 */
function trecEvalSetAtDepth(qrelsText: string, runText: string, k: number) {
  const { qrels, run } = parseFiles(qrelsText, runText);
  const sum = { setP: 0, setRecall: 0, setF: 0 };
  for (const [q, rel] of qrels) {
    const kept = trecSort(run.get(q) ?? []).slice(0, k);
    const relevant = [...rel.values()].filter((g) => g > 0).length;
    const hits = kept.filter((x) => (rel.get(x.d) ?? 0) > 0).length;
    const p = kept.length ? hits / kept.length : 0;
    const r = relevant ? hits / relevant : 0;
    sum.setP += p;
    sum.setRecall += r;
    sum.setF += p + r ? (2 * p * r) / (p + r) : 0;
  }
  const n = qrels.size;
  return { n, setP: sum.setP / n, setRecall: sum.setRecall / n, setF: sum.setF / n };
}

/** trec_eval's ndcg_cut_10, recall_100, recall_1000, P_10 and set_P, written from the files alone. */
function trecEval(qrelsText: string, runText: string) {
  const { qrels, run } = parseFiles(qrelsText, runText);
  const sum = { ndcg10: 0, r100: 0, r1000: 0, p10: 0, setP: 0 };
  for (const [q, rel] of qrels) {
    const ranked = trecSort(run.get(q) ?? []);
    const isRel = (x: { d: string }) => (rel.get(x.d) ?? 0) > 0;
    let dcg = 0;
    ranked.slice(0, 10).forEach((x, i) => {
      dcg += (rel.get(x.d) ?? 0) / Math.log2(i + 2);
    });
    const ideal = [...rel.values()].filter((g) => g > 0).sort((a, b) => b - a);
    let idcg = 0;
    ideal.slice(0, 10).forEach((g, i) => {
      idcg += g / Math.log2(i + 2);
    });
    sum.ndcg10 += idcg ? dcg / idcg : 0;
    sum.r100 += ranked.slice(0, 100).filter(isRel).length / ideal.length;
    sum.r1000 += ranked.slice(0, 1000).filter(isRel).length / ideal.length;
    sum.p10 += ranked.slice(0, 10).filter(isRel).length / 10;
    sum.setP += ranked.length ? ranked.filter(isRel).length / ranked.length : 0;
  }
  const n = qrels.size;
  return {
    n,
    ndcg10: sum.ndcg10 / n,
    r100: sum.r100 / n,
    r1000: sum.r1000 / n,
    p10: sum.p10 / n,
    setP: sum.setP / n,
  };
}

describe("examples/beir-synthetic", () => {
  it("holds exactly what generate.mjs writes", async () => {
    const { generate } = (await import(path.join(dir, "generate.mjs"))) as {
      generate: () => Record<string, string>;
    };
    const files = generate();
    expect(Object.keys(files).sort()).toEqual([
      "corpus.jsonl",
      "qrels/test.tsv",
      "qrels/train.tsv",
      "queries.jsonl",
    ]);
    for (const [name, text] of Object.entries(files))
      expect(fs.readFileSync(path.join(dir, name), "utf8") === text, name).toBe(true);
    expect(files["corpus.jsonl"].trim().split("\n")).toHaveLength(1500);
  });

  it("BM25 (search mode, depth 1000): nDCG@10 0.947, R@100 0.597, R@1000 0.632, as trec_eval computes them from the exported files", () => {
    const db = path.join(tempDir(), "synthetic.db");
    expect(jury(["memory", "import-beir", dir, "--collection", "beir-synthetic"], db)).toContain(
      'Imported 1500 memories, 50 queries and 3000 relevant judgments into "beir-synthetic".',
    );
    const out = JSON.parse(
      jury(
        [
          "memory",
          "experiment",
          "--collection",
          "beir-synthetic",
          "--kind",
          "bm25",
          "--mode",
          "search",
          "--top-k",
          "10",
          "--depth",
          "1000",
          "--json",
        ],
        db,
      ),
    );
    expect(out.label).toBe("BM25 · search · top 10 · depth 1000");
    const mine = trecEval(
      jury(["memory", "export-qrels", "--collection", "beir-synthetic"], db),
      jury(["memory", "export-run", out.experiment_id], db),
    );
    const m = out.metrics;
    expect(mine.n).toBe(50);
    expect(m.ndcg10).toMatchObject({ n: 50 });
    expect(m.ndcg10.mean).toBeCloseTo(mine.ndcg10, 10);
    expect(m.recall100.mean).toBeCloseTo(mine.r100, 10);
    expect(m.recall1000.mean).toBeCloseTo(mine.r1000, 10);
    expect(m.precisionAtK.mean).toBeCloseTo(mine.p10, 10);
    // the figures reported for this collection
    expect(m.ndcg10.mean.toFixed(3)).toBe("0.947");
    expect(m.recall100.mean.toFixed(3)).toBe("0.597");
    expect(m.recall1000.mean.toFixed(3)).toBe("0.632");
    expect(m.precisionAtK.mean.toFixed(3)).toBe("0.938");
    // title-less documents keep an empty title: auto mode (title and tags) finds only the titled ones
    const auto = JSON.parse(
      jury(
        [
          "memory",
          "experiment",
          "--collection",
          "beir-synthetic",
          "--mode",
          "auto",
          "--depth",
          "1000",
          "--json",
        ],
        db,
      ),
    );
    expect(auto.metrics.recall1000.mean).toBeLessThan(m.recall1000.mean);
  });

  it("a document's score does not depend on --depth: auto and search mode rank the same top 10 with the same scores at depth 100 and 1000", () => {
    const db = path.join(tempDir(), "depth.db");
    jury(["memory", "import-beir", dir, "--collection", "beir-synthetic"], db);
    const qrels = jury(["memory", "export-qrels", "--collection", "beir-synthetic"], db);
    for (const mode of ["auto", "search"]) {
      const at = (depth: number) => {
        const out = JSON.parse(
          jury(
            [
              "memory",
              "experiment",
              "--collection",
              "beir-synthetic",
              ...["--kind", "bm25", "--mode", mode, "--top-k", "10", "--depth", String(depth), "--json"],
            ],
            db,
          ),
        );
        const runText = jury(["memory", "export-run", out.experiment_id], db);
        return { out, runText, run: parseFiles(qrels, runText).run };
      };
      const [shallow, deep] = [at(100), at(1000)];
      expect(shallow.run.size, mode).toBe(50);
      for (const [q, ranked] of deep.run) {
        const top = (r: { d: string; s: number }[]) => r.slice(0, 10).map((x) => `${x.d} ${x.s}`);
        // the file's own order (its ranks): Jury's ranking, scores exactly as stored
        expect(top(shallow.run.get(q) ?? []), `${mode} ${q}`).toEqual(top(ranked));
        const score = new Map(ranked.map((x) => [x.d, x.s]));
        for (const x of shallow.run.get(q) ?? []) expect(x.s, `${mode} ${q} ${x.d}`).toBe(score.get(x.d));
      }
      // the headline's set precision, recall and F1 are over the top 10: `trec_eval -c -M 10` on the
      // exported run (all --depth candidates) gives them; without -M it would count every candidate
      for (const { out, runText } of [shallow, deep]) {
        const set = trecEvalSetAtDepth(qrels, runText, 10);
        expect(set.n).toBe(out.metrics.precision.n);
        expect(out.metrics.precision.mean, `${mode} set_P`).toBeCloseTo(set.setP, 12);
        expect(out.metrics.recall.mean, `${mode} set_recall`).toBeCloseTo(set.setRecall, 12);
        expect(out.metrics.f1.mean, `${mode} set_F`).toBeCloseTo(set.setF, 12);
        expect(trecEvalSetAtDepth(qrels, runText, 1000).setP).toBeLessThan(set.setP);
      }
    }
  });
});
