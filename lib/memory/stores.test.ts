// A study's import and an experiment on both stores (SQLite, and PostgreSQL when
// JURY_TEST_DATABASE_URL names a server): the same rows, the same all-or-nothing import.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getExperiment, getExperimentResults, listExperiments } from "@/db/queries/experiments";
import { getJob } from "@/db/queries/jobs";
import { countMemories } from "@/db/queries/memories";
import { writeStudy } from "@/db/queries/memory-tx";
import { getQrels, getStudyMeta, listAnnotations, listStudyQueries } from "@/db/queries/study";
import { defaultSettings } from "../settings/schema";
import { tempDir, writeJson } from "../testing/fixtures";
import { freshStore, type Store, storeKinds } from "../testing/stores";
import { createExperiment, runExperiment } from "./experiment";
import { importBeir, importStudyFolder } from "./import";
import { retrieveMemories } from "./retrieve";
import { studyReport } from "./study-report";

const EXAMPLE = path.resolve(__dirname, "../../examples/memory-study");

/** Three memories, a labelled query, one without `relevant`, one labelled with none relevant. */
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

describe.each(storeKinds())("a study on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("import-study stores memories, queries, labels and what the labels are", async () => {
    const { db } = store;
    const r = await importStudyFolder(db, studyFolder(), "s");
    expect(r).toEqual({ memories: 3, queries: 3, qrels: 1, needsAnnotation: 1, origin: "import" });
    expect(await countMemories(db, "s")).toBe(3);
    expect((await listStudyQueries(db, "s")).map((q) => [q.queryId, q.labelled])).toEqual([
      ["q1", true],
      ["q2", false],
      ["q3", true],
    ]);
    expect(await listAnnotations(db, "s", "q2")).toEqual([]);
    expect((await listAnnotations(db, "s", "q3")).map((a) => a.relevance)).toEqual([0, 0, 0]);
    expect(await getStudyMeta(db, "s")).toMatchObject({ labelConvention: "annotated", origin: "import" });
    expect([...(await getQrels(db, "s")).keys()].sort()).toEqual(["q1", "q3"]);
    // a re-import from the same place adds to it; another source of labels is refused, nothing written
    await importStudyFolder(db, studyFolder(), "s");
    await expect(importStudyFolder(db, EXAMPLE, "s")).rejects.toThrow(
      /already holds a study whose labels come from import, not example/,
    );
    expect(await countMemories(db, "s")).toBe(3);
  });

  it("a study's write is all or nothing: a query the store refuses leaves no memory behind", async () => {
    const { db } = store;
    const write = async () =>
      writeStudy(
        db,
        "broken",
        {
          memories: [{ memoryId: "m1", category: "decision", title: "One", tags: [], body: "" }],
          // a query's text is NOT NULL: the transaction fails after the memories are written
          queries: [{ queryId: "q1", text: null as unknown as string }],
          qrels: [],
        },
        { labelConvention: "annotated", origin: "import" },
      );
    await expect(write()).rejects.toThrow();
    expect(await countMemories(db, "broken")).toBe(0);
    expect(await listStudyQueries(db, "broken")).toEqual([]);
    expect(await getStudyMeta(db, "broken")).toBeUndefined();
  });

  it("retrieval reads the store's own index: BM25's top-k with the judge off", async () => {
    const { db } = store;
    await importStudyFolder(db, studyFolder(), "s");
    const r = await retrieveMemories({
      db,
      collection: "s",
      prompt: "retry policy",
      mode: "search",
      settings: defaultSettings,
    });
    expect(r.path).toBe("judge_disabled");
    expect(r.memories[0]?.memoryId).toBe("retry");
    expect(r.pool.map((c) => c.memoryId)).toContain("retry");
    const none = await retrieveMemories({
      db,
      collection: "s",
      prompt: "kubernetes",
      mode: "auto",
      settings: defaultSettings,
    });
    expect([none.path, none.memories]).toEqual(["no_candidates", []]);
  });

  it("import-beir keeps the split's judged queries, under trec_eval's convention", async () => {
    const { db } = store;
    const dir = tempDir("jury-beir-");
    const jsonl = (rows: unknown[]) => rows.map((x) => JSON.stringify(x)).join("\n");
    fs.writeFileSync(
      path.join(dir, "corpus.jsonl"),
      jsonl([
        { _id: "d1", title: "Retry policy", text: "Retries back off exponentially." },
        { _id: "d2", title: "", text: "Timeouts are ten seconds." },
        { _id: 3, title: "Deploys", text: "Deploys go through Fly." },
      ]),
    );
    fs.writeFileSync(
      path.join(dir, "queries.jsonl"),
      jsonl([
        { _id: "q1", text: "retry" },
        { _id: "q2", text: "timeouts" },
        { _id: "q3", text: "never judged" },
      ]),
    );
    fs.mkdirSync(path.join(dir, "qrels"));
    fs.writeFileSync(
      path.join(dir, "qrels", "test.tsv"),
      "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t2\nq2\t3\t0\n",
    );
    const r = await importBeir(db, dir, "b");
    expect(r).toMatchObject({ memories: 3, queries: 2, qrels: 2, split: "test", queriesNotInSplit: 1 });
    expect(await getStudyMeta(db, "b")).toMatchObject({ labelConvention: "qrels", origin: "beir:test" });
    expect((await listAnnotations(db, "b")).map((a) => [a.queryId, a.memoryId, a.relevance]).sort()).toEqual([
      ["q1", "d1", 1],
      ["q2", "3", 0],
      ["q2", "d2", 2],
    ]);
  });

  it("an experiment is created with its job, queued, planning every query", async () => {
    const { db } = store;
    await importStudyFolder(db, EXAMPLE, "ex");
    const config = { kind: "bm25" as const, mode: "auto" as const, topK: 3, poolSize: 15, shuffle: false };
    const id = await createExperiment(db, { collection: "ex", config });
    const planned = (await listStudyQueries(db, "ex")).length;
    expect(planned).toBe(20);
    expect(await getExperiment(db, id)).toMatchObject({ id, collection: "ex", status: "queued", config });
    expect(await getJob(db, { id })).toMatchObject({
      id,
      kind: "experiment",
      status: "queued",
      total: planned,
    });
    expect((await listExperiments(db, "ex")).map((e) => e.id)).toEqual([id]);
    // a second one with the same id is refused whole: no second job, the first untouched
    await expect(createExperiment(db, { id, collection: "ex", config })).rejects.toThrow();
    expect((await listExperiments(db, "ex")).map((e) => e.id)).toEqual([id]);
  });

  it("a BM25 experiment runs every query and the study reports it", async () => {
    const { db } = store;
    await importStudyFolder(db, EXAMPLE, "ex");
    const config = { kind: "bm25" as const, mode: "auto" as const, topK: 3, poolSize: 15, shuffle: false };
    const id = await runExperiment(db, { collection: "ex", config, settings: defaultSettings });
    const results = await getExperimentResults(db, id);
    expect(results).toHaveLength(20);
    for (const r of results) {
      expect(r.path).toBe("bm25");
      expect(r.retrieved).toEqual(r.candidates.slice(0, 3).map((c) => c.memoryId));
    }
    expect(results.some((r) => r.retrieved.length > 0)).toBe(true);
    expect(await getExperiment(db, id)).toMatchObject({ status: "done" });
    const report = await studyReport(db, "ex", {});
    expect(report.experiments.map((e) => [e.experiment.id, e.complete, e.finished])).toEqual([
      [id, true, 20],
    ]);
    expect(report.experiments[0].metrics.precision.n).toBeGreaterThan(0);
  });
});
