import { and, count, eq, inArray, sql } from "drizzle-orm";
import { all, one, query, rows, tx, write } from "../op";
import type { SqlDb } from "../sqlite";
import * as lite from "./memories-sqlite";
import {
  type MemoryInput,
  type MemoryRow,
  type Raw,
  type RawLog,
  type RetrievalLogRow,
  type RetrievalRecord,
  toLogRow,
  toRow,
} from "./memories-sqlite";

/**
 * Memories and the retrieval log, on either store. On SQLite each function runs the prepared
 * statements of db/queries/memories-sqlite.ts (the hook's and the search's hot path, unchanged); on
 * PostgreSQL its own SQL. The search itself is engine-specific: FTS5 on SQLite (the functions
 * re-exported below, used by lib/memory/candidates.ts), db/pg/memory-search.ts on PostgreSQL
 * (lib/memory/candidates-pg.ts).
 */

export type {
  DroppedMemory,
  MemoryInput,
  MemoryRow,
  RetrievalLogRow,
  RetrievalRecord,
  ScoredMemory,
} from "./memories-sqlite";
/**
 * SQLite only: FTS5's rowid ranges and bm25() (migration 0008's memory_collections, the memories_fts
 * and memories_head tables) have no PostgreSQL counterpart; PostgreSQL searches with
 * db/pg/memory-search.ts.
 */
export {
  COLLECTION_SPAN,
  collectionRange,
  collectionSizeBound,
  ftsMatchCount,
} from "./memories-sqlite";

/** The SQLite store as the drizzle-free statements take it. */
const sqliteOf = (db: unknown) => db as SqlDb;

/** Whether the collection holds at least one memory (one index seek: the hook asks it on every prompt). */
export const collectionHasMemories = query(function* (db, collection: string) {
  if (db.engine === "sqlite") return lite.collectionHasMemories(sqliteOf(db), collection);
  const { memories } = db.tables;
  const hit = yield* one(
    db.select({ one: sql<number>`1` }).from(memories).where(eq(memories.collection, collection)).limit(1),
  );
  return hit !== undefined;
});

/** Rows of one multi-row insert: no memory twice (an upsert may not touch a row twice in one statement). */
function upsertChunks(items: MemoryInput[], size = 500): MemoryInput[][] {
  const chunks: MemoryInput[][] = [];
  let chunk: MemoryInput[] = [];
  let ids = new Set<string>();
  for (const m of items) {
    if (chunk.length >= size || ids.has(m.memoryId)) {
      chunks.push(chunk);
      chunk = [];
      ids = new Set();
    }
    chunk.push(m);
    ids.add(m.memoryId);
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
}

/**
 * Inserts or updates memories in one transaction; returns how many were given. An update keeps the
 * memory's rowid and created_at. The search indexes follow through triggers (FTS5's on SQLite, where
 * a collection's rowids are one range; memory_postings on PostgreSQL, where rowids come from the
 * identity column, in the order given).
 */
export const upsertMemories = query(function* (db, collection: string, items: MemoryInput[]) {
  if (db.engine === "sqlite") return lite.upsertMemories(sqliteOf(db), collection, items);
  const now = new Date();
  yield* tx(db, function* (t) {
    const { memories } = t.tables;
    for (const chunk of upsertChunks(items))
      yield* write(
        t
          .insert(memories)
          .values(
            chunk.map((m) => ({
              collection,
              memoryId: m.memoryId,
              category: m.category,
              title: m.title,
              tags: m.tags,
              body: m.body,
              source: m.source ?? null,
              createdAt: m.createdAt ?? now,
              updatedAt: m.updatedAt ?? now,
            })),
          )
          .onConflictDoUpdate({
            target: [memories.collection, memories.memoryId],
            set: {
              category: sql`excluded.category`,
              title: sql`excluded.title`,
              tags: sql`excluded.tags`,
              body: sql`excluded.body`,
              source: sql`excluded.source`,
              updatedAt: sql`excluded.updated_at`,
            },
          }),
      );
  });
  return items.length;
});

export const deleteMemory = query(function* (db, collection: string, memoryId: string) {
  if (db.engine === "sqlite") return lite.deleteMemory(sqliteOf(db), collection, memoryId);
  const { memories } = db.tables;
  const { changes } = yield* write(
    db.delete(memories).where(and(eq(memories.collection, collection), eq(memories.memoryId, memoryId))),
  );
  return changes > 0;
});

/** How many memories the collection holds; of every collection when none (or "") is given. */
export const countMemories = query(function* (db, collection?: string) {
  if (db.engine === "sqlite") return lite.countMemories(sqliteOf(db), collection);
  const { memories } = db.tables;
  const r = yield* one(
    db
      .select({ n: count() })
      .from(memories)
      .where(collection ? eq(memories.collection, collection) : undefined),
  );
  return r?.n ?? 0;
});

/** The collection's memories with these ids, in the order of `ids` (an id it lacks is left out). */
export const getMemories = query(function* (db, collection: string, ids: string[]) {
  if (db.engine === "sqlite") return lite.getMemories(sqliteOf(db), collection, ids);
  if (ids.length === 0) return [] as MemoryRow[];
  const found = yield* rows<Raw>(
    db,
    sql`select memory_id as "memoryId", category, title, tags, body, 0 as score from memories
        where collection = ${collection} and memory_id in ${ids}`,
  );
  const by = new Map(found.map((r) => [r.memoryId, toRow(r)]));
  return ids.flatMap((id) => by.get(id) ?? []) as MemoryRow[];
});

/** Every memory of a collection, for the keyword-scan fallback (on PostgreSQL in memory_id order). */
export const allMemories = query(function* (db, collection: string) {
  if (db.engine === "sqlite") return lite.allMemories(sqliteOf(db), collection);
  const found = yield* rows<Raw>(
    db,
    sql`select memory_id as "memoryId", category, title, tags, body, 0 as score from memories
        where collection = ${collection} order by memory_id`,
  );
  return found.map(toRow) as MemoryRow[];
});

/**
 * Records one retrieval (every hook run, every `jury memory search`, every skill decision) and
 * returns its id. On SQLite the caller sets the connection's busy timeout: the hook gives it only the
 * time its budget has left, and skips the row when the database stays locked.
 */
export const logRetrieval = query(function* (db, r: RetrievalRecord) {
  if (db.engine === "sqlite") return lite.logRetrieval(sqliteOf(db), r);
  const { retrievalLog } = db.tables;
  const row = yield* one(
    db
      .insert(retrievalLog)
      .values({
        at: new Date(),
        collection: r.collection,
        mode: r.mode,
        path: r.path,
        candidates: r.candidateIds.length,
        returned: r.keptIds.length,
        latencyMs: r.latencyMs,
        error: r.error ?? null,
        source: r.source,
        query: r.query == null ? null : r.query.slice(0, 500),
        candidateIds: r.candidateIds,
        keptIds: r.keptIds,
        dropped: r.dropped ?? null,
        inputTokens: r.inputTokens ?? 0,
        outputTokens: r.outputTokens ?? 0,
        costUsd: r.costUsd ?? 0,
      })
      .returning({ id: retrievalLog.id }),
  );
  return Number(row?.id);
});

/** retrieval_log's columns as RawLog names them (quoted: PostgreSQL folds unquoted names to lower case). */
const LOG_COLUMNS = sql.raw(`id, at, collection, mode, path, source, query, candidates, returned,
  latency_ms as "latencyMs", error, candidate_ids as "candidateIds", kept_ids as "keptIds", dropped,
  input_tokens as "inputTokens", output_tokens as "outputTokens", cost_usd as "costUsd"`);

/** The newest retrievals first, optionally of one collection. */
export const listRetrievals = query(function* (db, opts: { limit: number; collection?: string }) {
  if (db.engine === "sqlite") return lite.listRetrievals(sqliteOf(db), opts);
  const found = yield* rows<RawLog>(
    db,
    opts.collection === undefined
      ? sql`select ${LOG_COLUMNS} from retrieval_log order by id desc limit ${opts.limit}`
      : sql`select ${LOG_COLUMNS} from retrieval_log where collection = ${opts.collection}
            order by id desc limit ${opts.limit}`,
  );
  return found.map(toLogRow) as RetrievalLogRow[];
});

export const getRetrieval = query(function* (db, id: number) {
  if (db.engine === "sqlite") return lite.getRetrieval(sqliteOf(db), id);
  const [r] = yield* rows<RawLog>(db, sql`select ${LOG_COLUMNS} from retrieval_log where id = ${id}`);
  return r === undefined ? undefined : toLogRow(r);
});

/** Which of `ids` are memories of the collection. */
export const existingMemoryIds = query(function* (db, collection: string, ids: string[]) {
  if (db.engine === "sqlite") return lite.existingMemoryIds(sqliteOf(db), collection, ids);
  if (ids.length === 0) return new Set<string>();
  const { memories } = db.tables;
  const found = yield* all(
    db
      .select({ id: memories.memoryId })
      .from(memories)
      .where(and(eq(memories.collection, collection), inArray(memories.memoryId, ids))),
  );
  return new Set(found.map((r) => r.id));
});
