import { describe, expect, it } from "vitest";
import { tempDb } from "@/lib/testing/fixtures";
import {
  annotateOne,
  getQrels,
  listAnnotationHistory,
  listAnnotations,
  listStudyQueries,
  setAnnotations,
  startFreshAnnotation,
  undoableChange,
  undoLastAnnotation,
  upsertStudyQueries,
} from "./study";

function study() {
  const { db } = tempDb();
  upsertStudyQueries(db, "s", [
    { queryId: "q1", text: "one" },
    { queryId: "q2", text: "two", labelled: false },
  ]);
  setAnnotations(db, "s", [
    { queryId: "q1", memoryId: "a", relevance: 1, source: "example" },
    { queryId: "q1", memoryId: "b", relevance: 0, source: "example" },
  ]);
  return db;
}

const label = (db: ReturnType<typeof study>, q: string, m: string) =>
  listAnnotations(db, "s", q).find((a) => a.memoryId === m);

describe("labels with provenance and history", () => {
  it("an import records each label's source and time, and a history entry from no label", () => {
    const db = study();
    expect(label(db, "q1", "a")).toMatchObject({ relevance: 1, source: "example" });
    expect(label(db, "q1", "a")?.updatedAt).toBeInstanceOf(Date);
    const h = listAnnotationHistory(db, "s", "q1");
    expect(h.map((x) => [x.memoryId, x.previous, x.relevance, x.source])).toEqual([
      ["b", null, 0, "example"],
      ["a", null, 1, "example"],
    ]);
    // setting the same grade again is not a change
    setAnnotations(db, "s", [{ queryId: "q1", memoryId: "a", relevance: 1, source: "example" }]);
    expect(listAnnotationHistory(db, "s", "q1")).toHaveLength(2);
  });

  it("a person's relabel adds a history entry; undo restores the earlier label and its source, step by step", () => {
    const db = study();
    expect(annotateOne(db, "s", { queryId: "q1", memoryId: "a", relevance: 0 })).toEqual({
      previous: 1,
      changed: true,
    });
    expect(label(db, "q1", "a")).toMatchObject({ relevance: 0, source: "human" });
    annotateOne(db, "s", { queryId: "q1", memoryId: "c", relevance: 1 });
    const [newest, before] = listAnnotationHistory(db, "s", "q1");
    expect(newest).toMatchObject({ memoryId: "c", previous: null, relevance: 1, source: "human" });
    expect(before).toMatchObject({ memoryId: "a", previous: 1, relevance: 0, source: "human" });

    // undo 1: c had no label → removed
    expect(undoLastAnnotation(db, "s", "q1")).toMatchObject({ memoryId: "c" });
    expect(label(db, "q1", "c")).toBeUndefined();
    // undo 2: a back to relevant, as the example had it
    expect(undoableChange(db, "s", "q1")).toMatchObject({ memoryId: "a", previous: 1 });
    undoLastAnnotation(db, "s", "q1");
    expect(label(db, "q1", "a")).toMatchObject({ relevance: 1, source: "example" });
    // each undo is itself in the history
    expect(
      listAnnotationHistory(db, "s", "q1")
        .slice(0, 2)
        .map((h) => [h.memoryId, h.source, h.relevance]),
    ).toEqual([
      ["a", "undo", 1],
      ["c", "undo", null],
    ]);
    // then the import's own entries: undoing them removes the example labels one at a time
    undoLastAnnotation(db, "s", "q1");
    expect(label(db, "q1", "b")).toBeUndefined();
    undoLastAnnotation(db, "s", "q1");
    expect(label(db, "q1", "a")).toBeUndefined();
    expect(undoLastAnnotation(db, "s", "q1")).toBeUndefined();
  });

  it("a query that needs annotation is in no metric until a person labels it", () => {
    const db = study();
    expect(listStudyQueries(db, "s").map((q) => [q.queryId, q.labelled])).toEqual([
      ["q1", true],
      ["q2", false],
    ]);
    setAnnotations(db, "s", [{ queryId: "q2", memoryId: "a", relevance: 1, source: "qrels" }]);
    expect([...getQrels(db, "s").keys()]).toEqual(["q1"]);
    expect([...getQrels(db, "s", { includeUnlabelled: true }).keys()].sort()).toEqual(["q1", "q2"]);
    annotateOne(db, "s", { queryId: "q2", memoryId: "b", relevance: 0 });
    expect(listStudyQueries(db, "s").find((q) => q.queryId === "q2")?.labelled).toBe(true);
    expect([...getQrels(db, "s").keys()].sort()).toEqual(["q1", "q2"]);
  });

  it("a fresh annotation clears every label, keeps the history, and every query needs annotation", () => {
    const db = study();
    expect(startFreshAnnotation(db, "s")).toEqual({ cleared: 2, queries: 2 });
    expect(listAnnotations(db, "s")).toEqual([]);
    expect(listStudyQueries(db, "s").every((q) => !q.labelled)).toBe(true);
    expect(getQrels(db, "s").size).toBe(0);
    // one entry for the query, holding what it cleared, above the history it keeps
    const h = listAnnotationHistory(db, "s", "q1");
    expect(h).toHaveLength(3);
    expect(h[0]).toMatchObject({
      memoryId: null,
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
    // q2 had no label and needed annotation already: nothing changed, nothing recorded
    expect(listAnnotationHistory(db, "s", "q2")).toEqual([]);
    // a person labels afresh; undo walks back that label, then the fresh start in one step
    annotateOne(db, "s", { queryId: "q1", memoryId: "a", relevance: 0 });
    expect(undoLastAnnotation(db, "s", "q1")).toMatchObject({ memoryId: "a", source: "human" });
    expect(listAnnotations(db, "s", "q1")).toEqual([]);
    expect(undoLastAnnotation(db, "s", "q1")).toMatchObject({ memoryId: null, source: "fresh" });
    expect(
      listAnnotations(db, "s", "q1")
        .map((a) => [a.memoryId, a.relevance, a.source])
        .sort(),
    ).toEqual([
      ["a", 1, "example"],
      ["b", 0, "example"],
    ]);
    expect(listStudyQueries(db, "s").find((q) => q.queryId === "q1")?.labelled).toBe(true);
    expect(listAnnotationHistory(db, "s", "q1")[0]).toMatchObject({ memoryId: null, source: "undo" });
    // nothing left to undo but the import's own entries
    expect(undoableChange(db, "s", "q1")).toMatchObject({ memoryId: "b", source: "example" });
  });

  it("a fresh annotation of the example study: one history entry per query, not one per label cleared", () => {
    const { db } = tempDb();
    const memories = Array.from({ length: 54 }, (_, i) => `m${i}`);
    upsertStudyQueries(
      db,
      "ex",
      Array.from({ length: 20 }, (_, i) => ({ queryId: `q${i}`, text: `query ${i}` })),
    );
    // every query labelled against every memory, as the example's ground truth is
    setAnnotations(
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
    const before = listAnnotationHistory(db, "ex", "q0", 10_000).length;
    expect(startFreshAnnotation(db, "ex")).toEqual({ cleared: 20 * 54, queries: 20 });
    for (let q = 0; q < 20; q++) {
      const h = listAnnotationHistory(db, "ex", `q${q}`, 10_000);
      expect(h).toHaveLength(before + 1);
      expect(h[0]).toMatchObject({ source: "fresh", memoryId: null });
      expect(h[0].cleared?.labels).toHaveLength(54);
    }
  });
});
