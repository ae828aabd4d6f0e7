import type { PgDb } from "@/db/pg/client";
import type { DroppedMemory, MemoryRow, ScoredMemory } from "@/db/queries/memories";
import type { SqlDb } from "@/db/sqlite";
import { errorMessage, hasErrorCode, JuryError } from "../errors";
import { costOf, resolvePrice } from "../pricing";
import { redactSecrets } from "../redact";
import type { MemoryJudgeSettings, Settings } from "../settings/schema";
import { type CandidateResult, type RetrievalMode, retrieveCandidates } from "./candidates";
import type { JudgeCallStats } from "./judge";
import { extractRecentContext } from "./transcript";

/** The fallback ladder, one path per row, recorded for every retrieval. */
export type LadderPath =
  | "judge" // 1. judge enabled and answered: judge-filtered
  | "timeout" // 2. judge enabled, no answer in time (its timeout_per_call, or the caller's deadline): as judge_error
  | "judge_error" // 2. judge enabled, error or no usable answer: BM25 top fallback_top_k (auto) / unfiltered (search)
  | "no_api_key" // 3. judge enabled, no key: BM25 top-k standard
  | "judge_disabled" // 4. judge disabled: BM25 top-k standard
  | "keyword_fallback" // 5. FTS5 unavailable: keyword scan, no judge
  | "no_candidates"; // nothing matched: nothing to inject

export type RetrievalOutcome = {
  memories: MemoryRow[];
  path: LadderPath;
  candidates: number;
  /** the BM25 candidates, best first, as the judge was given them */
  pool: { memoryId: string; score: number }[];
  /** the same candidates with their memories (for a caller that shows or judges them itself) */
  poolMemories: ScoredMemory[];
  /** what the judge left out, with its reasons where it gave them; null when no judge decided */
  dropped: DroppedMemory[] | null;
  stats?: JudgeCallStats;
  /** the judge's cost in USD, from the settings' price of its model (0 when unpriced or not called) */
  costUsd: number;
  error?: string;
  latencyMs: number;
};

/**
 * The store memories are read from: a SQLite connection (the hook's own, without drizzle, or a SQLite
 * store) or a PostgreSQL store.
 */
export type MemoryDb = SqlDb | PgDb;

const onPg = (db: MemoryDb): db is PgDb => (db as { engine?: string }).engine === "pg";

type CandidateQuery = Parameters<typeof retrieveCandidates>[1];

/**
 * BM25 candidates from either store: SQLite's FTS5 (lib/memory/candidates.ts, synchronous) or
 * PostgreSQL's index (lib/memory/candidates-pg.ts, loaded only on PostgreSQL).
 */
export async function retrieveCandidatesFrom(
  db: MemoryDb,
  q: CandidateQuery,
): Promise<CandidateResult | { candidates: ScoredMemory[]; engine: "pg-bm25" }> {
  if (!onPg(db)) return retrieveCandidates(db, q);
  // through the judge's module: the hook's bundle leaves it out (it never runs on PostgreSQL)
  const { retrieveCandidatesPg } = await import("./judge-runtime");
  const { candidates, engine } = await retrieveCandidatesPg(db, q);
  return { candidates, engine };
}

export type RetrieveInput = {
  db: MemoryDb;
  collection: string;
  prompt: string;
  mode: RetrievalMode;
  /** the memory-judge block; endpoints only matter when the judge uses a custom endpoint, prices for the cost */
  settings: Pick<Settings, "memoryJudge"> & Partial<Pick<Settings, "endpoints" | "prices">>;
  transcriptPath?: string;
  /** overrides for experiments */
  judge?: Partial<MemoryJudgeSettings> & { shuffle?: boolean; salt?: string; includeBody?: boolean };
  env?: Record<string, string | undefined>;
  /** aborts the judge's calls (a cancelled experiment): the retrieval rejects */
  signal?: AbortSignal;
  /**
   * When the judge must have answered, as a performance.now() time (the hook's budget). A judge still
   * out then is abandoned (its call aborted) and the retrieval answers the fallback, path "timeout".
   */
  deadline?: number;
  /** hears what was skipped on the way (a transcript that is not a regular file) */
  onNote?: (message: string) => void;
};

export async function retrieveMemories(input: RetrieveInput): Promise<RetrievalOutcome> {
  const started = performance.now();
  const cfg = { ...input.settings.memoryJudge, ...input.judge };
  const modeCfg = cfg.modes[input.mode];
  const standardK = modeCfg.max_output;

  const q: CandidateQuery = {
    collection: input.collection,
    prompt: input.prompt,
    mode: input.mode,
    poolSize: modeCfg.candidate_pool_size ?? cfg.candidate_pool_size,
  };
  // SQLite (the hook) stays synchronous here: no promise on its path
  const { candidates, engine } = onPg(input.db)
    ? await retrieveCandidatesFrom(input.db, q)
    : retrieveCandidates(input.db, q);
  const done = (
    o: Omit<RetrievalOutcome, "latencyMs" | "pool" | "poolMemories" | "candidates" | "dropped" | "costUsd"> &
      Partial<Pick<RetrievalOutcome, "dropped" | "costUsd">>,
  ): RetrievalOutcome => ({
    dropped: null,
    costUsd: 0,
    ...o,
    candidates: candidates.length,
    pool: candidates.map((c) => ({ memoryId: c.memoryId, score: c.score })),
    poolMemories: candidates,
    latencyMs: performance.now() - started,
  });
  /** Fallback ladder, row 2: auto mode keeps only the top fallback_top_k; search mode shows unfiltered results. */
  const judgeFailed = (path: "timeout" | "judge_error", error: string) =>
    done({
      memories: candidates.slice(0, input.mode === "auto" ? cfg.fallback_top_k : standardK),
      path,
      error,
    });
  if (engine === "keyword")
    return done({ memories: candidates.slice(0, standardK), path: "keyword_fallback" });
  if (candidates.length === 0) return done({ memories: [], path: "no_candidates" });
  if (!cfg.enabled) return done({ memories: candidates.slice(0, standardK), path: "judge_disabled" });

  const timeLeft = () => (input.deadline === undefined ? Infinity : input.deadline - performance.now());
  const outOfTime = () =>
    judgeFailed(
      "timeout",
      `the judge had not answered by the deadline (${Math.round(input.deadline ?? 0)} ms into the process): abandoned`,
    );
  // The AI SDK and the judge load only when the judge runs: the hook stays fast with it off.
  const { getModel, judgeCandidates, majorityOfSamples } = await import("./judge-runtime");
  let model: ReturnType<typeof getModel>;
  try {
    model = getModel(cfg.model, { settings: input.settings, env: input.env });
  } catch (err) {
    // by code, never by class: getModel may come from the other hook bundle, with its own JuryError
    if (hasErrorCode(err, "missing_key"))
      return done({ memories: candidates.slice(0, standardK), path: "no_api_key", error: errorMessage(err) });
    return judgeFailed("judge_error", errorMessage(err));
  }
  if (timeLeft() <= 0) return outOfTime();
  const context = cfg.include_conversation_context
    ? extractRecentContext(input.transcriptPath, cfg.context_turns, input.onNote)
    : "";
  const left = timeLeft();
  if (left <= 0) return outOfTime();

  const abandon = new AbortController();
  const signal = input.signal ? AbortSignal.any([input.signal, abandon.signal]) : abandon.signal;
  const salt = input.judge?.salt ?? "";
  const sample = (s: number) =>
    judgeCandidates({
      model,
      prompt: input.prompt,
      candidates,
      context,
      verification: modeCfg.verification,
      dual: cfg.dual_verification,
      shuffle: input.judge?.shuffle ?? cfg.shuffle,
      // each further sample sees another order (as the study's N samples do)
      salt: s ? `${salt}#${s}` : salt,
      includeBody: input.judge?.includeBody ?? cfg.include_body,
      timeoutMs: cfg.timeout_per_call * 1000,
      signal,
    });
  const n = cfg.samples ?? 1;
  const judged =
    n <= 1 ? sample(0) : Promise.all(Array.from({ length: n }, (_, s) => sample(s))).then(majorityOfSamples);
  // an abandoned call rejects once aborted: nobody awaits it any more
  judged.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = Number.isFinite(left)
    ? new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), left);
      })
    : new Promise<never>(() => {});
  try {
    const r = await Promise.race([judged, late]);
    if (r === "late") {
      abandon.abort(new JuryError("timeout", "abandoned at the deadline"));
      return outOfTime();
    }
    const shown = r.kept.slice(0, modeCfg.max_output);
    const keptSet = new Set(r.kept);
    const dropped: DroppedMemory[] = [];
    candidates.forEach((c, i) => {
      if (shown.includes(i)) return;
      const reason = keptSet.has(i)
        ? `kept by the judge, over max_output (${modeCfg.max_output})`
        : r.reasons.get(i);
      dropped.push(reason ? { memoryId: c.memoryId, reason } : { memoryId: c.memoryId });
    });
    const price = input.settings.prices ? resolvePrice(input.settings.prices, cfg.model) : undefined;
    return done({
      memories: shown.map((i) => candidates[i]),
      path: "judge",
      stats: r.stats,
      dropped,
      costUsd: price ? costOf(price, r.stats) : 0,
    });
  } catch (err) {
    if (input.signal?.aborted) throw input.signal.reason ?? err;
    return judgeFailed(hasErrorCode(err, "timeout") ? "timeout" : "judge_error", errorMessage(err));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A retrieval's decision as retrieval_log records it: the candidates, what was kept, what the judge
 * dropped with its reasons (redacted), tokens and cost.
 */
export function retrievalDecision(r: RetrievalOutcome) {
  return {
    candidateIds: r.pool.map((c) => c.memoryId),
    keptIds: r.memories.map((m) => m.memoryId),
    dropped: r.dropped?.map((d) => (d.reason ? { ...d, reason: redactSecrets(d.reason) } : d)) ?? null,
    inputTokens: r.stats?.inputTokens ?? 0,
    outputTokens: r.stats?.outputTokens ?? 0,
    costUsd: r.costUsd,
  };
}
