import { eq } from "drizzle-orm";
import type { SqliteDb } from "../client";
import type { PgDb } from "./client";

/**
 * Memories' search on PostgreSQL: BM25 as SQLite's FTS5 computes it (k1 = 1.2, b = 0.75, FTS5's IDF
 * log((N − n + 0.5) / (n + 0.5)), at least 1e-6; a phrase's frequency in a memory is its count in each
 * column times the column's weight; N, n and the average length over every memory of the store, as
 * FTS5's are over its whole table), from the postings the `memories_index` trigger keeps (PostgreSQL
 * migration 0002). Candidates are the memories of one collection.
 */

export type MemoryIndex = "full" | "head";

/** A term of the query: an exact stemmed term (lo = hi) or a prefix (hi = lo followed by the last code point). */
export type TermRange = { lo: string; hi: string };

const LAST = String.fromCodePoint(0x10ffff);
export const exactTerm = (stem: string): TermRange => ({ lo: stem, hi: stem });
export const prefixTerm = (stem: string): TermRange => ({ lo: stem, hi: stem + LAST });

/** The index's stems of the query's words (Snowball's English stemmer, as the index stores them). */
export async function stemWords(db: PgDb, words: string[]): Promise<string[]> {
  if (words.length === 0) return [];
  const r = await db.$client.query<{ s: string | null }>(
    "select (ts_lexize('jury_english_stem', w))[1] as s from unnest($1::text[]) with ordinality as t(w, i) order by i",
    [words],
  );
  return r.rows.map((row, i) => row.s ?? words[i]);
}

/** The head index (auto mode) is title and tags: a term only in a body does not match there. */
const inIndex = (index: MemoryIndex) => (index === "head" ? "and p.title + p.tags > 0" : "");

/**
 * How many memories of the collection hold any of the terms, counted no further than `cap`. One term:
 * its postings read until the cap (never all of a common term's). Several: each one's count first; a
 * distinct count over all of them only when none reaches the cap alone and together they might.
 */
export async function termMatchCount(
  db: PgDb,
  q: { collection: string; index: MemoryIndex; terms: TermRange[]; cap: number },
): Promise<number> {
  if (q.terms.length === 0 || q.cap <= 0) return 0;
  // one exact term: a memory holds it at most once (one posting), so its postings need no distinct
  const single = q.terms.length === 1 && q.terms[0].lo === q.terms[0].hi;
  if (q.terms.length > 1) {
    const each: number[] = [];
    for (const t of q.terms) {
      const n = await termMatchCount(db, { ...q, terms: [t] });
      if (n >= q.cap) return q.cap;
      each.push(n);
    }
    if (each.reduce((a, b) => a + b, 0) < q.cap) {
      if (each.filter((n) => n > 0).length <= 1) return Math.max(...each);
    }
  }
  const r = await db.$client.query<{ n: number }>(
    single
      ? `select count(*) as n from (
           select 1 from memory_postings p join memories m on m.rowid = p.rowid and m.collection = $3
           where p.term between $1 and $2 ${inIndex(q.index)} limit $4) x`
      : `select count(*) as n from (
           select distinct p.rowid from unnest($1::text[], $2::text[]) as q(lo, hi)
           join memory_postings p on p.term between q.lo and q.hi ${inIndex(q.index)}
           join memories m on m.rowid = p.rowid and m.collection = $3
           limit $4) x`,
    single
      ? [q.terms[0].lo, q.terms[0].hi, q.collection, q.cap]
      : [q.terms.map((t) => t.lo), q.terms.map((t) => t.hi), q.collection, q.cap],
  );
  return Number(r.rows[0].n);
}

/**
 * The collection's top `limit` memories by BM25 over the terms (any of them matching), best first;
 * equal scores: the memory stored later first (as FTS5's order by score, rowid desc).
 */
export async function bm25Top(
  db: PgDb,
  q: { collection: string; index: MemoryIndex; terms: TermRange[]; weights: number[]; limit: number },
): Promise<{ rowid: number; score: number }[]> {
  if (q.terms.length === 0) return [];
  const [wTitle, wTags, wBody] = q.index === "head" ? [q.weights[0], q.weights[1], 0] : q.weights;
  const length = q.index === "head" ? "title + tags" : "title + tags + body";
  const rowLength = q.index === "head" ? "l.title + l.tags" : "l.title + l.tags + l.body";
  const r = await db.$client.query<{ rowid: number; score: number }>(
    `with q as (select * from unnest($1::text[], $2::text[]) with ordinality as q(lo, hi, i)),
     hits as (
       select q.i, h.rowid, h.f from q cross join lateral (
         select p.rowid, sum($4::float8 * p.title + $5::float8 * p.tags + $6::float8 * p.body) as f
         from memory_postings p where p.term between q.lo and q.hi ${inIndex(q.index)}
         group by p.rowid
       ) h
     ),
     df as (select i, count(*)::float8 as n from hits group by i),
     st as (select docs::float8 as docs, greatest((${length})::float8 / greatest(docs, 1), 1e-9) as avgdl
            from memory_index_stats where id = 1)
     select h.rowid, sum(
         greatest(ln((st.docs - df.n + 0.5) / (df.n + 0.5)), 1e-6)
         * (h.f * 2.2) / (h.f + 1.2 * (0.25 + 0.75 * (${rowLength})::float8 / st.avgdl))
       ) as score
     from hits h join df on df.i = h.i join memory_lengths l on l.rowid = h.rowid
       join memories m on m.rowid = h.rowid and m.collection = $3 cross join st
     group by h.rowid
     order by score desc, h.rowid desc
     limit $7`,
    [
      q.terms.map((t) => t.lo),
      q.terms.map((t) => t.hi),
      q.collection,
      wTitle,
      wTags,
      wBody,
      Math.max(1, q.limit),
    ],
  );
  return r.rows.map((row) => ({ rowid: Number(row.rowid), score: Number(row.score) }));
}

/** The memories with these rowids that belong to the collection (any order). */
export async function memoriesByRowidPg(
  db: PgDb,
  collection: string,
  rowids: number[],
): Promise<
  { rowid: number; memoryId: string; category: string; title: string; tags: string[]; body: string }[]
> {
  if (rowids.length === 0) return [];
  const r = await db.$client.query<{
    rowid: number;
    memoryId: string;
    category: string;
    title: string;
    tags: string;
    body: string;
  }>(
    `select rowid, memory_id as "memoryId", category, title, tags, body
     from memories where rowid = any($1::bigint[]) and collection = $2`,
    [rowids, collection],
  );
  return r.rows.map((m) => ({ ...m, rowid: Number(m.rowid), tags: tagsOf(m.tags) }));
}

function tagsOf(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
}

/**
 * Copies a collection's memories from a SQLite store to a PostgreSQL one, rowids kept (the order
 * equal scores are listed in): for the bench and the tests, which compare the two engines' rankings.
 */
export async function copyCollectionToPg(from: SqliteDb, to: PgDb, collection: string): Promise<number> {
  const src = from.tables.memories;
  const rows = from.select().from(src).where(eq(src.collection, collection)).all();
  for (let i = 0; i < rows.length; i += 500)
    await to.insert(to.tables.memories).values(rows.slice(i, i + 500));
  return rows.length;
}
