import type { PgDb } from "@/db/pg/client";
import {
  bm25Top,
  exactTerm,
  type MemoryIndex,
  memoriesByRowidPg,
  prefixTerm,
  stemWords,
  type TermRange,
  termMatchCount,
} from "@/db/pg/memory-search";
import type { ScoredMemory } from "@/db/queries/memories";
import {
  DEFAULT_WEIGHTS,
  POSTINGS_BUDGETS,
  type RetrievalMode,
  scoredInOrder,
  WIDEN_BELOW,
} from "./candidates";
import { queryTokens, WILDCARD_MIN_LENGTH } from "./fts-query";

/**
 * BM25 candidates for a prompt from a PostgreSQL store, best first: retrieveCandidates' rules
 * (lib/memory/candidates.ts) on PostgreSQL's index (db/pg/memory-search.ts). Auto mode over title
 * and tags, search mode over title, tags and body; prefixes ("retr" finds "retrieval") from the start
 * when the query's terms are rare in the collection (document frequencies summing to at most the
 * index's prefix budget), else exact terms first, widened with prefixes when they find fewer than
 * WIDEN_BELOW memories. Every match is ranked (SQLite's pruning by document frequency is a cost of
 * FTS5's bm25(), not a rule of the ranking).
 *
 * Words are stemmed by Snowball's English stemmer where FTS5 uses Porter's (mostly the same stems),
 * and a word joined by underscores is searched as its parts.
 */
export async function retrieveCandidatesPg(
  db: PgDb,
  q: {
    collection: string;
    prompt: string;
    mode: RetrievalMode;
    poolSize: number;
    weights?: [number, number, number];
    /** POSTINGS_BUDGETS' unless given; negative: prefixes off */
    prefixBudget?: number;
  },
): Promise<{ candidates: ScoredMemory[]; engine: "pg-bm25"; prefix: "rare" | "widened" | "off" | "none" }> {
  const words = [
    ...new Set(
      queryTokens(q.prompt)
        .flatMap((t) => t.split("_"))
        .filter((t) => t.length >= 2),
    ),
  ];
  if (words.length === 0) return { candidates: [], engine: "pg-bm25", prefix: "none" };
  const stems = await stemWords(db, words);
  const exact = [...new Map(stems.map((s) => [s, exactTerm(s)])).values()];
  // a word long enough matches as a prefix of its stem, as FTS5's "word"* does of the porter stem
  const prefixed = dedupe(
    words.map((w, i) => (w.length >= WILDCARD_MIN_LENGTH ? prefixTerm(stems[i]) : exactTerm(stems[i]))),
  );
  const index: MemoryIndex = q.mode === "auto" ? "head" : "full";
  const weights = [...(q.weights ?? DEFAULT_WEIGHTS)];
  const limit = Math.max(1, q.poolSize);
  const top = (terms: TermRange[]) => bm25Top(db, { collection: q.collection, index, terms, weights, limit });
  const count = (terms: TermRange[], cap: number) =>
    termMatchCount(db, { collection: q.collection, index, terms, cap });

  const budget = q.prefixBudget ?? POSTINGS_BUDGETS[index].prefix;
  const prefixes = budget >= 0 && prefixed.some((t) => t.hi !== t.lo);
  let path: "rare" | "widened" | "off" | "none" = prefixes ? "off" : "none";
  let rows: { rowid: number; score: number }[];
  if (prefixes && (await termsAreRare(exact, budget, count))) {
    path = "rare";
    rows = await top(prefixed);
  } else {
    rows = await top(exact);
    const found = rows.length;
    const fewer = async () =>
      found < limit
        ? found < WIDEN_BELOW
        : limit < WIDEN_BELOW && (await count(exact, WIDEN_BELOW)) < WIDEN_BELOW;
    if (prefixes && (await fewer())) {
      path = "widened";
      rows = await top(prefixed);
    }
  }
  const memories = await memoriesByRowidPg(
    db,
    q.collection,
    rows.map((r) => r.rowid),
  );
  const candidates = scoredInOrder(rows, memories);
  return { candidates, engine: "pg-bm25", prefix: path };
}

function dedupe(terms: TermRange[]): TermRange[] {
  return [...new Map(terms.map((t) => [`${t.lo}\u0000${t.hi}`, t])).values()];
}

/** The prefix gate: each exact term's document frequency in the collection, summed until past the budget. */
async function termsAreRare(
  terms: TermRange[],
  budget: number,
  count: (terms: TermRange[], cap: number) => Promise<number>,
): Promise<boolean> {
  let postings = 0;
  for (const t of terms) {
    if (postings > budget) break;
    postings += await count([t], budget + 1);
  }
  return postings <= budget;
}
