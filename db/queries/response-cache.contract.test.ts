import { asc } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { all, query } from "../op";
import { putCachedResponse } from "./response-cache";

const cached = query(function* (db) {
  const { responseCache } = db.tables;
  return yield* all(db.select().from(responseCache).orderBy(asc(responseCache.key)));
});

describe.each(storeKinds())("response cache on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("stores an answer once: a key already there keeps its first answer", async () => {
    const db = store.db;
    expect(await cached(db)).toEqual([]);
    const t0 = Date.now();
    await putCachedResponse(db, { key: "k2", text: "second 😀", inputTokens: 12, outputTokens: 0 });
    await putCachedResponse(db, { key: "k1", text: "", inputTokens: 0, outputTokens: 2 ** 40 });
    await putCachedResponse(db, { key: "k2", text: "replaced?", inputTokens: 99, outputTokens: 99 });
    const rows = await cached(db);
    expect(rows.map(({ createdAt, ...r }) => r)).toEqual([
      { key: "k1", text: "", inputTokens: 0, outputTokens: 2 ** 40 },
      { key: "k2", text: "second 😀", inputTokens: 12, outputTokens: 0 },
    ]);
    for (const r of rows) {
      expect(r.createdAt).toBeInstanceOf(Date);
      expect(r.createdAt.getTime()).toBeGreaterThanOrEqual(t0);
      expect(r.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
    }
  });
});
