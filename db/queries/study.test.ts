import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import type { AnyDb, SqliteDb } from "../client";
import { constraintViolated, exec, query, write } from "../op";
import { upsertMemories } from "./memories";
import {
  type Annotation,
  annotateOne,
  countAnnotationHistory,
  getQrels,
  getStudyMeta,
  listAnnotationHistory,
  listAnnotations,
  listStudies,
  listStudyQueries,
  setAnnotations,
  setQueryLabelled,
  setStudyMeta,
  startFreshAnnotation,
  undoableChange,
  undoLastAnnotation,
  upsertStudyQueries,
} from "./study";

/**
 * Memories of a collection, for listStudies (their queries are not this file's). SQLite only takes them
 * through upsertMemories (a trigger checks each rowid's range); PostgreSQL has no such rule.
 */
const insertMemories = query(function* (db, collection: string, ids: string[]) {
  for (const memoryId of ids)
    yield* write(
      db
        .insert(db.tables.memories)
        .values({ collection, memoryId, category: "c", title: memoryId, tags: [] }),
    );
});
function addMemories(db: AnyDb, collection: string, ids: string[]) {
  const items = ids.map((memoryId) => ({ memoryId, category: "c", title: memoryId, tags: [], body: "" }));
  return db.engine === "sqlite" ? upsertMemories(db, collection, items) : insertMemories(db, collection, ids);
}
const addExperiment = query(function* (db, id: string, collection: string) {
  yield* write(
    db.insert(db.tables.experiments).values({
      id,
      collection,
      label: id,
      config: { kind: "fts", mode: "search", topK: 5, poolSize: 20, shuffle: false } as never,
    }),
  );
});
/** Stores text that is not JSON as a query's fresh start's `cleared` (written as SQL: the column would encode it). */
const setClearedText = query(function* (db, queryId: string, text: string) {
  yield* exec(
    db,
    sql`update annotation_history set cleared = ${text} where query_id = ${queryId} and source = 'fresh'`,
  );
});

describe.each(storeKinds())("study queries on %s", (kind) => {
  let store: Store;
  let db: AnyDb;
  beforeEach(async () => {
    store = await freshStore(kind);
    db = store.db;
  });
  afterEach(() => store.close());

  async function study() {
    await upsertStudyQueries(db, "s", [
      { queryId: "q1", text: "one" },
      { queryId: "q2", text: "two", labelled: false },
    ]);
    await setAnnotations(db, "s", [
      { queryId: "q1", memoryId: "a", relevance: 1, source: "example" },
      { queryId: "q1", memoryId: "b", relevance: 0, source: "example" },
    ]);
  }

  const label = async (q: string, m: string) =>
    (await listAnnotations(db, "s", q)).find((a) => a.memoryId === m);

  describe("labels with provenance and history", () => {
    it("an import records each label's source and time, and a history entry from no label", async () => {
      await study();
      expect(await label("q1", "a")).toMatchObject({ relevance: 1, source: "example" });
      expect((await label("q1", "a"))?.updatedAt).toBeInstanceOf(Date);
      const h = await listAnnotationHistory(db, "s", "q1");
      expect(h.map((x) => [x.memoryId, x.previous, x.relevance, x.source])).toEqual([
        ["b", null, 0, "example"],
        ["a", null, 1, "example"],
      ]);
      // setting the same grade again is not a change
      await setAnnotations(db, "s", [{ queryId: "q1", memoryId: "a", relevance: 1, source: "example" }]);
      expect(await listAnnotationHistory(db, "s", "q1")).toHaveLength(2);
    });

    it("a person's relabel adds a history entry; undo restores the earlier label and its source, step by step", async () => {
      await study();
      expect(await annotateOne(db, "s", { queryId: "q1", memoryId: "a", relevance: 0 })).toEqual({
        previous: 1,
        changed: true,
      });
      expect(await label("q1", "a")).toMatchObject({ relevance: 0, source: "human" });
      await annotateOne(db, "s", { queryId: "q1", memoryId: "c", relevance: 1 });
      const [newest, before] = await listAnnotationHistory(db, "s", "q1");
      expect(newest).toMatchObject({ memoryId: "c", previous: null, relevance: 1, source: "human" });
      expect(before).toMatchObject({ memoryId: "a", previous: 1, relevance: 0, source: "human" });

      // undo 1: c had no label → removed
      expect(await undoLastAnnotation(db, "s", "q1")).toMatchObject({ memoryId: "c" });
      expect(await label("q1", "c")).toBeUndefined();
      // undo 2: a back to relevant, as the example had it
      expect(await undoableChange(db, "s", "q1")).toMatchObject({ memoryId: "a", previous: 1 });
      await undoLastAnnotation(db, "s", "q1");
      expect(await label("q1", "a")).toMatchObject({ relevance: 1, source: "example" });
      // each undo is itself in the history
      expect(
        (await listAnnotationHistory(db, "s", "q1"))
          .slice(0, 2)
          .map((h) => [h.memoryId, h.source, h.relevance]),
      ).toEqual([
        ["a", "undo", 1],
        ["c", "undo", null],
      ]);
      // then the import's own entries: undoing them removes the example labels one at a time
      await undoLastAnnotation(db, "s", "q1");
      expect(await label("q1", "b")).toBeUndefined();
      await undoLastAnnotation(db, "s", "q1");
      expect(await label("q1", "a")).toBeUndefined();
      expect(await undoLastAnnotation(db, "s", "q1")).toBeUndefined();
      expect(await undoableChange(db, "s", "q1")).toBeUndefined();
    });

    it("each label and history entry names its author; a second person's same grade is their own entry", async () => {
      await study();
      await annotateOne(db, "s", { queryId: "q1", memoryId: "a", relevance: 0 }, "ana");
      expect(await label("q1", "a")).toMatchObject({ relevance: 0, author: "ana" });
      // ana again with the same grade: no entry; bo with the same grade: bo's judgement, kept
      expect(await annotateOne(db, "s", { queryId: "q1", memoryId: "a", relevance: 0 }, "ana")).toEqual({
        previous: 0,
        changed: false,
      });
      expect(await annotateOne(db, "s", { queryId: "q1", memoryId: "a", relevance: 0 }, "bo")).toEqual({
        previous: 0,
        changed: false,
      });
      expect(await label("q1", "a")).toMatchObject({ relevance: 0, author: "bo" });
      const h = await listAnnotationHistory(db, "s", "q1");
      expect(h.map((x) => [x.memoryId, x.previous, x.relevance, x.source, x.author])).toEqual([
        ["a", 0, 0, "human", "bo"],
        ["a", 1, 0, "human", "ana"],
        ["b", null, 0, "example", null],
        ["a", null, 1, "example", null],
      ]);
      // cy undoes bo's judgement: the entry names cy, the label is ana's again
      expect(await undoLastAnnotation(db, "s", "q1", "cy")).toMatchObject({ author: "bo" });
      expect(await label("q1", "a")).toMatchObject({ relevance: 0, author: "ana" });
      expect((await listAnnotationHistory(db, "s", "q1"))[0]).toMatchObject({ source: "undo", author: "cy" });
      // a fresh start by dee names dee; its undo brings back ana's label with her name
      await startFreshAnnotation(db, "s", "dee");
      expect((await listAnnotationHistory(db, "s", "q1"))[0]).toMatchObject({
        source: "fresh",
        author: "dee",
      });
      await undoLastAnnotation(db, "s", "q1", "ed");
      expect(await label("q1", "a")).toMatchObject({ relevance: 0, author: "ana" });
      expect(await label("q1", "b")).toMatchObject({ relevance: 0, author: null });
      expect((await listAnnotationHistory(db, "s", "q1"))[0]).toMatchObject({ source: "undo", author: "ed" });
    });

    it("an undo restores the source of the newest earlier change that set that grade (not an undo's)", async () => {
      await study();
      // a: 1 (example) → 0 (human) → 1 (qrels) → 0 (human); undo brings back 1 from the qrels import
      await annotateOne(db, "s", { queryId: "q1", memoryId: "a", relevance: 0 });
      await setAnnotations(db, "s", [{ queryId: "q1", memoryId: "a", relevance: 1, source: "qrels" }]);
      await annotateOne(db, "s", { queryId: "q1", memoryId: "a", relevance: 0 });
      await undoLastAnnotation(db, "s", "q1");
      expect(await label("q1", "a")).toMatchObject({ relevance: 1, source: "qrels" });
      // then 0 again: the earlier change that set 0 was a person's
      await undoLastAnnotation(db, "s", "q1");
      expect(await label("q1", "a")).toMatchObject({ relevance: 0, source: "human" });
      expect(await countAnnotationHistory(db, "s", "q1")).toBe(7);
    });

    it("a query that needs annotation is in no metric until a person labels it", async () => {
      await study();
      expect((await listStudyQueries(db, "s")).map((q) => [q.queryId, q.labelled])).toEqual([
        ["q1", true],
        ["q2", false],
      ]);
      await setAnnotations(db, "s", [{ queryId: "q2", memoryId: "a", relevance: 1, source: "qrels" }]);
      expect([...(await getQrels(db, "s")).keys()]).toEqual(["q1"]);
      expect([...(await getQrels(db, "s", { includeUnlabelled: true })).keys()].sort()).toEqual(["q1", "q2"]);
      await annotateOne(db, "s", { queryId: "q2", memoryId: "b", relevance: 0 });
      expect((await listStudyQueries(db, "s")).find((q) => q.queryId === "q2")?.labelled).toBe(true);
      expect([...(await getQrels(db, "s")).keys()].sort()).toEqual(["q1", "q2"]);
    });

    it("a fresh annotation clears every label, keeps the history, and every query needs annotation", async () => {
      await study();
      await setStudyMeta(db, "s", { labelConvention: "qrels", origin: "beir:test" });
      expect(await startFreshAnnotation(db, "s")).toEqual({ cleared: 2, queries: 2 });
      expect(await listAnnotations(db, "s")).toEqual([]);
      expect((await listStudyQueries(db, "s")).every((q) => !q.labelled)).toBe(true);
      expect((await getQrels(db, "s")).size).toBe(0);
      expect(await getStudyMeta(db, "s")).toMatchObject({ labelConvention: "annotated", origin: "human" });
      // one entry for the query, holding what it cleared, above the history it keeps
      const h = await listAnnotationHistory(db, "s", "q1");
      expect(h).toHaveLength(3);
      expect(h[0]).toMatchObject({
        memoryId: null,
        relevance: null,
        previous: null,
        source: "fresh",
        cleared: {
          labelled: true,
          labels: [
            { memoryId: "a", relevance: 1, source: "example" },
            { memoryId: "b", relevance: 0, source: "example" },
          ],
        },
      });
      expect(h.slice(1).map((x) => x.source)).toEqual(["example", "example"]);
      expect(h.slice(1).map((x) => x.cleared)).toEqual([null, null]);
      // q2 had no label and needed annotation already: nothing changed, nothing recorded
      expect(await listAnnotationHistory(db, "s", "q2")).toEqual([]);
      // a person labels afresh; undo walks back that label, then the fresh start in one step
      await annotateOne(db, "s", { queryId: "q1", memoryId: "a", relevance: 0 });
      expect(await undoLastAnnotation(db, "s", "q1")).toMatchObject({ memoryId: "a", source: "human" });
      expect(await listAnnotations(db, "s", "q1")).toEqual([]);
      expect(await undoLastAnnotation(db, "s", "q1")).toMatchObject({ memoryId: null, source: "fresh" });
      expect((await listAnnotations(db, "s", "q1")).map((a) => [a.memoryId, a.relevance, a.source])).toEqual([
        ["a", 1, "example"],
        ["b", 0, "example"],
      ]);
      expect((await listStudyQueries(db, "s")).find((q) => q.queryId === "q1")?.labelled).toBe(true);
      expect((await listAnnotationHistory(db, "s", "q1"))[0]).toMatchObject({
        memoryId: null,
        source: "undo",
        cleared: { labelled: true },
      });
      // nothing left to undo but the import's own entries
      expect(await undoableChange(db, "s", "q1")).toMatchObject({ memoryId: "b", source: "example" });
    });

    it("a fresh annotation of the example study: one history entry per query, not one per label cleared", async () => {
      const memories = Array.from({ length: 54 }, (_, i) => `m${i}`);
      await upsertStudyQueries(
        db,
        "ex",
        Array.from({ length: 20 }, (_, i) => ({ queryId: `q${i}`, text: `query ${i}` })),
      );
      // every query labelled against every memory, as the example's ground truth is
      await setAnnotations(
        db,
        "ex",
        Array.from({ length: 20 }, (_, q) =>
          memories.map((m, i) => ({
            queryId: `q${q}`,
            memoryId: m,
            relevance: i < 3 ? 1 : 0,
            source: "example" as const,
          })),
        ).flat(),
      );
      const before = (await listAnnotationHistory(db, "ex", "q0", 10_000)).length;
      expect(before).toBe(54);
      expect(await startFreshAnnotation(db, "ex")).toEqual({ cleared: 20 * 54, queries: 20 });
      for (let q = 0; q < 20; q++) {
        const h = await listAnnotationHistory(db, "ex", `q${q}`, 10_000);
        expect(h).toHaveLength(before + 1);
        expect(h[0]).toMatchObject({ source: "fresh", memoryId: null });
        expect(h[0].cleared?.labels).toHaveLength(54);
      }
    });
  });

  describe("queries, meta and reads", () => {
    it("upserts queries (the last of an id wins, text and state updated), listed in byte order", async () => {
      expect(await listStudyQueries(db, "s")).toEqual([]);
      await upsertStudyQueries(db, "s", []);
      await upsertStudyQueries(db, "s", [
        { queryId: "q2", text: "two" },
        { queryId: "q10", text: "ten", labelled: false },
        { queryId: "B", text: "upper" },
        { queryId: "a", text: "lower" },
        { queryId: "é", text: "accent" },
        { queryId: "a", text: "lower again", labelled: false },
      ]);
      await upsertStudyQueries(db, "other", [{ queryId: "x", text: "elsewhere" }]);
      expect(await listStudyQueries(db, "s")).toEqual([
        { queryId: "B", text: "upper", labelled: true },
        { queryId: "a", text: "lower again", labelled: false },
        { queryId: "q10", text: "ten", labelled: false },
        { queryId: "q2", text: "two", labelled: true },
        { queryId: "é", text: "accent", labelled: true },
      ]);
      await upsertStudyQueries(db, "s", [{ queryId: "q10", text: "TEN" }]);
      expect((await listStudyQueries(db, "s")).find((q) => q.queryId === "q10")).toEqual({
        queryId: "q10",
        text: "TEN",
        labelled: true,
      });
      await setQueryLabelled(db, "s", "q10", false);
      await setQueryLabelled(db, "s", "missing", true); // no such query: nothing happens
      expect((await listStudyQueries(db, "s")).map((q) => q.labelled)).toEqual([
        true,
        false,
        false,
        true,
        true,
      ]);
      await setQueryLabelled(db, "s", "a", true);
      expect((await listStudyQueries(db, "s")).find((q) => q.queryId === "a")?.labelled).toBe(true);
      expect(await listStudyQueries(db, "other")).toEqual([
        { queryId: "x", text: "elsewhere", labelled: true },
      ]);
    });

    it("study meta: none, then set; an update changes the convention and origin, not the creation time", async () => {
      expect(await getStudyMeta(db, "s")).toBeUndefined();
      const t0 = Date.now();
      await setStudyMeta(db, "s", { labelConvention: "qrels", origin: "beir:test" });
      const m = await getStudyMeta(db, "s");
      expect(m).toEqual({
        collection: "s",
        labelConvention: "qrels",
        origin: "beir:test",
        createdAt: expect.any(Date),
      });
      expect(m!.createdAt.getTime()).toBeGreaterThanOrEqual(t0);
      expect(m!.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
      await new Promise((r) => setTimeout(r, 5));
      await setStudyMeta(db, "s", { labelConvention: "annotated", origin: "human" });
      expect(await getStudyMeta(db, "s")).toEqual({
        collection: "s",
        labelConvention: "annotated",
        origin: "human",
        createdAt: m!.createdAt,
      });
      expect(await getStudyMeta(db, "S")).toBeUndefined();
    });

    it("lists a collection's labels by query then memory, one query's or all; the qrels map", async () => {
      await upsertStudyQueries(db, "s", [
        { queryId: "q2", text: "two" },
        { queryId: "q1", text: "one" },
        { queryId: "q3", text: "three", labelled: false },
      ]);
      const items: Annotation[] = [
        { queryId: "q2", memoryId: "m2", relevance: 2, source: "qrels" },
        { queryId: "q1", memoryId: "b", relevance: 0, source: "human" },
        { queryId: "q2", memoryId: "M1", relevance: 1, source: "qrels" },
        { queryId: "q1", memoryId: "a", relevance: 3, source: "example" },
        { queryId: "q3", memoryId: "z", relevance: 1, source: "qrels" },
      ];
      const t0 = Date.now();
      await setAnnotations(db, "s", items);
      await setAnnotations(db, "t", [{ queryId: "q1", memoryId: "a", relevance: 9, source: "qrels" }]);
      const got = await listAnnotations(db, "s");
      expect(got.map(({ updatedAt: _, ...a }) => a)).toEqual([
        { queryId: "q1", memoryId: "a", relevance: 3, source: "example", author: null },
        { queryId: "q1", memoryId: "b", relevance: 0, source: "human", author: null },
        { queryId: "q2", memoryId: "M1", relevance: 1, source: "qrels", author: null },
        { queryId: "q2", memoryId: "m2", relevance: 2, source: "qrels", author: null },
        { queryId: "q3", memoryId: "z", relevance: 1, source: "qrels", author: null },
      ]);
      for (const a of got) {
        expect(a.updatedAt).toBeInstanceOf(Date);
        expect(a.updatedAt.getTime()).toBeGreaterThanOrEqual(t0);
      }
      // every label of one call carries the same time
      expect(new Set(got.map((a) => a.updatedAt.getTime())).size).toBe(1);
      expect((await listAnnotations(db, "s", "q2")).map((a) => a.memoryId)).toEqual(["M1", "m2"]);
      expect(await listAnnotations(db, "s", "none")).toEqual([]);
      expect(await listAnnotations(db, "empty")).toEqual([]);
      const qrels = await getQrels(db, "s");
      expect([...qrels].map(([q, m]) => [q, [...m]])).toEqual([
        [
          "q1",
          [
            ["a", 3],
            ["b", 0],
          ],
        ],
        [
          "q2",
          [
            ["M1", 1],
            ["m2", 2],
          ],
        ],
      ]);
      expect([...(await getQrels(db, "s", { includeUnlabelled: true })).keys()]).toEqual(["q1", "q2", "q3"]);
      expect((await getQrels(db, "empty")).size).toBe(0);
    });

    it("one call's labels for the same memory apply in order: each change in the history, the last kept", async () => {
      await setAnnotations(db, "s", [
        { queryId: "q", memoryId: "m", relevance: 1, source: "qrels" },
        { queryId: "q", memoryId: "m", relevance: 1, source: "example" },
        { queryId: "q", memoryId: "m", relevance: 0, source: "human" },
        { queryId: "q", memoryId: "n", relevance: 2, source: "qrels" },
      ]);
      expect(await listAnnotations(db, "s", "q")).toMatchObject([
        { memoryId: "m", relevance: 0, source: "human" },
        { memoryId: "n", relevance: 2, source: "qrels" },
      ]);
      expect(
        (await listAnnotationHistory(db, "s", "q")).map((h) => [
          h.memoryId,
          h.previous,
          h.relevance,
          h.source,
        ]),
      ).toEqual([
        ["n", null, 2, "qrels"],
        ["m", 1, 0, "human"],
        ["m", null, 1, "qrels"],
      ]);
      // the same grade again refreshes the source without a history entry
      await setAnnotations(db, "s", [{ queryId: "q", memoryId: "n", relevance: 2, source: "example" }]);
      expect(await label2("s", "q", "n")).toMatchObject({ relevance: 2, source: "example" });
      expect(await countAnnotationHistory(db, "s", "q")).toBe(3);
      expect(await annotateOne(db, "s", { queryId: "q", memoryId: "n", relevance: 2 })).toEqual({
        previous: 2,
        changed: false,
      });
      expect(await label2("s", "q", "n")).toMatchObject({ source: "human" });
      expect(await countAnnotationHistory(db, "s", "q")).toBe(3);
    });

    const label2 = async (c: string, q: string, m: string) =>
      (await listAnnotations(db, c, q)).find((a) => a.memoryId === m);

    it("history: newest first, a limit, counts per query, times as dates, a malformed cleared as null", async () => {
      expect(await listAnnotationHistory(db, "s", "q")).toEqual([]);
      expect(await countAnnotationHistory(db, "s", "q")).toBe(0);
      const t0 = Date.now();
      for (let i = 1; i <= 5; i++)
        await setAnnotations(db, "s", [{ queryId: "q", memoryId: `m${i}`, relevance: i, source: "qrels" }]);
      await setAnnotations(db, "s", [{ queryId: "p", memoryId: "m1", relevance: 1, source: "qrels" }]);
      const h = await listAnnotationHistory(db, "s", "q");
      expect(h.map((x) => x.memoryId)).toEqual(["m5", "m4", "m3", "m2", "m1"]);
      expect(h.map((x) => x.id)).toEqual([...h.map((x) => x.id)].sort((a, b) => b - a));
      expect(typeof h[0].id).toBe("number");
      expect(h[0].at).toBeInstanceOf(Date);
      expect(h[0].at.getTime()).toBeGreaterThanOrEqual(t0);
      expect(h[4].at.getTime()).toBeLessThanOrEqual(h[0].at.getTime());
      expect((await listAnnotationHistory(db, "s", "q", 2)).map((x) => x.memoryId)).toEqual(["m5", "m4"]);
      expect(await countAnnotationHistory(db, "s", "q")).toBe(5);
      expect(await countAnnotationHistory(db, "s", "p")).toBe(1);
      expect(await countAnnotationHistory(db, "t", "q")).toBe(0);

      await upsertStudyQueries(db, "s", [{ queryId: "p", text: "p" }]);
      await startFreshAnnotation(db, "s");
      await setClearedText(db, "p", "not json");
      const [fresh] = await listAnnotationHistory(db, "s", "p");
      expect(fresh).toMatchObject({ source: "fresh", memoryId: null, cleared: null });
      // an undo of a fresh start whose record is unreadable brings back nothing, and the query needs annotation
      expect(await undoLastAnnotation(db, "s", "p")).toMatchObject({ source: "fresh" });
      expect(await listAnnotations(db, "s", "p")).toEqual([]);
      expect((await listAnnotationHistory(db, "s", "p"))[0]).toMatchObject({
        source: "undo",
        cleared: { labels: [], labelled: false },
      });
    });

    it("a label that cannot be written rolls back the whole call", async () => {
      await setAnnotations(db, "s", [{ queryId: "q", memoryId: "keep", relevance: 1, source: "qrels" }]);
      let err: unknown;
      try {
        await setAnnotations(db, "s", [
          { queryId: "q", memoryId: "new", relevance: 1, source: "qrels" },
          { queryId: "q", memoryId: "keep", relevance: 0, source: "human" },
          { queryId: "q", memoryId: null as unknown as string, relevance: 1, source: "qrels" },
        ]);
      } catch (e) {
        err = e;
      }
      expect(constraintViolated(err)).toBe("not_null");
      expect(await listAnnotations(db, "s", "q")).toMatchObject([{ memoryId: "keep", relevance: 1 }]);
      expect(await countAnnotationHistory(db, "s", "q")).toBe(1);
    });

    it("lists the studies: memories, queries, those needing annotation, experiments, meta (null without)", async () => {
      expect(await listStudies(db)).toEqual([]);
      await addMemories(db, "s", ["a", "b", "c"]);
      await addMemories(db, "B", ["x"]);
      await upsertStudyQueries(db, "s", [
        { queryId: "q1", text: "1" },
        { queryId: "q2", text: "2", labelled: false },
        { queryId: "q3", text: "3", labelled: false },
      ]);
      await upsertStudyQueries(db, "no-memories", [{ queryId: "q", text: "q" }]);
      await setStudyMeta(db, "s", { labelConvention: "qrels", origin: "beir:test" });
      await addExperiment(db, "e1", "s");
      await addExperiment(db, "e2", "s");
      const studies = await listStudies(db);
      expect(studies).toEqual([
        {
          collection: "B",
          memories: 1,
          queries: 0,
          needsAnnotation: 0,
          experiments: 0,
          labelConvention: null,
          origin: null,
        },
        {
          collection: "s",
          memories: 3,
          queries: 3,
          needsAnnotation: 2,
          experiments: 2,
          labelConvention: "qrels",
          origin: "beir:test",
        },
      ]);
      for (const s of studies) expect(typeof s.memories).toBe("number");
    });

    it.runIf(kind === "sqlite")("answers synchronously on SQLite", () => {
      const sqlite = store.db as SqliteDb;
      const r = upsertStudyQueries(sqlite, "s", [{ queryId: "q", text: "t" }]);
      expect(r).toBeUndefined();
      expect(listStudyQueries(sqlite, "s")).toEqual([{ queryId: "q", text: "t", labelled: true }]);
      expect(annotateOne(sqlite, "s", { queryId: "q", memoryId: "m", relevance: 1 })).toEqual({
        previous: null,
        changed: true,
      });
      expect(getQrels(sqlite, "s").get("q")?.get("m")).toBe(1);
      expect(undoLastAnnotation(sqlite, "s", "q")).toMatchObject({ memoryId: "m" });
      expect(countAnnotationHistory(sqlite, "s", "q")).toBe(2);
    });
  });
});
