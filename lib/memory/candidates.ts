import {
  allMemories,
  collectionRange,
  collectionSizeBound,
  type FtsIndex,
  ftsMatchCount,
  ftsTopInRange,
  memoriesByRowid,
  probeFts,
  type RankedRowid,
  type ScoredMemory,
} from "@/db/queries/memories-sqlite";
import type { SqlDb as Db } from "@/db/sqlite";
import { readEnv } from "../env/registry";
import { buildMatchExpression, queryTokens } from "./fts-query";

export type RetrievalMode = "auto" | "search";

/** Column weights for bm25(title, tags, body). Auto mode searches title and tags only. */
export const DEFAULT_WEIGHTS: [number, number, number] = [3, 2, 1];

/**
 * Two budgets per index, in postings (a term's postings: the memories that hold it).
 *
 * prefix: prefix matching ("retr" finds "retrieval") is tried from the start only when the query's
 * terms are rare in the collection: their document frequencies sum to at most this. Past it a prefix
 * can stand for thousands of indexed words, and FTS5 merges all their postings before it ranks
 * anything; the exact terms go first and prefixes come in only when they find fewer than WIDEN_BELOW
 * memories. Below it, ranking is the same as with prefixes always on.
 *
 * prune: FTS5's bm25() costs about half a microsecond per memory it ranks, and it ranks every memory
 * that holds a term. Past this many postings (or pruneShare of the collection's size, if more), the
 * candidates are the memories holding at least one of the rarest terms (as many terms as fit, at
 * least one), each still scored with every term.
 *
 * Measured with `npm run bench` (bench/memory-bench.ts) at 100,000 memories: search mode keeps about
 * 98 % of the exact top 15 in half the time, auto mode about 99 % in three quarters of it; on the
 * example study and beir-synthetic, pruned as hard (the share of the collection's size), no loss;
 * pruned harder (the rarest term alone), a loss on beir-synthetic. Hence the share: a million
 * memories are pruned no harder than 100,000, and pay for it in time.
 */
export const POSTINGS_BUDGETS: Record<FtsIndex, { prefix: number; prune: number; pruneShare: number }> = {
  full: { prefix: 2000, prune: 6000, pruneShare: 0.06 },
  head: { prefix: 200, prune: 2000, pruneShare: 0.02 },
};

/**
 * Prefixes widen an exact-term search that found fewer memories than this (the hook's default pool).
 * A constant, never the pool asked for: whether prefixes score a query decides every candidate's
 * score, and a memory's score must not depend on how many candidates were asked for (`--depth`, the
 * judge's pool). The pool may choose how many candidates; it never changes what one scores.
 */
export const WIDEN_BELOW = 15;

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
     * POSTINGS_BUDGETS' unless given (the prune budget at least PRUNE_SHARE of the collection's size);
     * a negative prefix budget turns prefixes off altogether (no gate, no widening: the bench's "at
     * scale" ranking, as a large store ranks a query of common terms); an infinite prune budget ranks
     * every match (exact)
     */
    prefixBudget?: number;
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
  const prefixed = buildMatchExpression(tokens) as string;
  const exact = buildMatchExpression(tokens, { prefix: false }) as string;
  const top = (match: string) => ftsTopInRange(db, { index, match, range, weights, limit });
  if (trace) trace.index = index;
  lap("collection");

  const budgets = POSTINGS_BUDGETS[index];
  const prefixBudget = q.prefixBudget ?? budgets.prefix;
  // the prune budget grows with the collection: never harder than the share measured without loss
  const pruneBudget =
    q.pruneBudget ??
    (Number.isFinite(budgets.prune)
      ? Math.max(budgets.prune, Math.ceil(budgets.pruneShare * collectionSizeBound(db, range)))
      : budgets.prune);
  const pruning = Number.isFinite(pruneBudget);
  // prefixes change anything only for tokens of four characters or more
  const prefixes = prefixBudget >= 0 && prefixed !== exact;
  const setPath = (path: NonNullable<RetrievalTrace["prefix"]>) => {
    if (trace) trace.prefix = path;
  };
  let rows: RankedRowid[];
  let rare = false;
  let exactTop = () => top(exact);
  if (pruning) {
    // which terms choose the candidates: the rarest, within the prune budget
    const plan = planTerms(db, index, tokens, range, pruneBudget, prefixBudget);
    lap("counts");
    if (trace) trace.postings = plan.postings;
    // a query too costly to rank exactly is too costly for prefixes too
    rare = prefixes && plan.common.length === 0 && plan.postings <= Math.min(prefixBudget, pruneBudget);
    exactTop = () => prunedTop(top, limit, plan, trace);
  } else if (prefixes) {
    rare = termsAreRare(db, index, tokens, range, prefixBudget, trace);
    lap("gate");
  }
  if (rare) {
    setPath("rare");
    rows = top(prefixed);
    lap("bm25");
  } else {
    setPath(prefixed === exact ? "none" : "off");
    rows = exactTop();
    lap("bm25");
    if (prefixes && exactFindsFewer(db, index, exact, range, rows.length, limit)) {
      setPath("widened");
      rows = top(prefixed);
      lap("widen");
    }
  }

  // ids first, rows after: read only the memories kept
  const out = scoredInOrder(
    rows,
    memoriesByRowid(
      db,
      q.collection,
      rows.map((r) => r.rowid),
    ),
  );
  lap("fetch");
  return out;
}

/** The ranked rows as memories with their scores, in rank order (a row whose memory is gone is left out). */
export function scoredInOrder(
  rows: readonly { rowid: number; score: number }[],
  memories: readonly (Omit<ScoredMemory, "score"> & { rowid: number })[],
): ScoredMemory[] {
  const byRowid = new Map(memories.map((m) => [m.rowid, m]));
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
  return out;
}

/**
 * Whether the exact terms match fewer than WIDEN_BELOW memories of the collection, given the `found`
 * of the top `limit` (as many as match, up to the limit): a count only when the pool is smaller than
 * WIDEN_BELOW and came back full.
 */
function exactFindsFewer(
  db: Db,
  index: FtsIndex,
  exact: string,
  range: { lo: number; hi: number },
  found: number,
  limit: number,
): boolean {
  if (found < limit) return found < WIDEN_BELOW;
  if (limit >= WIDEN_BELOW) return false;
  return ftsMatchCount(db, index, exact, WIDEN_BELOW, range) < WIDEN_BELOW;
}

const phrase = (t: string) => `"${t}"`;
const anyOf = (ts: string[]) => ts.map(phrase).join(" OR ");

/**
 * The prefix gate: are the query's terms rare in the collection? Their document frequencies in the
 * mode's index, each counted no further than the budget + 1, summed until past the budget.
 */
function termsAreRare(
  db: Db,
  index: FtsIndex,
  tokens: string[],
  range: { lo: number; hi: number },
  budget: number,
  trace?: RetrievalTrace,
): boolean {
  let postings = 0;
  for (const token of tokens) {
    if (postings > budget) break;
    postings += ftsMatchCount(db, index, phrase(token), budget + 1, range);
  }
  if (trace) trace.postings = postings;
  return postings <= budget;
}

type TermPlan = {
  /** the terms that choose the candidates (all of them when they fit in the budget) */
  rare: string[];
  /** the terms that only add to the candidates' scores */
  common: string[];
  /** postings of the rare terms (exact when there is no common term) */
  postings: number;
};

/**
 * The query's terms, rarest first: each one's document frequency in the collection (in the mode's
 * index), counted no further than the budget + 1; the rarest join the terms that choose the candidates while their
 * postings fit in the budget (the first always joins). Terms no memory of the collection holds are
 * dropped (they score nothing). (Ordering by the head index's shorter postings would be cheaper, but a
 * collection of title-less memories has none there: "error" would pass for the rarest word.)
 */
function planTerms(
  db: Db,
  index: FtsIndex,
  tokens: string[],
  range: { lo: number; hi: number },
  budget: number,
  prefixBudget: number,
): TermPlan {
  const cap = Math.max(budget, prefixBudget) + 1;
  const df = new Map(tokens.map((t) => [t, ftsMatchCount(db, index, phrase(t), cap, range)]));
  const order = tokens
    .filter((t) => (df.get(t) ?? 0) > 0)
    .sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0));
  const rare: string[] = [];
  const common: string[] = [];
  let postings = 0;
  for (const t of order) {
    const n = df.get(t) ?? 0;
    if (common.length === 0 && (rare.length === 0 || postings + n <= budget)) {
      rare.push(t);
      postings += n;
    } else common.push(t);
  }
  return { rare, common, postings };
}

/**
 * Exact terms, pruned by document frequency: the candidates are the memories holding at least one
 * rare term, each scored with every term. Two queries whose bm25() knows every term's IDF: the rare
 * terms alone (P: partial scores, which are the full ones for a memory holding no common term) and
 * rare AND common (A: full scores). The top k is A's top k with P's memories that A does not list and
 * that score at least A's k-th (those hold no common term: one that did would score less than its
 * full score, which is at most A's k-th). A memory of the true top k is in P's top k, since fewer
 * than k memories score more in full, hence fewer than k in part. Fewer than k candidates: the
 * next common term joins the rare ones.
 */
function prunedTop(
  top: (match: string) => RankedRowid[],
  limit: number,
  plan: TermPlan,
  trace?: RetrievalTrace,
): RankedRowid[] {
  const rare = [...plan.rare];
  const common = [...plan.common];
  if (rare.length === 0) return [];
  while (common.length > 0) {
    const partial = top(anyOf(rare));
    if (partial.length >= limit) {
      const full = top(`(${anyOf(rare)}) AND (${anyOf(common)})`);
      const kth = full.length >= limit ? full[limit - 1].score : Number.NEGATIVE_INFINITY;
      const listed = new Set(full.map((r) => r.rowid));
      if (trace) trace.pruned = rare.length;
      return [...full, ...partial.filter((r) => !listed.has(r.rowid) && r.score >= kth)]
        .sort((x, y) => y.score - x.score || y.rowid - x.rowid)
        .slice(0, limit);
    }
    rare.push(common.shift() as string);
  }
  return top(anyOf(rare));
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

/** Fallback ladder, row 5: a plain scan counting token hits (prefix matches for longer tokens), title weighted. */
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
