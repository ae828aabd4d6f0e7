// Retrieval as it was before issue 15, kept for the bench's before/after: one FTS5 query over the full
// index (title, tags, body), joined to memories to keep the collection, prefixes always on (tokens of
// four characters or more), auto mode by column filter, every row's text carried through the sort.
// It runs on today's schema: the join reads the same rowids.
import type { Statement } from "better-sqlite3";
import type { SqlDb as Db } from "@/db/sqlite";
import { DEFAULT_WEIGHTS, type RetrievalMode } from "@/lib/memory/candidates";
import { buildMatchExpression, queryTokens } from "@/lib/memory/fts-query";

export const LEGACY_SQL = `select m.memory_id as memoryId, m.category, m.title, m.tags, m.body, -bm25(memories_fts, ?, ?, ?) as score
     from memories_fts join memories m on m.rowid = memories_fts.rowid
     where memories_fts match ? and m.collection = ?
     order by score desc, m.memory_id limit ?`;

/** The MATCH expression the old code built: prefixes on, auto mode filtered to title and tags. */
export function legacyMatch(
  prompt: string,
  mode: RetrievalMode,
  opts: { prefix?: boolean } = {},
): string | null {
  return buildMatchExpression(queryTokens(prompt), {
    columns: mode === "auto" ? ["title", "tags"] : undefined,
    prefix: opts.prefix,
  });
}

const statements = new WeakMap<object, Statement>();

export function legacyCandidates(
  db: Db,
  q: { collection: string; prompt: string; mode: RetrievalMode; poolSize: number },
): { memoryId: string; score: number }[] {
  const match = legacyMatch(q.prompt, q.mode);
  if (!match) return [];
  let s = statements.get(db.$client);
  if (!s) {
    s = db.$client.prepare(LEGACY_SQL);
    statements.set(db.$client, s);
  }
  return s.all(...DEFAULT_WEIGHTS, match, q.collection, q.poolSize) as { memoryId: string; score: number }[];
}
