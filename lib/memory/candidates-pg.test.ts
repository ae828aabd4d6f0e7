import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PgDb, SqliteDb } from "@/db/client";
import { copyCollectionToPg } from "@/db/pg/memory-search";
import { type MemoryInput, upsertMemories } from "@/db/queries/memories";
import { freshStore, type Store, storeKinds } from "../testing/stores";
import { retrieveCandidates } from "./candidates";
import { retrieveCandidatesPg } from "./candidates-pg";

// PostgreSQL's BM25 is FTS5's: on words both stemmers leave alike, the same memories in the same order
// with the same scores, in both modes, with prefixes and without. Runs where the store tests run on
// PostgreSQL (JURY_TEST_DATABASE_URL; in CI always).
const WORDS = [
  "cat",
  "dog",
  "bird",
  "fish",
  "tree",
  "rock",
  "lamp",
  "desk",
  "milk",
  "bread",
  "cheese",
  "apple",
];

function memories(): MemoryInput[] {
  const out: MemoryInput[] = [];
  let seed = 7;
  const pick = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return WORDS[Math.floor(seed / 65536) % WORDS.length];
  };
  for (let i = 0; i < 60; i++)
    out.push({
      memoryId: `m${String(i).padStart(2, "0")}`,
      category: "note",
      title: `${pick()} ${pick()}`,
      tags: [pick(), pick()],
      body: Array.from({ length: 3 + (i % 9) }, pick).join(" "),
    });
  return out;
}

describe.skipIf(!storeKinds().includes("pg"))("memory candidates on PostgreSQL", () => {
  let sqlite: Store<SqliteDb>;
  let pg: Store<PgDb>;
  beforeAll(async () => {
    sqlite = await freshStore("sqlite");
    pg = await freshStore("pg");
    upsertMemories(sqlite.db, "c", memories());
    upsertMemories(sqlite.db, "other", memories().slice(0, 20)); // counted in the statistics, never a candidate
    await copyCollectionToPg(sqlite.db, pg.db, "c");
    await copyCollectionToPg(sqlite.db, pg.db, "other");
  });
  afterAll(async () => {
    await sqlite?.close();
    await pg?.close();
  });

  // budgets: the defaults (rare here: prefixes from the start), 0 (exact first, widened when they find
  // fewer than 15), 30 (the gate decides per query)
  for (const prefixBudget of [undefined, 0, 30])
    for (const mode of ["auto", "search"] as const)
      for (const prompt of [
        "cheese and bread",
        "lamp",
        "a dog chased the cat up a tree",
        "chee",
        "apple rock milk fish",
      ])
        it(`${mode}, prefix budget ${prefixBudget ?? "default"}: "${prompt}" ranks as FTS5 does`, async () => {
          const want = retrieveCandidates(sqlite.db, {
            collection: "c",
            prompt,
            mode,
            poolSize: 20,
            pruneBudget: Infinity,
            prefixBudget,
          });
          const got = await retrieveCandidatesPg(pg.db, {
            collection: "c",
            prompt,
            mode,
            poolSize: 20,
            prefixBudget,
          });
          expect(want.engine).toBe("fts5");
          expect(got.candidates.map((c) => c.memoryId)).toEqual(want.candidates.map((c) => c.memoryId));
          got.candidates.forEach((c, i) => {
            expect(c.score).toBeCloseTo(want.candidates[i].score, 9);
          });
          expect(got.candidates.length).toBeGreaterThan(0);
        });
});
