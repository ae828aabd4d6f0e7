import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getExperimentResults } from "@/db/queries/experiments";
import { getQrels, getStudyMeta, listAnnotations, listStudyQueries } from "@/db/queries/study";
import { defaultSettings } from "../settings/schema";
import { tempDb, tempDir, writeJson } from "../testing/fixtures";
import { runExperiment } from "./experiment";
import { importBeir, importStudyFolder, readBeir } from "./import";
import { runOf } from "./study-metrics";
import { singleExperimentReport, studyReport } from "./study-report";
import { parseRun, writeRun } from "./trec";

/** A study folder: three memories, a labelled query, one without `relevant`, one labelled with none relevant. */
function studyFolder(): string {
  const dir = tempDir("jury-study-");
  const m = (id: string, title: string, tags: string[]) =>
    writeJson(path.join(dir, "memories", `${id}.json`), { id, category: "decision", title, tags, body: "" });
  m("retry", "Retry policy with backoff", ["retry"]);
  m("timeout", "HTTP timeouts are ten seconds", ["timeout"]);
  m("deploy", "Deploys go through Fly", ["deploy"]);
  writeJson(path.join(dir, "queries.json"), [
    { id: "q1", text: "retry policy", relevant: ["retry"] },
    { id: "q2", text: "timeouts for http" },
    { id: "q3", text: "retry deploy", relevant: [] },
  ]);
  return dir;
}

describe("import-study: a query without `relevant` needs annotation", () => {
  it("stores it unlabelled, with no label, and leaves it out of every metric", async () => {
    const { db } = tempDb();
    const r = await importStudyFolder(db, studyFolder(), "s");
    expect(r).toMatchObject({ memories: 3, queries: 3, qrels: 1, needsAnnotation: 1, origin: "import" });
    expect(listStudyQueries(db, "s").map((q) => [q.queryId, q.labelled])).toEqual([
      ["q1", true],
      ["q2", false],
      ["q3", true],
    ]);
    expect(listAnnotations(db, "s", "q2")).toEqual([]);
    // q3 (relevant: []) is fully judged: every memory not relevant
    expect(listAnnotations(db, "s", "q3").map((a) => a.relevance)).toEqual([0, 0, 0]);
    expect(getStudyMeta(db, "s")).toMatchObject({ labelConvention: "annotated", origin: "import" });
    expect([...getQrels(db, "s").keys()].sort()).toEqual(["q1", "q3"]);

    // the experiment still runs q2 (so its candidates can be annotated) but no figure counts it
    const config = { kind: "bm25" as const, mode: "auto" as const, topK: 3, poolSize: 15, shuffle: false };
    const id = await runExperiment(db, { collection: "s", config, settings: defaultSettings });
    expect(
      getExperimentResults(db, id)
        .map((x) => x.queryId)
        .sort(),
    ).toEqual(["q1", "q2", "q3"]);
    const rep = await singleExperimentReport(db, id, {});
    expect(rep.needsAnnotation).toBe(1);
    expect(rep.metrics.annotatedQueries).toBe(2);
    expect(rep.metrics.unlabelledQueries).toBe(1);
    // q1 keeps "retry" (relevant), q3 keeps retry and deploy (judged not relevant): precision 1 and 0
    expect(rep.metrics.precision).toMatchObject({ n: 2, mean: 0.5 });
    // recall is over the one query with a relevant memory
    expect(rep.metrics.recall).toMatchObject({ n: 1, mean: 1 });
    // q2's retrieved memory is counted as needing annotation, not as relevant or not
    expect(rep.metrics.needsAnnotation).toBe(1);
    expect((await studyReport(db, "s", {})).needsAnnotation).toBe(1);
  });

  it("marks the bundled example's labels as example labels", async () => {
    const { db } = tempDb();
    const r = await importStudyFolder(db, path.resolve(__dirname, "../../examples/memory-study"), "ex");
    expect(r).toMatchObject({ origin: "example", needsAnnotation: 0, queries: 20 });
    expect(getStudyMeta(db, "ex")).toMatchObject({ origin: "example", labelConvention: "annotated" });
    expect(new Set(listAnnotations(db, "ex").map((a) => a.source))).toEqual(new Set(["example"]));
  });

  it("refuses to mix two sources of labels in one collection", async () => {
    const { db } = tempDb();
    await importStudyFolder(db, studyFolder(), "s");
    await expect(
      importStudyFolder(db, path.resolve(__dirname, "../../examples/memory-study"), "s"),
    ).rejects.toThrow(/already holds a study whose labels come from import, not example/);
  });
});

/**
 * A hand-made BEIR folder. "falcon" is in d1, d2 and d3 only; "walrus" in d4 and d5 only. qrels/test.tsv
 * lists only relevant documents: q1 → d1; q2 → d4, d5, d6. q3 is judged only in train.tsv.
 */
function beirFixture(): string {
  const dir = tempDir("jury-beir-fixture-");
  const docs = [
    { _id: "d1", title: "", text: "falcon nesting on cliffs" },
    { _id: "d2", title: "Birds of prey", text: "a falcon dives fast" },
    { _id: "d3", title: "", text: "falcon falconry history" },
    { _id: "d4", title: "", text: "walrus tusks and ice" },
    { _id: "d5", text: "walrus colonies haul out" },
    { _id: "d6", title: "Arctic mammals", text: "seals and bears on the ice" },
  ];
  fs.writeFileSync(path.join(dir, "corpus.jsonl"), `${docs.map((d) => JSON.stringify(d)).join("\n")}\n`);
  const queries = [
    { _id: "q1", text: "falcon" },
    { _id: "q2", text: "walrus" },
    { _id: "q3", text: "ice" },
  ];
  fs.writeFileSync(path.join(dir, "queries.jsonl"), `${queries.map((q) => JSON.stringify(q)).join("\n")}\n`);
  fs.mkdirSync(path.join(dir, "qrels"));
  fs.writeFileSync(
    path.join(dir, "qrels", "test.tsv"),
    "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td4\t1\nq2\td5\t1\nq2\td6\t1\n",
  );
  fs.writeFileSync(
    path.join(dir, "qrels", "train.tsv"),
    "query-id\tcorpus-id\tscore\nq3\td4\t1\nq3\td6\t1\n",
  );
  return dir;
}

describe("import-beir: one split, trec_eval's convention", () => {
  it("reads qrels/test.tsv by default (not every *.tsv), keeps only the queries it judges, and says which files it read", () => {
    const d = readBeir(beirFixture());
    expect(d.split).toBe("test");
    expect(d.files).toEqual(["corpus.jsonl", "queries.jsonl", path.join("qrels", "test.tsv")]);
    expect(d.queries.map((q) => q.queryId)).toEqual(["q1", "q2"]);
    expect(d.queriesNotInSplit).toBe(1);
    expect(d.qrels.map((q) => `${q.queryId}/${q.memoryId}`)).toEqual(["q1/d1", "q2/d4", "q2/d5", "q2/d6"]);
    const train = readBeir(beirFixture(), { split: "train" });
    expect(train.queries.map((q) => q.queryId)).toEqual(["q3"]);
    expect(() => readBeir(beirFixture(), { split: "dev" })).toThrow(
      /no qrels\/dev.tsv .*splits there: test, train/,
    );
  });

  it("with several splits and no test, asks for --split; with one, reads it", () => {
    const dir = beirFixture();
    fs.renameSync(path.join(dir, "qrels", "test.tsv"), path.join(dir, "qrels", "dev.tsv"));
    expect(() => readBeir(dir)).toThrow(/several splits \(dev, train\) and no test: pick one with --split/);
    fs.rmSync(path.join(dir, "qrels", "train.tsv"));
    expect(readBeir(dir).split).toBe("dev");
  });

  it("a document without a title keeps an empty title (never the start of its text)", () => {
    const d = readBeir(beirFixture());
    expect(d.memories.find((m) => m.memoryId === "d1")?.title).toBe("");
    expect(d.memories.find((m) => m.memoryId === "d5")?.title).toBe("");
    expect(d.memories.find((m) => m.memoryId === "d2")?.title).toBe("Birds of prey");
  });

  it("headline precision is trec_eval's set precision of the exported run (hand-computed: 2/3), not precision over judged documents (1)", async () => {
    const { db } = tempDb();
    expect(await importBeir(db, beirFixture(), "b")).toMatchObject({
      memories: 6,
      queries: 2,
      qrels: 4,
      split: "test",
    });
    expect(getStudyMeta(db, "b")).toMatchObject({ labelConvention: "qrels", origin: "beir:test" });
    const config = {
      kind: "bm25" as const,
      mode: "search" as const,
      topK: 100,
      poolSize: 100,
      shuffle: false,
    };
    const id = await runExperiment(db, { collection: "b", config, settings: defaultSettings });
    const m = (await singleExperimentReport(db, id, {})).metrics;
    // q1 retrieves d1, d2, d3 (d1 relevant): set_P 1/3, set_recall 1; q2 retrieves d4, d5 (both
    // relevant, d6 is not found): set_P 1, set_recall 2/3. Means: set_P 2/3, recall 5/6.
    expect(m.convention).toBe("qrels");
    expect(m.precision.n).toBe(2);
    expect(m.precision.mean).toBeCloseTo(2 / 3, 12);
    expect(m.recall.mean).toBeCloseTo(5 / 6, 12);
    // set_F: q1 2·(1/3)·1/(4/3) = 1/2; q2 2·1·(2/3)/(5/3) = 4/5
    expect(m.f1.mean).toBeCloseTo((1 / 2 + 4 / 5) / 2, 12);
    // the unjudged d2, d3 count as not relevant; they are reported, not hidden
    expect(m.needsAnnotation).toBe(2);

    // the same figure from the exported TREC run, computed as trec_eval's set_P does
    const run = parseRun(writeRun(runOf(getExperimentResults(db, id), "candidates"), id));
    const qrels = getQrels(db, "b");
    const setP = [...qrels].map(([q, rel]) => {
      const docs = run.get(q) ?? [];
      return docs.filter((d) => (rel.get(d.docId) ?? 0) > 0).length / docs.length;
    });
    expect(setP).toEqual([1 / 3, 1]);
    expect(m.precision.mean).toBeCloseTo(setP.reduce((a, b) => a + b) / setP.length, 12);
  });

  it("the study's ranked figures on the fixture: nDCG@10 and R@100 as trec_eval computes them", async () => {
    const { db } = tempDb();
    await importBeir(db, beirFixture(), "b");
    const config = { kind: "bm25" as const, mode: "search" as const, topK: 1, poolSize: 100, shuffle: false };
    const id = await runExperiment(db, { collection: "b", config, settings: defaultSettings });
    const rows = getExperimentResults(db, id);
    const q1 = rows.find((r) => r.queryId === "q1")!;
    const m = (await singleExperimentReport(db, id, {})).metrics;
    // top 1: P@1 and set_P are 1 where the top document is relevant
    const q1Top = q1.retrieved[0] === "d1" ? 1 : 0;
    expect(m.precisionAtK.mean).toBeCloseTo((q1Top + 1) / 2, 12);
    expect(m.precision.mean).toBeCloseTo((q1Top + 1) / 2, 12);
    // R@100 over the whole ranking: q1 1, q2 2/3
    expect(m.recall100.mean).toBeCloseTo((1 + 2 / 3) / 2, 12);
    // q2: d4 and d5 at ranks 1 and 2 of an ideal 3: DCG 1 + 1/log2(3), IDCG 1 + 1/log2(3) + 1/2
    const q1Rank = q1.candidates.findIndex((c) => c.memoryId === "d1") + 1;
    const ndcgQ1 = 1 / Math.log2(q1Rank + 1);
    const ndcgQ2 = (1 + 1 / Math.log2(3)) / (1 + 1 / Math.log2(3) + 1 / 2);
    expect(m.ndcg10.mean).toBeCloseTo((ndcgQ1 + ndcgQ2) / 2, 12);
  });
});
