import { allMemories, probeFts, type ScoredMemory, searchMemoriesFts } from "@/db/queries/memories";
import type { SqlDb as Db } from "@/db/sqlite";
import { readEnv } from "../env/registry";
import { buildMatchExpression, queryTokens } from "./fts-query";

export type RetrievalMode = "auto" | "search";

/** Column weights for bm25(title, tags, body). Auto mode searches title and tags only. */
export const DEFAULT_WEIGHTS: [number, number, number] = [3, 2, 1];

export type CandidateResult = { candidates: ScoredMemory[]; engine: "fts5" | "keyword" };

/**
 * BM25 candidates for a prompt: auto mode over title and tags, search mode over title, tags and
 * body. When FTS5 is unavailable (or JURY_DISABLE_FTS5 is set) a keyword scan stands in.
 */
export function retrieveCandidates(
  db: Db,
  q: {
    collection: string;
    prompt: string;
    mode: RetrievalMode;
    poolSize: number;
    weights?: [number, number, number];
  },
): CandidateResult {
  const tokens = queryTokens(q.prompt);
  if (tokens.length === 0) return { candidates: [], engine: ftsAvailable(db) ? "fts5" : "keyword" };
  const keyword = () => ({
    candidates: keywordScan(db, q.collection, tokens, q.mode, q.poolSize),
    engine: "keyword" as const,
  });
  if (readEnv("JURY_DISABLE_FTS5") || ftsState.get(db) === false) return keyword();
  const match = buildMatchExpression(tokens, { columns: q.mode === "auto" ? ["title", "tags"] : undefined });
  if (!match) return { candidates: [], engine: "fts5" };
  // No probe first (the hook pays for every statement): the search itself tells whether FTS5 is there.
  try {
    const candidates = searchMemoriesFts(db, {
      collection: q.collection,
      match,
      weights: q.weights ?? DEFAULT_WEIGHTS,
      limit: q.poolSize,
    });
    ftsState.set(db, true);
    return { candidates, engine: "fts5" };
  } catch (err) {
    if (!FTS_MISSING.test((err as Error).message)) throw err;
    ftsState.set(db, false);
    return keyword();
  }
}

/** What SQLite says when the build lacks FTS5 or the index table is gone. */
const FTS_MISSING = /no such (module: fts5|table: memories_fts)/i;

const ftsState = new WeakMap<Db, boolean>();
export function ftsAvailable(db: Db): boolean {
  if (readEnv("JURY_DISABLE_FTS5")) return false;
  let ok = ftsState.get(db);
  if (ok === undefined) {
    ok = probeFts(db);
    ftsState.set(db, ok);
  }
  return ok;
}

/** D4 row 5: a plain scan counting token hits (prefix matches for longer tokens), title weighted. */
export function keywordScan(
  db: Db,
  collection: string,
  tokens: string[],
  mode: RetrievalMode,
  limit: number,
): ScoredMemory[] {
  const scored: ScoredMemory[] = [];
  for (const m of allMemories(db, collection)) {
    const title = m.title.toLowerCase();
    const tags = m.tags.join(" ").toLowerCase();
    const body = mode === "search" ? m.body.toLowerCase() : "";
    let score = 0;
    for (const t of tokens) {
      const needle = t.length >= 4 ? t : ` ${t}`;
      if (` ${title}`.includes(needle)) score += 3;
      if (` ${tags}`.includes(needle)) score += 2;
      if (body && ` ${body}`.includes(needle)) score += 1;
    }
    if (score > 0) scored.push({ ...m, score });
  }
  scored.sort((a, b) => b.score - a.score || a.memoryId.localeCompare(b.memoryId));
  return scored.slice(0, limit);
}
