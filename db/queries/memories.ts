import type { Database, Statement } from "better-sqlite3";
import type { SqlDb as Db } from "../sqlite";

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

type Raw = { memoryId: string; category: string; title: string; tags: string; body: string; score: number };
const toRow = (r: Raw): ScoredMemory => ({ ...r, tags: safeTags(r.tags) });

function safeTags(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
}

const cache = new WeakMap<Database, Map<string, Statement>>();
function stmt(db: Db, sql: string): Statement {
  let m = cache.get(db.$client);
  if (!m) {
    m = new Map();
    cache.set(db.$client, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = db.$client.prepare(sql);
    m.set(sql, s);
  }
  return s;
}

/** Inserts or updates memories in one transaction; the FTS index follows through triggers. */
export function upsertMemories(db: Db, collection: string, items: MemoryInput[]): number {
  const s = stmt(
    db,
    `insert into memories (collection, memory_id, category, title, tags, body, source, created_at, updated_at)
     values (@collection, @memoryId, @category, @title, @tags, @body, @source, @createdAt, @updatedAt)
     on conflict(collection, memory_id) do update set category = excluded.category, title = excluded.title,
       tags = excluded.tags, body = excluded.body, source = excluded.source, updated_at = excluded.updated_at`,
  );
  const now = Date.now();
  db.$client
    .transaction(() => {
      for (const m of items) {
        s.run({
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

export function listCollections(db: Db): { collection: string; memories: number }[] {
  return stmt(
    db,
    "select collection, count(*) as memories from memories group by collection order by collection",
  ).all() as {
    collection: string;
    memories: number;
  }[];
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

/** BM25 over the FTS5 index; a higher score is better (FTS5's bm25() is negated). */
export function searchMemoriesFts(
  db: Db,
  q: { collection: string; match: string; weights: [number, number, number]; limit: number },
): ScoredMemory[] {
  const rows = stmt(
    db,
    `select m.memory_id as memoryId, m.category, m.title, m.tags, m.body, -bm25(memories_fts, ?, ?, ?) as score
     from memories_fts join memories m on m.rowid = memories_fts.rowid
     where memories_fts match ? and m.collection = ?
     order by score desc, m.memory_id limit ?`,
  ).all(...q.weights, q.match, q.collection, q.limit) as Raw[];
  return rows.map(toRow);
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

export function logRetrieval(
  db: Db,
  r: {
    collection: string;
    mode: string;
    path: string;
    candidates: number;
    returned: number;
    latencyMs: number;
    error?: string | null;
  },
): void {
  stmt(
    db,
    "insert into retrieval_log (at, collection, mode, path, candidates, returned, latency_ms, error) values (?, ?, ?, ?, ?, ?, ?, ?)",
  ).run(Date.now(), r.collection, r.mode, r.path, r.candidates, r.returned, r.latencyMs, r.error ?? null);
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
