import {
  allMemories,
  collectionRange,
  type FtsIndex,
  ftsMatchCount,
  ftsTopInRange,
  memoriesByRowid,
  probeFts,
  type RankedRowid,
  type ScoredMemory,
} from "@/db/queries/memories";
import type { SqlDb as Db } from "@/db/sqlite";
import { readEnv } from "../env/registry";
import { buildMatchExpression, queryTokens } from "./fts-query";

export type RetrievalMode = "auto" | "search";

/** Column weights for bm25(title, tags, body). Auto mode searches title and tags only. */
export const DEFAULT_WEIGHTS: [number, number, number] = [3, 2, 1];

/**
 * Prefix matching ("retr" finds "retrieval") is tried first only when the query's terms are rare in
 * the whole store: their document frequencies (each counted no further than this) sum to at most
 * this many postings. Past it a prefix can stand for thousands of indexed words, and FTS5 merges all
 * their postings before it ranks anything; the exact terms go first and prefixes come in only when
 * they find fewer memories than the pool asks for. Below it, ranking is the same as with prefixes
 * always on (a small store, a query of rare words).
 */
export const PREFIX_POSTINGS_BUDGET = 2000;

/**
 * Search mode ranks every memory that holds a query term, and FTS5's bm25() costs about half a
 * microsecond per match. When the query's terms are common (their postings in the collection sum past
 * this), the candidates are the memories holding at least one of the rarest terms (as many terms as
 * fit in this many postings, at least one), each still scored with every term. Measured with
 * `npm run bench` at 100,000 memories: about 98 % of the exact top 15 kept in about half the time; on
 * the example study and beir-synthetic, pruned as hard (6 % of the collection's size), no loss.
 */
export const PRUNE_POSTINGS_BUDGET = 6000;

export type CandidateResult = { candidates: ScoredMemory[]; engine: "fts5" | "keyword" };

/** What one retrieval did and where its time went (filled in when the caller passes one: the bench). */
export type RetrievalTrace = {
  index?: FtsIndex;
  /** "rare": prefixes from the start; "widened": exact terms found too few; "off": exact terms only */
  prefix?: "rare" | "widened" | "off" | "none";
  /** the gate's postings (document frequencies summed, each capped at the budget + 1) */
  postings?: number;
  /** pruned: how many of the rarest terms chose the candidates */
  pruned?: number;
  /** milliseconds per phase */
  ms: Record<string, number>;
};

/**
 * BM25 candidates for a prompt, best first (equal scores: the memory stored later first): auto mode
 * over title and tags (the head index), search mode over title, tags and body (the full index),
 * within the collection's rowid range. When FTS5 is unavailable (or JURY_DISABLE_FTS5 is set) a
 * keyword scan stands in.
 */
export function retrieveCandidates(
  db: Db,
  q: {
    collection: string;
    prompt: string;
    mode: RetrievalMode;
    poolSize: number;
    weights?: [number, number, number];
    /**
     * PREFIX_POSTINGS_BUDGET unless given; a negative budget turns prefixes off altogether (no gate,
     * no widening: the bench's "at scale" ranking, as a large store ranks a query of common terms)
     */
    prefixBudget?: number;
    /** search mode: PRUNE_POSTINGS_BUDGET unless given; Infinity ranks every match (exact) */
    pruneBudget?: number;
    trace?: RetrievalTrace;
  },
): CandidateResult {
  const trace = q.trace;
  let t = trace ? performance.now() : 0;
  const lap = (phase: string) => {
    if (!trace) return;
    const now = performance.now();
    trace.ms[phase] = (trace.ms[phase] ?? 0) + now - t;
    t = now;
  };
  const tokens = queryTokens(q.prompt);
  lap("tokens");
  if (tokens.length === 0) return { candidates: [], engine: ftsAvailable(db) ? "fts5" : "keyword" };
  const keyword = () => ({
    candidates: keywordScan(db, q.collection, tokens, q.mode, q.poolSize),
    engine: "keyword" as const,
  });
  if (readEnv("JURY_DISABLE_FTS5") || ftsState.get(db) === false) return keyword();
  // No probe first (the hook pays for every statement): the search itself tells whether FTS5 is there.
  try {
    const candidates = ftsCandidates(db, tokens, q, lap);
    ftsState.set(db, true);
    return { candidates, engine: "fts5" };
  } catch (err) {
    if (!FTS_MISSING.test((err as Error).message)) throw err;
    ftsState.set(db, false);
    return keyword();
  }
}

function ftsCandidates(
  db: Db,
  tokens: string[],
  q: Parameters<typeof retrieveCandidates>[1],
  lap: (phase: string) => void,
): ScoredMemory[] {
  const trace = q.trace;
  const range = collectionRange(db, q.collection);
  if (!range) {
    // a collection that never held a memory: still tell whether FTS5 is there
    if (!probeFts(db)) throw new Error("no such module: fts5");
    return [];
  }
  const index: FtsIndex = q.mode === "auto" ? "head" : "full";
  const w = q.weights ?? DEFAULT_WEIGHTS;
  const weights = index === "head" ? [w[0], w[1]] : [...w];
  const limit = Math.max(1, q.poolSize);
  const exact = buildMatchExpression(tokens, { prefix: false }) as string;
  const prefixed = buildMatchExpression(tokens) as string;
  const top = (match: string) => ftsTopInRange(db, { index, match, range, weights, limit });
  if (trace) trace.index = index;
  lap("collection");

  let rows: RankedRowid[];
  const budget = q.prefixBudget ?? PREFIX_POSTINGS_BUDGET;
  const pruneBudget = q.pruneBudget ?? PRUNE_POSTINGS_BUDGET;
  const prune = index === "full" && Number.isFinite(pruneBudget) ? pruneBudget : undefined;
  // a query too costly to rank exactly is too costly for prefixes too
  const gate = prune === undefined ? budget : Math.min(budget, prune);
  // document frequencies in the collection, each counted no further than needed
  const df = new Map<string, number>();
  if (prune !== undefined) {
    const cap = Math.max(gate, prune) + 1;
    for (const token of tokens) df.set(token, ftsMatchCount(db, "full", `"${token}"`, cap, range));
    lap("counts");
  }
  const exactTop = () =>
    prune === undefined
      ? top(exact)
      : prunedTop(db, { index, range, weights, limit, tokens, df, budget: prune, trace });
  if (prefixed === exact || budget < 0) {
    if (trace) trace.prefix = prefixed === exact ? "none" : "off";
    rows = exactTop();
    lap("bm25");
  } else {
    // the gate: are the query's terms rare in the collection? (each count stops past the budget)
    let postings = 0;
    for (const token of tokens) {
      if (postings > gate) break;
      const n = df.get(token) ?? ftsMatchCount(db, "full", `"${token}"`, gate + 1, range);
      postings += Math.min(n, gate + 1);
    }
    if (trace) trace.postings = postings;
    lap("gate");
    if (postings <= gate) {
      if (trace) trace.prefix = "rare";
      rows = top(prefixed);
      lap("bm25");
    } else {
      rows = exactTop();
      lap("bm25");
      if (trace) trace.prefix = "off";
      if (rows.length < limit) {
        if (trace) trace.prefix = "widened";
        rows = top(prefixed);
        lap("widen");
      }
    }
  }

  // ids first, rows after: read only the memories kept
  const byRowid = new Map(
    memoriesByRowid(
      db,
      q.collection,
      rows.map((r) => r.rowid),
    ).map((m) => [m.rowid, m]),
  );
  const out: ScoredMemory[] = [];
  for (const r of rows) {
    const m = byRowid.get(r.rowid);
    if (m)
      out.push({
        memoryId: m.memoryId,
        category: m.category,
        title: m.title,
        tags: m.tags,
        body: m.body,
        score: r.score,
      });
  }
  lap("fetch");
  return out;
}

/**
 * Exact terms, pruned by document frequency: when the terms' postings in the collection sum past
 * `budget`, the candidates are the memories holding at least one of the rarest terms (as many as fit
 * in the budget, at least one), each scored with every term (two queries: E AND C, E NOT C, whose
 * bm25() sums the same phrases). Memories holding only common terms are left out; the rest rank as
 * the full query ranks them. Fewer candidates than the pool: the next term joins the rare ones.
 */
function prunedTop(
  db: Db,
  p: {
    index: FtsIndex;
    range: { lo: number; hi: number };
    weights: number[];
    limit: number;
    tokens: string[];
    df: Map<string, number>;
    budget: number;
    trace?: RetrievalTrace;
  },
): RankedRowid[] {
  const top = (match: string) =>
    ftsTopInRange(db, { index: p.index, match, range: p.range, weights: p.weights, limit: p.limit });
  const live = p.tokens
    .filter((t) => (p.df.get(t) ?? 0) > 0)
    .sort((a, b) => (p.df.get(a) ?? 0) - (p.df.get(b) ?? 0));
  const or = (ts: string[]) => ts.map((t) => `"${t}"`).join(" OR ");
  if (live.length === 0) return [];
  let e = 1;
  let sum = p.df.get(live[0]) ?? 0;
  while (e < live.length && sum + (p.df.get(live[e]) ?? 0) <= p.budget) sum += p.df.get(live[e++]) ?? 0;
  for (; e < live.length; e++) {
    const E = or(live.slice(0, e));
    const C = or(live.slice(e));
    const a = top(`(${E}) AND (${C})`);
    const b = top(`(${E}) NOT (${C})`);
    if (a.length + b.length >= p.limit) {
      if (p.trace) p.trace.pruned = e;
      return [...a, ...b].sort((x, y) => y.score - x.score || y.rowid - x.rowid).slice(0, p.limit);
    }
  }
  return top(or(live));
}

/** What SQLite says when the build lacks FTS5 or the index table is gone. */
const FTS_MISSING = /no such (module: fts5|table: memories_(fts|head))/i;

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
