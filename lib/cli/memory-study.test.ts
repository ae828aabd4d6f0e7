// `jury memory` on a study: import-beir's split, the label convention in the figures, the real depth
// in labels, --depth up to 1000, unknown collections as usage errors, search --mode/--limit.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, writeJson } from "../testing/fixtures";
import { runJurySync } from "../testing/run-jury";

const run = (args: string[], db: string) => runJurySync(args, { env: { JURY_DB: db } });
const ok = (args: string[], db: string) => {
  const r = run(args, db);
  if (r.code !== 0) throw new Error(`jury ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
};

/** "falcon" in d1-d3, "walrus" in d4-d5; test qrels list only relevant documents. */
function beir(): string {
  const dir = tempDir("jury-cli-beir-");
  const docs = [
    { _id: "d1", title: "", text: "falcon nesting on cliffs" },
    { _id: "d2", title: "Birds of prey", text: "a falcon dives fast" },
    { _id: "d3", title: "", text: "falcon falconry history" },
    { _id: "d4", title: "", text: "walrus tusks and ice" },
    { _id: "d5", text: "walrus colonies haul out" },
    { _id: "d6", title: "Arctic mammals", text: "seals and bears on the ice" },
  ];
  fs.writeFileSync(path.join(dir, "corpus.jsonl"), docs.map((d) => JSON.stringify(d)).join("\n"));
  fs.writeFileSync(
    path.join(dir, "queries.jsonl"),
    ["q1 falcon", "q2 walrus", "q3 ice"]
      .map((l) => JSON.stringify({ _id: l.slice(0, 2), text: l.slice(3) }))
      .join("\n"),
  );
  fs.mkdirSync(path.join(dir, "qrels"));
  fs.writeFileSync(
    path.join(dir, "qrels", "test.tsv"),
    "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td4\t1\nq2\td5\t1\nq2\td6\t1\n",
  );
  fs.writeFileSync(path.join(dir, "qrels", "train.tsv"), "query-id\tcorpus-id\tscore\nq3\td4\t1\n");
  return dir;
}

describe("jury memory on a BEIR collection", () => {
  it("import-beir reads the test split by default and says which files it read; --split picks another", () => {
    const db = path.join(tempDir(), "b.db");
    const dir = beir();
    const out = ok(["memory", "import-beir", dir, "--collection", "b"], db);
    expect(out).toContain(
      `Read corpus.jsonl, queries.jsonl, ${path.join("qrels", "test.tsv")} from ${dir} (split test).`,
    );
    expect(out).toContain('Imported 6 memories, 2 queries and 4 relevant judgments into "b".');
    expect(out).toContain("1 queries of queries.jsonl have no judgment in the test split and were left out.");
    expect(
      ok(["memory", "import-beir", dir, "--collection", "t", "--split", "train", "--json"], db),
    ).toContain('"split": "train"');
    const bad = run(["memory", "import-beir", dir, "--collection", "x", "--split", "dev"], db);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--split dev: no qrels\/dev.tsv .*splits there: test, train/);
    // two splits in one collection would mix two ground truths
    const mixed = run(["memory", "import-beir", dir, "--collection", "b", "--split", "train"], db);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/already holds a study whose labels come from beir:test, not beir:train/);
  });

  it("experiment: trec_eval's set precision as the headline, the real depth in the label, --depth up to 1000", () => {
    const db = path.join(tempDir(), "b.db");
    ok(["memory", "import-beir", beir(), "--collection", "b"], db);
    // no flags: a qrels collection runs in search mode, top 10
    const out = JSON.parse(
      ok(["memory", "experiment", "--collection", "b", "--depth", "1000", "--json"], db),
    );
    expect(out.label).toBe("BM25 · search · top 10 · depth 1000");
    expect(out.config).toMatchObject({ mode: "search", topK: 10, depth: 1000 });
    expect(out.labels.convention).toBe("qrels");
    expect(out.metrics.precision.mean).toBeCloseTo(2 / 3, 12); // (1/3 + 2/2) / 2, not 100 %
    expect(out.metrics.recall1000.n).toBe(2);
    expect(out.metrics.recall1000.note).toBeUndefined();
    const text = ok(["memory", "metrics", out.experiment_id, "--collection", "b"], db);
    expect(text).toMatch(/set precision\s+66\.7%/);
    expect(text).toContain("unjudged and count as not relevant");
    expect(text).toMatch(/R@1000\s+83\.3%/);

    const shallow = JSON.parse(
      ok(["memory", "experiment", "--collection", "b", "--top-k", "2", "--json"], db),
    );
    expect(shallow.label).toBe("BM25 · search · top 2 · depth 100");
    expect(shallow.metrics.recall1000.note).toBe("the run kept 100 ranked candidates: this is recall@100");

    for (const [args, message] of [
      [["--depth", "1001"], /--depth must be a whole number from 1 to 1000, got "1001"/],
      [["--pool", "15"], /--pool is the judge's candidate pool: a bm25 run takes --depth instead/],
      [["--top-k", "50", "--depth", "20"], /--top-k 50 is deeper than --depth 20/],
      [["--kind", "single", "--depth", "50"], /--depth is for bm25 runs/],
    ] as const) {
      const r = run(["memory", "experiment", "--collection", "b", ...args], db);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe("unknown collections are usage errors", () => {
  it("experiment, metrics, search and export-qrels exit 2 naming the collection and the ones there are", () => {
    const db = path.join(tempDir(), "u.db");
    ok(["memory", "import-beir", beir(), "--collection", "b"], db);
    for (const args of [
      ["memory", "experiment", "--collection", "nope"],
      ["memory", "experiment"], // the default collection is empty
      ["memory", "search", "falcon", "--collection", "nope"],
      ["memory", "metrics", "exp_0123456789", "--collection", "nope"],
      ["memory", "export-qrels", "--collection", "nope"],
    ]) {
      const r = run(args, db);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(
        args.includes("nope")
          ? /--collection "nope": no such collection \(there are: b\)/
          : // without --collection, the error says how the collection was chosen and how to choose another
            /collection "default", chosen as the default: no collection named after the project \S+ and none promoted: no such collection \(there are: b\)\. Give --collection <name>, set JURY_MEMORY_COLLECTION, or use a study configuration for the hook/,
      );
    }
    const r = run(["memory", "metrics", "exp_0123456789"], db);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('No experiment "exp_0123456789"');
  });
});

describe("jury memory search --mode and --limit", () => {
  it("auto searches title and tags only; --limit caps what is shown; bad values exit 2", () => {
    const db = path.join(tempDir(), "s.db");
    const dir = tempDir("jury-mem-");
    const m = (id: string, title: string, body: string) =>
      writeJson(path.join(dir, `${id}.json`), { id, category: "decision", title, tags: [], body });
    m("a", "Retry policy", "backoff with jitter");
    m("b", "Timeouts", "retry after ten seconds");
    m("c", "Retry budget", "at most three retries");
    ok(["memory", "import", dir, "--collection", "m"], db);
    const ids = (args: string[]) =>
      (
        JSON.parse(ok(["memory", "search", ...args, "--collection", "m", "--json"], db)).memories as {
          memoryId: string;
        }[]
      )
        .map((x) => x.memoryId)
        .sort();
    expect(ids(["retry"])).toEqual(["a", "b", "c"]);
    expect(ids(["retry", "--mode", "auto"])).toEqual(["a", "c"]);
    expect(ids(["retry", "--limit", "1"])).toHaveLength(1);
    for (const [args, message] of [
      [["--limit", "0"], /--limit must be a whole number from 1 to 100, got "0"/],
      [["--limit", "2x"], /--limit must be a whole number from 1 to 100, got "2x"/],
      [["--mode", "deep"], /--mode must be one of auto, search, got "deep"/],
    ] as const) {
      const r = run(["memory", "search", "retry", "--collection", "m", ...args], db);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe("import-study: queries without labels", () => {
  it("says how many need annotation", () => {
    const db = path.join(tempDir(), "i.db");
    const dir = tempDir("jury-study-");
    writeJson(path.join(dir, "memories", "a.json"), {
      id: "a",
      category: "decision",
      title: "Retry",
      tags: [],
    });
    writeJson(path.join(dir, "queries.json"), [
      { id: "q1", text: "retry", relevant: ["a"] },
      { id: "q2", text: "retry again" },
    ]);
    expect(ok(["memory", "import-study", dir, "--collection", "st"], db)).toContain(
      '1 of 2 queries have no "relevant" list: they need annotation (dashboard: /memory/st/annotate) and are left out of every metric until then.',
    );
  });
});
