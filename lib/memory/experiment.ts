import { randomBytes } from "node:crypto";
import type { Db } from "@/db/client";
import {
  finishExperiment,
  getExperimentResults,
  insertExperimentResult,
  setExperimentStatus,
} from "@/db/queries/experiments";
import { insertExperimentWithJob } from "@/db/queries/memory-tx";
import { listStudyQueries } from "@/db/queries/study";
import type { experimentResults, RetrievalConfig, RunStatus } from "@/db/schema";
import { runJob } from "../jobs/runner";
import { costOf, resolvePrice } from "../pricing";
import type { Settings } from "../settings/schema";
import { RETRIEVAL_KIND_LABELS } from "./kinds";
import { retrieveCandidatesFrom, retrieveMemories } from "./retrieve";

/** Candidates kept for BM25 runs by default, so ranked metrics (nDCG@10, recall@100) can be computed. */
export const BM25_RUN_DEPTH = 100;
/** The deepest ranking a BM25 run may keep (`--depth`), enough for recall@1000. */
export const MAX_RUN_DEPTH = 1000;

/**
 * A configuration as an experiment stores it. `depth` is how many ranked candidates a BM25 run
 * keeps (older experiments, stored without it, kept BM25_RUN_DEPTH); a judge run's ranking is its
 * pool (`poolSize`), which is all the judge sees.
 */
export type ExperimentConfig = RetrievalConfig & { depth?: number };

/** How deep a run's stored ranking goes: BM25's depth (at least its top-k), or the judge's pool. */
export function runDepth(c: ExperimentConfig): number {
  return c.kind === "bm25" ? Math.max(c.depth ?? BM25_RUN_DEPTH, c.topK) : c.poolSize;
}

/** The label an experiment gets: the real depth of a BM25 run, the real pool a judge saw. */
export function describeConfig(c: ExperimentConfig): string {
  const kind = RETRIEVAL_KIND_LABELS[c.kind].short;
  if (c.kind === "bm25") return `${kind} · ${c.mode} · top ${c.topK} · depth ${runDepth(c)}`;
  const judge = ` · ${c.model} · N=${c.n ?? 1} · ${c.shuffle ? "shuffled" : "fixed order"}${c.shuffleSalt ? ` (${c.shuffleSalt})` : ""}`;
  return `${kind} · ${c.mode} · top ${c.topK} · pool ${c.poolSize}${judge}`;
}

/**
 * Runs one configuration over every query of a collection's study, writing each query's outcome
 * as it completes. Judge configurations with N > 1 keep a memory kept by a majority of N samples.
 * The work is a job (lib/jobs/runner.ts): one live owner, heartbeat, cancel, and a storage failure
 * stops it as interrupted instead of being recorded as a query's outcome.
 */
export async function runExperiment(
  db: Db,
  input: {
    id?: string;
    collection: string;
    config: ExperimentConfig;
    settings: Settings;
    label?: string;
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => void;
    /** who starts it */
    createdBy?: string;
  },
): Promise<string> {
  const id = await createExperiment(db, input);
  await executeExperiment(db, id, input);
  return id;
}

/** Inserts the experiment and its job, without running it. */
export async function createExperiment(
  db: Db,
  input: { id?: string; collection: string; config: ExperimentConfig; label?: string; createdBy?: string },
): Promise<string> {
  const id = input.id ?? `exp_${randomBytes(5).toString("hex")}`;
  const total = (await listStudyQueries(db, input.collection)).length;
  // the experiment and its job (enqueueJob's row) together
  await insertExperimentWithJob(
    db,
    {
      id,
      collection: input.collection,
      label: input.label ?? describeConfig(input.config),
      config: input.config,
      createdBy: input.createdBy ?? null,
    },
    total,
  );
  return id;
}

/**
 * Works an experiment's job: the queries without an outcome yet (so a resumed experiment redoes
 * nothing), then its final status.
 */
export async function executeExperiment(
  db: Db,
  id: string,
  input: {
    collection: string;
    config: ExperimentConfig;
    settings: Settings;
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => void;
  },
): Promise<RunStatus> {
  const queries = await listStudyQueries(db, input.collection);
  const finished = new Set((await getExperimentResults(db, id)).map((r) => r.queryId));
  const outcome = await runJob(
    db,
    { id, kind: "experiment", total: queries.length },
    async (ctx) => {
      await setExperimentStatus(db, id, "running");
      let done = finished.size;
      for (const q of queries) {
        if (finished.has(q.queryId)) continue;
        if (ctx.signal.aborted) break;
        let row: typeof experimentResults.$inferInsert;
        try {
          row = await runQuery(db, id, q, input, ctx.signal);
        } catch (err) {
          if (ctx.signal.aborted) break;
          throw err;
        }
        try {
          await insertExperimentResult(db, row);
        } catch (err) {
          ctx.failStorage(err);
          break;
        }
        ctx.report({ done: ++done, errors: 0 });
        input.onProgress?.(done, queries.length);
      }
      const stop = ctx.stopReason();
      // a storage failure, a lost claim or the caller's abort leave it resumable
      const status: RunStatus = !stop ? "done" : stop.kind === "cancelled" ? "cancelled" : "interrupted";
      return { status, error: stop?.kind === "storage" ? stop.message : null };
    },
    { signal: input.signal },
  );
  if (outcome.lost) return outcome.status; // another process works it now
  try {
    await finishExperiment(db, id, outcome.status, outcome.error ?? undefined);
  } catch {
    // the disk may still be full: recovery at the next start marks it interrupted
  }
  return outcome.status;
}

async function runQuery(
  db: Db,
  id: string,
  q: { queryId: string; text: string },
  input: { collection: string; config: ExperimentConfig; settings: Settings },
  signal: AbortSignal,
): Promise<typeof experimentResults.$inferInsert> {
  const { collection, config, settings } = input;
  const started = performance.now();
  if (config.kind === "bm25") {
    const { candidates } = await retrieveCandidatesFrom(db, {
      collection,
      prompt: q.text,
      mode: config.mode,
      poolSize: runDepth(config),
    });
    return {
      experimentId: id,
      queryId: q.queryId,
      candidates: candidates.map((c) => ({ memoryId: c.memoryId, score: c.score })),
      retrieved: candidates.slice(0, config.topK).map((c) => c.memoryId),
      path: "bm25",
      latencyMs: performance.now() - started,
    };
  }
  const price = config.model ? resolvePrice(settings.prices, config.model) : undefined;
  const n = Math.max(1, config.n ?? 1);
  const votes = new Map<string, number>();
  let tokensIn = 0;
  let tokensOut = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let path = "";
  let error: string | undefined;
  let candidates: { memoryId: string; score: number }[] = [];
  for (let s = 0; s < n; s++) {
    const r = await retrieveMemories({
      db,
      collection,
      prompt: q.text,
      mode: config.mode,
      settings,
      signal,
      judge: {
        enabled: true,
        model: config.model ?? settings.memoryJudge.model,
        candidate_pool_size: config.poolSize,
        dual_verification: config.kind !== "single",
        include_conversation_context: false,
        modes: {
          ...settings.memoryJudge.modes,
          [config.mode]: {
            verification:
              config.kind === "dual_lenient"
                ? "lenient"
                : config.kind === "dual_strict"
                  ? "strict"
                  : settings.memoryJudge.modes[config.mode].verification,
            max_output: config.topK,
          },
        },
        // the N samples are this loop's: one judge call each
        samples: 1,
        shuffle: config.shuffle,
        salt: `${config.shuffleSalt ?? ""}${s ? `#${s}` : ""}`,
        // what the configuration names, never the settings' (a study measures its own configuration)
        includeBody: config.includeBody ?? false,
      },
    });
    path = r.path;
    error ??= r.error;
    tokensIn += r.stats?.inputTokens ?? 0;
    tokensOut += r.stats?.outputTokens ?? 0;
    cacheRead += r.stats?.cacheReadTokens ?? 0;
    cacheWrite += r.stats?.cacheWriteTokens ?? 0;
    for (const m of r.memories) votes.set(m.memoryId, (votes.get(m.memoryId) ?? 0) + 1);
    if (s === 0) candidates = r.pool;
  }
  const order = new Map(candidates.map((c, i) => [c.memoryId, i]));
  const retrieved = [...votes]
    .filter(([, v]) => v * 2 > n)
    .map(([m]) => m)
    .sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0))
    .slice(0, config.topK);
  return {
    experimentId: id,
    queryId: q.queryId,
    candidates,
    retrieved,
    path,
    latencyMs: performance.now() - started,
    inputTokens: tokensIn,
    outputTokens: tokensOut,
    // an unpriced model stores 0 here: the study shows it as "unpriced" (its tokens are kept), never $0
    costUsd: price
      ? costOf(price, {
          inputTokens: tokensIn,
          outputTokens: tokensOut,
          cacheReadTokens: cacheRead,
          cacheWriteTokens: cacheWrite,
        })
      : 0,
    error: error ?? null,
  };
}
