// Memories on SQLite: the prepared statements behind db/queries/memories.ts's SQLite path, and the
// FTS5 index's own (the rowid ranges, bm25(): lib/memory/candidates.ts's search). Kept free of
// drizzle: the memory hook's small bundle (dist/hook.cjs) reads and logs through this module; every
// other caller goes through db/queries/memories.ts, which runs on either store.
import type { SqlDb as Db } from "../sqlite";
import { stmt } from "./statements";

export type MemoryInput = {
  memoryId: string;
  category: string;
  title: string;
  tags: string[];
  body: string;
  source?: string | null;
  createdAt?: Date;
  updatedAt?: Date;
};

export type MemoryRow = { memoryId: string; category: string; title: string; tags: string[]; body: string };
export type ScoredMemory = MemoryRow & { score: number };

/** A memory as SQL reads it: tags still JSON text. */
export type Raw = {
  memoryId: string;
  category: string;
  title: string;
  tags: string;
  body: string;
  score: number;
};
export const toRow = (r: Raw): ScoredMemory => ({ ...r, tags: safeTags(r.tags) });

function safeTags(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
}

/**
 * A collection's memories live in one rowid range: rowid = collection id × 2^32 + a sequence number
 * (migration 0008; a trigger refuses any other). Retrieval keeps a collection with FTS5's rowid range
 * instead of reading each match's row.
 */
export const COLLECTION_SPAN = 2 ** 32;

/** The collection's rowid range [lo, hi), or undefined when it never held a memory. */
export function collectionRange(db: Db, collection: string): { lo: number; hi: number } | undefined {
  const id = stmt(db, "select id from memory_collections where name = ?").pluck().get(collection) as
    | number
    | undefined;
  return id === undefined ? undefined : { lo: id * COLLECTION_SPAN, hi: (id + 1) * COLLECTION_SPAN };
}

/** Whether the collection holds at least one memory (one index seek: the hook asks it on every prompt). */
export function collectionHasMemories(db: Db, collection: string): boolean {
  const range = collectionRange(db, collection);
  return (
    range !== undefined &&
    stmt(db, "select 1 from memories where rowid >= ? and rowid < ? limit 1")
      .pluck()
      .get(range.lo, range.hi) === 1
  );
}

/**
 * How many memories the collection has held at most: its highest sequence number (one per insert;
 * deletions are not subtracted). One index seek, unlike count(*).
 */
export function collectionSizeBound(db: Db, range: { lo: number; hi: number }): number {
  const max = stmt(db, "select max(rowid) from memories where rowid >= ? and rowid < ?")
    .pluck()
    .get(range.lo, range.hi) as number | null;
  return max === null ? 0 : max - range.lo;
}

/** Inserts or updates memories in one transaction; the FTS indexes follow through triggers. */
export function upsertMemories(db: Db, collection: string, items: MemoryInput[]): number {
  const s = stmt(
    db,
    `insert into memories (rowid, collection, memory_id, category, title, tags, body, source, created_at, updated_at)
     values (@rowid, @collection, @memoryId, @category, @title, @tags, @body, @source, @createdAt, @updatedAt)
     on conflict(collection, memory_id) do update set category = excluded.category, title = excluded.title,
       tags = excluded.tags, body = excluded.body, source = excluded.source, updated_at = excluded.updated_at`,
  );
  const now = Date.now();
  db.$client
    .transaction(() => {
      stmt(db, "insert into memory_collections (name) values (?) on conflict(name) do nothing").run(
        collection,
      );
      const range = collectionRange(db, collection);
      if (!range) throw new Error(`memory_collections has no row for "${collection}"`);
      // the next free sequence number (an update leaves its number unused: the range holds 2^32)
      let next = range.lo + collectionSizeBound(db, range) + 1;
      for (const m of items) {
        s.run({
          rowid: next++,
          collection,
          memoryId: m.memoryId,
          category: m.category,
          title: m.title,
          tags: JSON.stringify(m.tags),
          body: m.body,
          source: m.source ?? null,
          createdAt: m.createdAt?.getTime() ?? now,
          updatedAt: m.updatedAt?.getTime() ?? now,
        });
      }
    })
    .immediate();
  return items.length;
}

export function deleteMemory(db: Db, collection: string, memoryId: string): boolean {
  return (
    stmt(db, "delete from memories where collection = ? and memory_id = ?").run(collection, memoryId)
      .changes > 0
  );
}

export function countMemories(db: Db, collection?: string): number {
  return (
    collection
      ? stmt(db, "select count(*) from memories where collection = ?").pluck().get(collection)
      : stmt(db, "select count(*) from memories").pluck().get()
  ) as number;
}

export function getMemories(db: Db, collection: string, ids: string[]): MemoryRow[] {
  if (ids.length === 0) return [];
  const rows = db.$client
    .prepare(
      `select memory_id as memoryId, category, title, tags, body, 0 as score from memories
       where collection = ? and memory_id in (${ids.map(() => "?").join(",")})`,
    )
    .all(collection, ...ids) as Raw[];
  const by = new Map(rows.map((r) => [r.memoryId, toRow(r)]));
  return ids.flatMap((id) => by.get(id) ?? []);
}

/**
 * The two FTS5 indexes over memories (external content, kept in sync by triggers): `full` over title,
 * tags and body (search mode), `head` over title and tags (auto mode, the hook).
 */
export type FtsIndex = "full" | "head";
const FTS_TABLE: Record<FtsIndex, string> = { full: "memories_fts", head: "memories_head" };

/**
 * How many memories match (of the collection's rowid range when given, else of the whole index),
 * counted no further than `cap`: for one term, its document frequency.
 */
export function ftsMatchCount(
  db: Db,
  index: FtsIndex,
  match: string,
  cap: number,
  range?: { lo: number; hi: number },
): number {
  const t = FTS_TABLE[index];
  if (!range)
    return stmt(db, `select count(*) from (select 1 from ${t} where ${t} match ? limit ?)`)
      .pluck()
      .get(match, cap) as number;
  return stmt(
    db,
    `select count(*) from (select 1 from ${t} where ${t} match ? and rowid >= ? and rowid < ? limit ?)`,
  )
    .pluck()
    .get(match, range.lo, range.hi, cap) as number;
}

export type RankedRowid = { rowid: number; score: number };

/**
 * BM25 over one collection's rowid range, best first (a higher score is better: FTS5's bm25() is
 * negated), equal scores newest first (the higher rowid: the memory stored later). Only rowids and
 * scores: the rows are read after, for the few kept (`memoriesByRowid`).
 */
export function ftsTopInRange(
  db: Db,
  q: { index: FtsIndex; match: string; range: { lo: number; hi: number }; weights: number[]; limit: number },
): RankedRowid[] {
  const t = FTS_TABLE[q.index];
  return stmt(
    db,
    `select rowid, -bm25(${t}, ${q.weights.map(() => "?").join(", ")}) as score from ${t}
     where ${t} match ? and rowid >= ? and rowid < ? order by score desc, rowid desc limit ?`,
  ).all(...q.weights, q.match, q.range.lo, q.range.hi, Math.max(1, q.limit)) as RankedRowid[];
}

/** The memories with these rowids that belong to the collection (any order). */
export function memoriesByRowid(
  db: Db,
  collection: string,
  rowids: number[],
): (MemoryRow & { rowid: number })[] {
  if (rowids.length === 0) return [];
  // CROSS JOIN: look each rowid up, never scan the collection's index
  const rows = stmt(
    db,
    `select m.rowid, m.memory_id as memoryId, m.category, m.title, m.tags, m.body
     from json_each(?) j cross join memories m on m.rowid = j.value where m.collection = ?`,
  ).all(JSON.stringify(rowids), collection) as (Omit<Raw, "score"> & { rowid: number })[];
  return rows.map((r) => ({ ...r, tags: safeTags(r.tags) }));
}

/** Every memory of a collection, for the keyword-scan fallback. */
export function allMemories(db: Db, collection: string): MemoryRow[] {
  return (
    stmt(
      db,
      "select memory_id as memoryId, category, title, tags, body, 0 as score from memories where collection = ?",
    ).all(collection) as Raw[]
  ).map(toRow);
}

/** Who asked for a retrieval: the hook, `jury memory search`, or the /jury:memory-search skill. */
export type RetrievalSource = "hook" | "search" | "skill";

/** A candidate left out by the judge, with its reason when it gave one. */
export type DroppedMemory = { memoryId: string; reason?: string };

export type RetrievalRecord = {
  collection: string;
  mode: string;
  path: string;
  source: RetrievalSource;
  /** the prompt or query; stored cut to 500 characters */
  query?: string | null;
  /** the BM25 candidates, best first */
  candidateIds: string[];
  /** what was injected (the hook) or shown / kept (search, skill) */
  keptIds: string[];
  /** what the judge left out, with its reasons; null when no judge decided (a fallback path) */
  dropped?: DroppedMemory[] | null;
  latencyMs: number;
  error?: string | null;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
};

export type RetrievalLogRow = Omit<RetrievalRecord, "source"> & {
  id: number;
  at: number;
  source: string;
  candidates: number;
  returned: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  dropped: DroppedMemory[] | null;
};

/**
 * Records one retrieval (every hook run, every `jury memory search`, every skill decision) and
 * returns its id. The caller sets the connection's busy timeout: the hook gives it only the time its
 * budget has left, and skips the row when the database stays locked.
 */
export function logRetrieval(db: Db, r: RetrievalRecord): number {
  const info = stmt(
    db,
    `insert into retrieval_log (at, collection, mode, path, candidates, returned, latency_ms, error, source, query,
       candidate_ids, kept_ids, dropped, input_tokens, output_tokens, cost_usd)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    Date.now(),
    r.collection,
    r.mode,
    r.path,
    r.candidateIds.length,
    r.keptIds.length,
    r.latencyMs,
    r.error ?? null,
    r.source,
    r.query == null ? null : r.query.slice(0, 500),
    JSON.stringify(r.candidateIds),
    JSON.stringify(r.keptIds),
    r.dropped == null ? null : JSON.stringify(r.dropped),
    r.inputTokens ?? 0,
    r.outputTokens ?? 0,
    r.costUsd ?? 0,
  );
  return Number(info.lastInsertRowid);
}

/** A retrieval_log row as SQL reads it: the id lists still JSON text. */
export type RawLog = {
  id: number;
  at: number;
  collection: string;
  mode: string;
  path: string;
  source: string;
  query: string | null;
  candidates: number;
  returned: number;
  latencyMs: number;
  error: string | null;
  candidateIds: string | null;
  keptIds: string | null;
  dropped: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
};

const LOG_COLUMNS = `id, at, collection, mode, path, source, query, candidates, returned, latency_ms as latencyMs,
  error, candidate_ids as candidateIds, kept_ids as keptIds, dropped, input_tokens as inputTokens,
  output_tokens as outputTokens, cost_usd as costUsd`;

function jsonList<T>(text: string | null): T[] | null {
  if (text == null) return null;
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? (v as T[]) : null;
  } catch {
    return null;
  }
}

export const toLogRow = (r: RawLog): RetrievalLogRow => ({
  ...r,
  candidateIds: jsonList<string>(r.candidateIds) ?? [],
  keptIds: jsonList<string>(r.keptIds) ?? [],
  dropped: jsonList<DroppedMemory>(r.dropped),
});

/** The newest retrievals first, optionally of one collection. */
export function listRetrievals(db: Db, opts: { limit: number; collection?: string }): RetrievalLogRow[] {
  const rows = (
    opts.collection === undefined
      ? stmt(db, `select ${LOG_COLUMNS} from retrieval_log order by id desc limit ?`).all(opts.limit)
      : stmt(
          db,
          `select ${LOG_COLUMNS} from retrieval_log where collection = ? order by id desc limit ?`,
        ).all(opts.collection, opts.limit)
  ) as RawLog[];
  return rows.map(toLogRow);
}

export function getRetrieval(db: Db, id: number): RetrievalLogRow | undefined {
  const r = stmt(db, `select ${LOG_COLUMNS} from retrieval_log where id = ?`).get(id) as RawLog | undefined;
  return r && toLogRow(r);
}

/** Which of `ids` are memories of the collection. */
export function existingMemoryIds(db: Db, collection: string, ids: string[]): Set<string> {
  if (ids.length === 0) return new Set();
  const rows = db.$client
    .prepare(
      `select memory_id from memories where collection = ? and memory_id in (${ids.map(() => "?").join(",")})`,
    )
    .pluck()
    .all(collection, ...ids) as string[];
  return new Set(rows);
}

/** Whether the FTS5 index answers a query (false when SQLite lacks FTS5 or the table is gone). */
export function probeFts(db: Db): boolean {
  try {
    db.$client.prepare("select count(*) from memories_fts where memories_fts match '\"x\"'").get();
    return true;
  } catch {
    return false;
  }
}
