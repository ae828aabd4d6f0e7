import { asc } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { all, query } from "../op";
import {
  allMemories,
  collectionHasMemories,
  countMemories,
  deleteMemory,
  existingMemoryIds,
  getMemories,
  getRetrieval,
  listRetrievals,
  logRetrieval,
  type MemoryInput,
  type RetrievalRecord,
  upsertMemories,
} from "./memories";

/** Every stored memory, in rowid order (the order they were first stored). */
const storedRows = query(function* (db) {
  const { memories } = db.tables;
  return yield* all(db.select().from(memories).orderBy(asc(memories.rowid)));
});

const mem = (memoryId: string, extra: Partial<MemoryInput> = {}): MemoryInput => ({
  memoryId,
  category: "note",
  title: `title of ${memoryId}`,
  tags: ["a", "ä b"],
  body: `body of ${memoryId}`,
  ...extra,
});

const record = (extra: Partial<RetrievalRecord> = {}): RetrievalRecord => ({
  collection: "c",
  mode: "auto",
  path: "bm25",
  source: "hook",
  query: "what about cats",
  candidateIds: ["m1", "m2", "m3"],
  keptIds: ["m1"],
  dropped: [{ memoryId: "m2", reason: "off topic" }, { memoryId: "m3" }],
  latencyMs: 12.5,
  ...extra,
});

describe.each(storeKinds())("memories on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("upserts: new memories in the order given, an update keeps rowid and created_at", async () => {
    const db = store.db;
    expect(await collectionHasMemories(db, "c")).toBe(false);
    const t0 = new Date(1_700_000_000_123);
    const t1 = new Date(1_700_000_999_456);
    expect(
      await upsertMemories(db, "c", [
        mem("m2", { createdAt: t0, updatedAt: t0, source: "src/a.md" }),
        mem("m1", { tags: [], body: "" }),
        mem("😀", { createdAt: t0, updatedAt: t0 }),
      ]),
    ).toBe(3);
    expect(await upsertMemories(db, "other", [mem("m1")])).toBe(1);
    expect(await collectionHasMemories(db, "c")).toBe(true);
    expect(await collectionHasMemories(db, "C")).toBe(false);

    const before = await storedRows(db);
    expect(before.map((r) => [r.collection, r.memoryId])).toEqual([
      ["c", "m2"],
      ["c", "m1"],
      ["c", "😀"],
      ["other", "m1"],
    ]);
    expect(before[0]).toMatchObject({ source: "src/a.md", createdAt: t0, updatedAt: t0, tags: ["a", "ä b"] });
    expect(before[1]).toMatchObject({ source: null, tags: [], body: "" });
    expect(before[1].createdAt.getTime()).toBeGreaterThan(t0.getTime());

    // the same memory twice in one call: the later one wins
    expect(
      await upsertMemories(db, "c", [
        mem("m2", { title: "first", updatedAt: t1 }),
        mem("m2", { title: "second", tags: ["z"], category: "fact", source: null, updatedAt: t1 }),
        mem("m4"),
      ]),
    ).toBe(3);
    // a collection's memories in the order first stored (across collections, rowids are the engine's:
    // SQLite gives each collection a range of its own)
    const after = (await storedRows(db)).filter((r) => r.collection === "c");
    expect(after.map((r) => r.memoryId)).toEqual(["m2", "m1", "😀", "m4"]);
    expect(after[0]).toMatchObject({
      rowid: before[0].rowid,
      title: "second",
      tags: ["z"],
      category: "fact",
      source: null,
      createdAt: t0,
      updatedAt: t1,
    });
    expect(after[3].rowid).toBeGreaterThan(after[2].rowid);
  });

  it("upserts all or nothing: a memory that cannot be stored rolls the others back", async () => {
    const db = store.db;
    await upsertMemories(db, "c", [mem("keep")]);
    await expect(
      Promise.resolve().then(() =>
        upsertMemories(db, "c", [
          mem("keep", { title: "changed" }),
          mem("new"),
          // "new" again: on PostgreSQL a statement of its own, after the first has been written
          mem("new", { category: null as unknown as string }),
        ]),
      ),
    ).rejects.toThrow();
    expect(await countMemories(db, "c")).toBe(1);
    expect((await getMemories(db, "c", ["keep"]))[0].title).toBe("title of keep");
    expect(await upsertMemories(db, "c", [])).toBe(0);
    expect(await countMemories(db)).toBe(1);
  });

  it("counts, reads by id in the order asked, lists a collection, deletes", async () => {
    const db = store.db;
    expect(await countMemories(db)).toBe(0);
    expect(await countMemories(db, "c")).toBe(0);
    expect(await getMemories(db, "c", ["m1"])).toEqual([]);
    expect(await allMemories(db, "c")).toEqual([]);
    await upsertMemories(db, "c", [mem("m1"), mem("m2", { tags: ["x", "y"] }), mem("B"), mem("a")]);
    await upsertMemories(db, "d", [mem("m1", { title: "d's m1" })]);
    expect(await countMemories(db)).toBe(5);
    expect(await countMemories(db, "")).toBe(5);
    expect(await countMemories(db, "c")).toBe(4);
    expect(await countMemories(db, "nope")).toBe(0);

    const got = await getMemories(db, "c", ["m2", "missing", "a", "m1"]);
    expect(got.map((m) => m.memoryId)).toEqual(["m2", "a", "m1"]);
    expect(got[0]).toMatchObject({
      category: "note",
      title: "title of m2",
      tags: ["x", "y"],
      body: "body of m2",
    });
    expect((await getMemories(db, "d", ["m1"]))[0].title).toBe("d's m1");
    expect(await getMemories(db, "c", [])).toEqual([]);

    const every = await allMemories(db, "c");
    expect(every.map((m) => m.memoryId).sort()).toEqual(["B", "a", "m1", "m2"]);
    expect(every.find((m) => m.memoryId === "m2")?.tags).toEqual(["x", "y"]);

    expect(await existingMemoryIds(db, "c", ["a", "zz", "m1", "B"])).toEqual(new Set(["a", "m1", "B"]));
    expect(await existingMemoryIds(db, "d", ["a", "m1"])).toEqual(new Set(["m1"]));
    expect(await existingMemoryIds(db, "c", [])).toEqual(new Set());

    expect(await deleteMemory(db, "c", "m1")).toBe(true);
    expect(await deleteMemory(db, "c", "m1")).toBe(false);
    expect(await deleteMemory(db, "nope", "m2")).toBe(false);
    expect(await countMemories(db, "c")).toBe(3);
    expect(await countMemories(db, "d")).toBe(1);
    expect(await collectionHasMemories(db, "d")).toBe(true);
    expect(await deleteMemory(db, "d", "m1")).toBe(true);
    expect(await collectionHasMemories(db, "d")).toBe(false);
  });

  it("logs retrievals and reads them back, newest first", async () => {
    const db = store.db;
    expect(await listRetrievals(db, { limit: 10 })).toEqual([]);
    expect(await getRetrieval(db, 1)).toBeUndefined();
    const start = Date.now();
    const id1 = await logRetrieval(db, record({ inputTokens: 10, outputTokens: 3, costUsd: 0.000123 }));
    const id2 = await logRetrieval(
      db,
      record({
        collection: "d",
        source: "search",
        mode: "search",
        path: "keyword",
        query: "q".repeat(600),
        candidateIds: [],
        keptIds: [],
        dropped: null,
        error: "judge timed out",
      }),
    );
    const id3 = await logRetrieval(db, record({ query: null, dropped: [] }));
    expect(typeof id1).toBe("number");
    expect(id2).toBeGreaterThan(id1);
    expect(id3).toBeGreaterThan(id2);

    const listed = await listRetrievals(db, { limit: 10 });
    expect(listed.map((r) => r.id)).toEqual([id3, id2, id1]);
    expect((await listRetrievals(db, { limit: 2 })).map((r) => r.id)).toEqual([id3, id2]);
    expect((await listRetrievals(db, { limit: 10, collection: "c" })).map((r) => r.id)).toEqual([id3, id1]);
    expect(await listRetrievals(db, { limit: 10, collection: "none" })).toEqual([]);

    const first = await getRetrieval(db, id1);
    expect(first).toEqual({
      id: id1,
      at: expect.any(Number),
      collection: "c",
      mode: "auto",
      path: "bm25",
      source: "hook",
      query: "what about cats",
      candidates: 3,
      returned: 1,
      latencyMs: 12.5,
      error: null,
      candidateIds: ["m1", "m2", "m3"],
      keptIds: ["m1"],
      dropped: [{ memoryId: "m2", reason: "off topic" }, { memoryId: "m3" }],
      inputTokens: 10,
      outputTokens: 3,
      costUsd: 0.000123,
    });
    expect(first?.at).toBeGreaterThanOrEqual(start);
    expect(first?.at).toBeLessThanOrEqual(Date.now());
    expect(listed[2]).toEqual(first);

    const second = await getRetrieval(db, id2);
    expect(second).toMatchObject({
      collection: "d",
      source: "search",
      query: "q".repeat(500),
      candidates: 0,
      returned: 0,
      candidateIds: [],
      keptIds: [],
      dropped: null,
      error: "judge timed out",
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    });
    expect(await getRetrieval(db, id3)).toMatchObject({ query: null, dropped: [] });
    expect(await getRetrieval(db, id3 + 1)).toBeUndefined();
  });
});
