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

/** trec_eval's ndcg_cut_10, recall_100, recall_1000, P_10 and set_P, written from the files alone. */
function trecEval(qrelsText: string, runText: string) {
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
  const sum = { ndcg10: 0, r100: 0, r1000: 0, p10: 0, setP: 0 };
  for (const [q, rel] of qrels) {
    const ranked = (run.get(q) ?? []).sort((a, b) => b.s - a.s || (a.d < b.d ? 1 : a.d > b.d ? -1 : 0));
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
});
