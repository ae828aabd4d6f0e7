import type { MemoryRow } from "@/db/queries/memories";
import type { SqlDb as Db } from "@/db/sqlite";
import { errorMessage, JuryError } from "../errors";
import type { MemoryJudgeSettings, Settings } from "../settings/schema";
import { type RetrievalMode, retrieveCandidates } from "./candidates";
import type { JudgeCallStats } from "./judge";
import { extractRecentContext } from "./transcript";

/** Seed 000's D4 fallback ladder, one path per row, recorded for every retrieval. */
export type LadderPath =
  | "judge" // 1. judge enabled and answered: judge-filtered
  | "judge_error" // 2. judge enabled, timeout or error: BM25 top fallback_top_k (auto) / unfiltered (search)
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
  stats?: JudgeCallStats;
  error?: string;
  latencyMs: number;
};

export type RetrieveInput = {
  db: Db;
  collection: string;
  prompt: string;
  mode: RetrievalMode;
  /** the memory-judge block; endpoints only matter when the judge uses a custom endpoint */
  settings: Pick<Settings, "memoryJudge"> & Partial<Pick<Settings, "endpoints">>;
  transcriptPath?: string;
  /** overrides for experiments */
  judge?: Partial<MemoryJudgeSettings> & { shuffle?: boolean; salt?: string; includeBody?: boolean };
  env?: Record<string, string | undefined>;
  /** aborts the judge's calls (a cancelled experiment); the hook has its own deadline */
  signal?: AbortSignal;
};

export async function retrieveMemories(input: RetrieveInput): Promise<RetrievalOutcome> {
  const started = performance.now();
  const cfg = { ...input.settings.memoryJudge, ...input.judge };
  const modeCfg = cfg.modes[input.mode];
  const standardK = modeCfg.max_output;

  const { candidates, engine } = retrieveCandidates(input.db, {
    collection: input.collection,
    prompt: input.prompt,
    mode: input.mode,
    poolSize: modeCfg.candidate_pool_size ?? cfg.candidate_pool_size,
  });
  const done = (o: Omit<RetrievalOutcome, "latencyMs" | "pool">): RetrievalOutcome => ({
    ...o,
    pool: candidates.map((c) => ({ memoryId: c.memoryId, score: c.score })),
    latencyMs: performance.now() - started,
  });
  if (engine === "keyword")
    return done({
      memories: candidates.slice(0, standardK),
      path: "keyword_fallback",
      candidates: candidates.length,
    });
  if (candidates.length === 0) return done({ memories: [], path: "no_candidates", candidates: 0 });
  if (!cfg.enabled)
    return done({
      memories: candidates.slice(0, standardK),
      path: "judge_disabled",
      candidates: candidates.length,
    });

  // The AI SDK and the judge load only when the judge runs: the hook stays fast with it off.
  const { getModel, judgeCandidates } = await import("./judge-runtime");
  let model: ReturnType<typeof getModel>;
  try {
    model = getModel(cfg.model, { settings: input.settings, env: input.env });
  } catch (err) {
    if (err instanceof JuryError && err.code.startsWith("missing_key")) {
      return done({
        memories: candidates.slice(0, standardK),
        path: "no_api_key",
        candidates: candidates.length,
        error: err.message,
      });
    }
    return done({
      ...judgeFailed(candidates, input.mode, cfg.fallback_top_k, standardK),
      error: errorMessage(err),
    });
  }
  try {
    const context = cfg.include_conversation_context
      ? extractRecentContext(input.transcriptPath, cfg.context_turns)
      : "";
    const { kept, stats } = await judgeCandidates({
      model,
      prompt: input.prompt,
      candidates,
      context,
      verification: modeCfg.verification,
      dual: cfg.dual_verification,
      shuffle: input.judge?.shuffle,
      salt: input.judge?.salt,
      includeBody: input.judge?.includeBody,
      timeoutMs: cfg.timeout_per_call * 1000,
      signal: input.signal,
    });
    return done({
      memories: kept.slice(0, modeCfg.max_output).map((i) => candidates[i]),
      path: "judge",
      candidates: candidates.length,
      stats,
    });
  } catch (err) {
    if (input.signal?.aborted) throw input.signal.reason ?? err;
    return done({
      ...judgeFailed(candidates, input.mode, cfg.fallback_top_k, standardK),
      error: errorMessage(err),
    });
  }
}

/** D4 row 2: auto mode keeps only the top fallback_top_k; search mode shows unfiltered results. */
function judgeFailed(candidates: MemoryRow[], mode: RetrievalMode, fallbackK: number, standardK: number) {
  return {
    memories: candidates.slice(0, mode === "auto" ? fallbackK : standardK),
    path: "judge_error" as const,
    candidates: candidates.length,
  };
}
