import { query, write } from "../op";

export type CachedResponse = { key: string; text: string; inputTokens: number; outputTokens: number };

/**
 * Stores one model answer in the response cache, outside a run (the criteria playground): the same
 * table and key as a run's calls (recordSample writes a run's), so either reuses the other's answer.
 * A key already there keeps its first answer.
 */
export const putCachedResponse = query(function* (db, r: CachedResponse) {
  yield* write(
    db
      .insert(db.tables.responseCache)
      .values({
        key: r.key,
        text: r.text,
        inputTokens: r.inputTokens,
        outputTokens: r.outputTokens,
        createdAt: new Date(),
      })
      .onConflictDoNothing(),
  );
});
