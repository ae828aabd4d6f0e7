import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createDb, defaultMigrationsFolder } from "@/db/client";
import {
  COLLECTION_SPAN,
  collectionRange,
  collectionSizeBound,
  deleteMemory,
  ftsMatchCount,
  type MemoryInput,
  upsertMemories,
} from "@/db/queries/memories";
import { tempDb, tempDir } from "../testing/fixtures";
import { type RetrievalMode, type RetrievalTrace, retrieveCandidates, WIDEN_BELOW } from "./candidates";

const mem = (memoryId: string, title: string, body = "", tags: string[] = []): MemoryInput => ({
  memoryId,
  category: "bug",
  title,
  tags,
  body,
});

it("keeps the FTS5 index in sync on insert, update and delete", () => {
  const { db } = tempDb();
  const find = (prompt: string, mode: "auto" | "search" = "search") =>
    retrieveCandidates(db, { collection: "c", prompt, mode, poolSize: 10 }).candidates.map((c) => c.memoryId);
  upsertMemories(db, "c", [
    {
      memoryId: "a",
      category: "bug",
      title: "Flaky webhook test",
      tags: ["stripe"],
      body: "race in the handler",
    },
  ]);
  expect(find("webhook")).toEqual(["a"]);
  upsertMemories(db, "c", [
    {
      memoryId: "a",
      category: "bug",
      title: "Flaky payment test",
      tags: ["stripe"],
      body: "race in the handler",
    },
  ]);
  expect(find("webhook")).toEqual([]);
  expect(find("webhook", "auto")).toEqual([]);
  expect(find("payment")).toEqual(["a"]);
  expect(find("payment", "auto")).toEqual(["a"]);
  // auto mode searches title and tags only; search mode adds the body
  expect(find("handler", "auto")).toEqual([]);
  expect(find("handler", "search")).toEqual(["a"]);
  expect(find("stripe", "auto")).toEqual(["a"]);
  // collections do not leak into each other
  upsertMemories(db, "other", [{ memoryId: "b", category: "bug", title: "payment", tags: [], body: "" }]);
  expect(find("payment")).toEqual(["a"]);
  expect(deleteMemory(db, "c", "a")).toBe(true);
  expect(find("payment")).toEqual([]);
  expect(find("payment", "auto")).toEqual([]);
  // stemming: "retries" finds "retry"
  upsertMemories(db, "c", [
    { memoryId: "r", category: "decision", title: "Retry policy", tags: [], body: "" },
  ]);
  expect(find("retries")).toEqual(["r"]);
});

describe("a collection's rowid range", () => {
  it("holds its memories (collection id × 2^32 + n); updates keep the rowid; the FTS range keeps collections apart", () => {
    const { db } = tempDb();
    upsertMemories(db, "one", [mem("a", "shared words here"), mem("b", "shared words there")]);
    upsertMemories(db, "two", [mem("a", "shared words here")]);
    upsertMemories(db, "one", [mem("a", "shared words again"), mem("c", "shared third")]);
    const rows = db.$client
      .prepare("select rowid, collection, memory_id from memories order by rowid")
      .all() as {
      rowid: number;
      collection: string;
      memory_id: string;
    }[];
    const one = collectionRange(db, "one");
    const two = collectionRange(db, "two");
    expect(one && two).toBeTruthy();
    expect(two?.lo).toBe((one?.lo ?? 0) + COLLECTION_SPAN);
    for (const r of rows) {
      const range = r.collection === "one" ? one : two;
      expect(
        r.rowid >= (range?.lo ?? 0) && r.rowid < (range?.hi ?? 0),
        `${r.collection}/${r.memory_id}`,
      ).toBe(true);
    }
    // the update kept a's rowid; c came after b
    const id = (c: string, m: string) =>
      rows.find((r) => r.collection === c && r.memory_id === m)?.rowid ?? 0;
    expect(id("one", "a")).toBe((one?.lo ?? 0) + 1);
    expect(id("one", "c")).toBeGreaterThan(id("one", "b"));
    for (const mode of ["auto", "search"] as const) {
      const ids = (c: string) =>
        retrieveCandidates(db, { collection: c, prompt: "shared", mode, poolSize: 10 }).candidates.map(
          (x) => x.memoryId,
        );
      expect(ids("one").sort()).toEqual(["a", "b", "c"]);
      expect(ids("two")).toEqual(["a"]);
      expect(retrieveCandidates(db, { collection: "never", prompt: "shared", mode, poolSize: 10 })).toEqual({
        candidates: [],
        engine: "fts5",
      });
    }
    expect(collectionRange(db, "never")).toBeUndefined();
  });

  it("bounds the collection's size by its highest sequence number (one seek)", () => {
    const { db } = tempDb();
    upsertMemories(db, "c", [mem("a", "x"), mem("b", "y"), mem("c", "z")]);
    upsertMemories(db, "c", [mem("a", "x again")]); // an update takes no new number
    deleteMemory(db, "c", "b");
    const range = collectionRange(db, "c");
    expect(range && collectionSizeBound(db, range)).toBe(3);
    upsertMemories(db, "d", [mem("a", "x")]);
    const d = collectionRange(db, "d");
    expect(d && collectionSizeBound(db, d)).toBe(1);
  });

  it("refuses a row inserted or moved outside its collection's range", () => {
    const { db } = tempDb();
    upsertMemories(db, "one", [mem("a", "x")]);
    upsertMemories(db, "two", [mem("b", "y")]);
    const insert = (rowid: number | null, collection: string) =>
      db.$client
        .prepare(
          "insert into memories (rowid, collection, memory_id, category, title, tags, body, created_at, updated_at) values (?, ?, 'z', 'bug', 't', '[]', '', 1, 1)",
        )
        .run(rowid, collection);
    const two = collectionRange(db, "two")?.lo ?? 0;
    expect(() => insert(null, "one")).toThrow(/collection's range/);
    expect(() => insert(two + 9, "one")).toThrow(/collection's range/);
    expect(() => insert(7, "one")).toThrow(/collection's range/);
    expect(() => insert(two + 9, "unknown")).toThrow(/collection's range/);
    expect(() =>
      db.$client.prepare("update memories set collection = 'two' where memory_id = 'a'").run(),
    ).toThrow(/collection's range/);
    expect(db.$client.prepare("select count(*) from memories").pluck().get()).toBe(2);
  });

  it("migration 0008 moves an existing database's memories into ranges and rebuilds both indexes", () => {
    // a database as it was before: migrations up to 0007, memories inserted with plain rowids
    const all = defaultMigrationsFolder();
    const old = path.join(tempDir(), "migrations");
    fs.mkdirSync(path.join(old, "meta"), { recursive: true });
    const journal = JSON.parse(fs.readFileSync(path.join(all, "meta", "_journal.json"), "utf8"));
    const i = journal.entries.findIndex((e: { tag: string }) => e.tag === "0008_memory_collection_rowids");
    expect(i).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, i);
    fs.writeFileSync(path.join(old, "meta", "_journal.json"), JSON.stringify(journal));
    for (const e of journal.entries as { tag: string }[])
      fs.copyFileSync(path.join(all, `${e.tag}.sql`), path.join(old, `${e.tag}.sql`));
    const file = path.join(tempDir(), "old.db");
    const before = createDb(file, { migrationsFolder: old });
    const ins = before.$client.prepare(
      "insert into memories (collection, memory_id, category, title, tags, body, created_at, updated_at) values (?, ?, 'bug', ?, ?, ?, 1, 1)",
    );
    ins.run("c", "a", "Webhook retries", '["stripe"]', "the handler runs twice");
    ins.run("d", "x", "Webhook signature", "[]", "raw body");
    ins.run("c", "b", "Deploy freeze", "[]", "no webhook changes on Fridays");
    before.$client.close();

    const db = createDb(file);
    const rows = db.$client.prepare("select rowid, collection, memory_id from memories order by rowid").all();
    const c = collectionRange(db, "c")?.lo ?? 0;
    const d = collectionRange(db, "d")?.lo ?? 0;
    expect(rows).toEqual([
      { rowid: c + 1, collection: "c", memory_id: "a" },
      { rowid: c + 3, collection: "c", memory_id: "b" },
      { rowid: d + 2, collection: "d", memory_id: "x" },
    ]);
    const find = (collection: string, mode: RetrievalMode) =>
      retrieveCandidates(db, { collection, prompt: "webhook", mode, poolSize: 10 })
        .candidates.map((m) => m.memoryId)
        .sort();
    expect(find("c", "search")).toEqual(["a", "b"]);
    expect(find("c", "auto")).toEqual(["a"]);
    expect(find("d", "auto")).toEqual(["x"]);
    // new memories continue the collection's sequence
    upsertMemories(db, "c", [mem("n", "webhook new")]);
    expect(db.$client.prepare("select rowid from memories where memory_id = 'n'").pluck().get()).toBe(c + 4);
    expect(find("c", "auto")).toEqual(["a", "n"]);
  });
});

describe("prefix matching", () => {
  // "config" is not a stem of "configuration" ("configur"): only the prefix finds both
  const store = () => {
    const { db } = tempDb();
    upsertMemories(db, "c", [
      mem("a", "Configuration module", "settings live in one place"),
      mem("b", "Config loader", "reads the file"),
      mem("z", "Unrelated note", "nothing to see"),
    ]);
    return db;
  };
  const run = (
    db: ReturnType<typeof store>,
    poolSize: number,
    prefixBudget?: number,
    mode: RetrievalMode = "auto",
  ) => {
    const trace: RetrievalTrace = { ms: {} };
    const ids = retrieveCandidates(db, {
      collection: "c",
      prompt: "config",
      mode,
      poolSize,
      prefixBudget,
      trace,
    })
      .candidates.map((m) => m.memoryId)
      .sort();
    return { ids, path: trace.prefix, postings: trace.postings };
  };

  it("is on from the start when the query's terms are rare in the store", () => {
    for (const mode of ["auto", "search"] as const)
      expect(run(store(), 10, undefined, mode)).toEqual({ ids: ["a", "b"], path: "rare", postings: 1 });
  });

  it(`past the budget: exact terms first, prefixes only when they find fewer than ${WIDEN_BELOW} memories, whatever the pool`, () => {
    const db = store();
    // one exact match: widened at every pool (the pool never decides how a memory is scored)
    expect(run(db, 1, 0)).toEqual({ ids: ["b"], path: "widened", postings: 1 });
    expect(run(db, 5, 0)).toEqual({ ids: ["a", "b"], path: "widened", postings: 1 });
    // a negative budget: never
    expect(run(db, 5, -1)).toEqual({ ids: ["b"], path: "off", postings: 1 });
    // enough exact matches: exact terms alone, even for a pool deeper than they reach
    upsertMemories(
      db,
      "c",
      Array.from({ length: WIDEN_BELOW }, (_, i) => mem(`x${i}`, `config note ${i}`)),
    );
    for (const pool of [1, 5, 100]) {
      const got = run(db, pool, 0);
      expect(got.path, `pool ${pool}`).toBe("off");
      expect(got.ids, `pool ${pool}`).not.toContain("a");
    }
  });

  it("counts each term no further than it needs: the gate alone to its budget + 1, the plan to the larger budget + 1", () => {
    const { db } = tempDb();
    upsertMemories(
      db,
      "c",
      Array.from({ length: 30 }, (_, i) => mem(`m${i}`, `common word ${i}`)),
    );
    expect(ftsMatchCount(db, "full", '"common"', 11)).toBe(11);
    expect(ftsMatchCount(db, "full", '"common"', 1000)).toBe(30);
    expect(ftsMatchCount(db, "head", '"absent"', 1000)).toBe(0);
    const run = (mode: RetrievalMode, prefixBudget: number, pruneBudget?: number) => {
      const trace: RetrievalTrace = { ms: {} };
      retrieveCandidates(db, {
        collection: "c",
        prompt: "common words",
        mode,
        poolSize: 5,
        prefixBudget,
        pruneBudget,
        trace,
      });
      return { postings: trace.postings, prefix: trace.prefix, pruned: trace.pruned };
    };
    // ranking every match (no pruning), the gate alone counts: it stops past its budget
    expect(run("auto", 10, Number.POSITIVE_INFINITY)).toEqual({
      postings: 11,
      prefix: "off",
      pruned: undefined,
    });
    expect(run("search", 10, Number.POSITIVE_INFINITY)).toEqual({
      postings: 11,
      prefix: "off",
      pruned: undefined,
    });
    // pruning: both terms fit the prune budget (exact counts), more than the prefix budget
    expect(run("auto", 10)).toEqual({ postings: 60, prefix: "off", pruned: undefined });
    expect(run("search", 10)).toEqual({ postings: 60, prefix: "off", pruned: undefined });
    // past the prune budget the second term only adds to the scores
    expect(run("search", 10, 40)).toEqual({ postings: 30, prefix: "off", pruned: 1 });
    expect(run("auto", 10, 40)).toEqual({ postings: 30, prefix: "off", pruned: 1 });
  });
});

it("best first; equal scores: the memory stored later first (not the memory id's order)", () => {
  const { db } = tempDb();
  upsertMemories(db, "c", [mem("b2", "twin"), mem("b1", "twin"), mem("b3", "twin twin")]);
  upsertMemories(db, "c", [mem("b9", "twin")]);
  for (const mode of ["auto", "search"] as const) {
    const got = retrieveCandidates(db, { collection: "c", prompt: "twin", mode, poolSize: 3 }).candidates;
    expect(got.map((m) => m.memoryId)).toEqual(["b3", "b9", "b1"]);
    expect(got[0].score).toBeGreaterThan(got[1].score);
    expect(got[1].score).toBe(got[2].score);
  }
});

it("falls back to the keyword scan when an index is gone", () => {
  for (const table of ["memories_fts", "memories_head"]) {
    const { db } = tempDb();
    upsertMemories(db, "c", [mem("a", "payment retry", "backoff")]);
    db.$client.exec(`DROP TABLE ${table}`);
    const mode = table === "memories_head" ? "auto" : "search";
    expect(retrieveCandidates(db, { collection: "c", prompt: "payment", mode, poolSize: 5 })).toMatchObject({
      engine: "keyword",
      candidates: [{ memoryId: "a" }],
    });
  }
});

describe("search mode pruned by document frequency", () => {
  // 40 memories hold only the common word, 3 hold the rare one too, 2 only the rare one
  const store = () => {
    const { db } = tempDb();
    upsertMemories(db, "c", [
      ...Array.from({ length: 40 }, (_, i) => mem(`c${i}`, `common note ${i}`, i % 2 ? "common again" : "")),
      mem("r1", "rare common", "common"),
      mem("r2", "rare", "common common"),
      mem("r3", "rare common", "rare"),
      mem("r4", "rare"),
      mem("r5", "a rare one"),
    ]);
    return db;
  };
  const search = (db: ReturnType<typeof store>, poolSize: number, pruneBudget: number) => {
    const trace: RetrievalTrace = { ms: {} };
    const got = retrieveCandidates(db, {
      collection: "c",
      prompt: "rare common",
      mode: "search",
      poolSize,
      pruneBudget,
      trace,
    }).candidates;
    return { got, trace };
  };

  it("past the budget, only memories holding the rarest terms compete, each scored with every term", () => {
    const db = store();
    const exact = search(db, 50, Number.POSITIVE_INFINITY);
    expect(exact.trace.pruned).toBeUndefined();
    expect(exact.got).toHaveLength(45);
    const pruned = search(db, 4, 10);
    expect(pruned.trace.pruned).toBe(1);
    // the top 4 of the exact ranking hold "rare": the pruned ranking is the same, scores included
    expect(pruned.got.map((m) => m.memoryId)).toEqual(exact.got.slice(0, 4).map((m) => m.memoryId));
    for (const [i, m] of pruned.got.entries()) expect(m.score).toBeCloseTo(exact.got[i].score, 12);
    // a pool larger than the rare term's memories: left alone, "common" joins the rare terms (all terms: exact)
    const wide = search(db, 8, 10);
    expect(wide.trace.pruned).toBeUndefined();
    expect(wide.got.map((m) => m.memoryId)).toEqual(exact.got.slice(0, 8).map((m) => m.memoryId));
    // within the budget: exact
    expect(search(db, 4, 1000).trace.pruned).toBeUndefined();
  });

  it("the pruned candidates are all the memories holding the rare terms, even those without a common one", () => {
    const db = store();
    const { got } = search(db, 5, 10);
    expect(got.map((m) => m.memoryId).sort()).toEqual(["r1", "r2", "r3", "r4", "r5"]);
  });
});

describe("a candidate's score does not depend on how many candidates were asked for", () => {
  // 2,100 titles hold "config", 60 more only "configuration" (the prefix alone finds them: the stemmer
  // keeps "configur"), past the prefix budget in both indexes: exact terms go first, the prefix may widen
  const store = () => {
    const { db } = tempDb();
    upsertMemories(db, "c", [
      ...Array.from({ length: 2100 }, (_, i) =>
        mem(`e${i}`, `config ${["policy", "budget", "queue"][i % 3]} ${i}`, i % 4 ? "backoff" : "jitter"),
      ),
      ...Array.from({ length: 60 }, (_, i) => mem(`p${i}`, `configuration webhook ${i}`, "backoff jitter")),
      // the rest of the store: the terms above are common, not universal (BM25's IDF stays above 0)
      ...Array.from({ length: 3000 }, (_, i) => mem(`o${i}`, `other note ${i}`, "unrelated text")),
    ]);
    return db;
  };
  const POOLS = [1, 10, 15, 100, 1000, 5000];

  for (const mode of ["auto", "search"] as const)
    it(`${mode} mode: every pool gives each memory the same score, and the same ranking as far as it goes`, () => {
      const db = store();
      for (const prompt of ["config", "config policy", "config queue backoff", "configuration"]) {
        const at = POOLS.map(
          (poolSize) => retrieveCandidates(db, { collection: "c", prompt, mode, poolSize }).candidates,
        );
        const deepest = at.at(-1)!;
        const score = new Map(deepest.map((m) => [m.memoryId, m.score]));
        for (const [i, got] of at.entries()) {
          const where = `${prompt} @ pool ${POOLS[i]}`;
          for (const m of got) {
            expect(score.has(m.memoryId), `${where}: ${m.memoryId} is a candidate of the deepest pool`).toBe(
              true,
            );
            expect(m.score, `${where}: ${m.memoryId}`).toBeCloseTo(score.get(m.memoryId)!, 9);
          }
          expect(
            got.map((m) => m.memoryId),
            where,
          ).toEqual(deepest.slice(0, got.length).map((m) => m.memoryId));
        }
      }
    });
});
