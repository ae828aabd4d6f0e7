import { setMaxListeners } from "node:events";
import type { Db } from "@/db/client";
import {
  addRunProviderWarnings,
  getPendingTasks,
  getRunById,
  getRunCases,
  getRunProgress,
  type SampleWrite,
  setRunStatus,
} from "@/db/queries/runs";
import type { RunOptions, RunStatus, Task } from "@/db/schema";
import type { CriteriaRegistry } from "../criteria/registry";
import { errorMessage } from "../errors";
import { type JobContext, runJob } from "../jobs/runner";
import { createCallScheduler } from "../jobs/scheduler";
import { cachingProvider } from "../pricing";
import type { Settings } from "../settings/schema";
import { type BatchProgress, isBatchable, runBatched } from "./batch-run";
import { finalizeRun } from "./finalize-run";
import { performTask, promptCachingOn, type TaskEnv, type TaskOutcome } from "./run-task";
import { createSampleWriter } from "./sample-writer";

export type ExecuteProgress = {
  completed: number;
  errors: number;
  cached: number;
  costUsd: number;
  remaining: number;
};

export type ExecuteOptions = {
  settings: Settings;
  registry: CriteriaRegistry;
  /** aborting it stops the run as "interrupted" (resumable) */
  signal?: AbortSignal;
  onProgress?: (p: ExecuteProgress) => void;
  /**
   * Each AI SDK warning about the run's calls, once per run (default: a line on stderr). They are
   * recorded on the run too (its options' providerWarnings); stdout never gets them.
   */
  onWarning?: (line: string) => void;
  /** how often the job's heartbeat runs (and sees a cancel request) */
  cancelPollMs?: number;
  /** a batched run's batches, each time one is polled */
  onBatch?: (b: BatchProgress) => void;
  /** how often a batched run polls its batches (default JURY_BATCH_POLL_MS) */
  batchPollMs?: number;
};

/**
 * Runs a run's pending tasks and records each sample as it completes. Finished tasks are never
 * redone, so calling it again on an interrupted run resumes it. The run is a job: a live owner
 * elsewhere makes this throw `busy:run` (nothing is called twice), a dead one's run is taken over.
 */
export async function executeRun(db: Db, runId: string, opts: ExecuteOptions): Promise<RunStatus> {
  const run = getRunById(db, { id: runId });
  if (!run) throw new Error(`No run ${runId}`);
  if (run.status === "done" || run.status === "done_with_failures") return run.status;
  let status: RunStatus = "interrupted";
  await runJob(
    db,
    { id: runId, kind: "run", total: run.totalTasks },
    async (ctx) => {
      status = await workRun(db, runId, opts, ctx);
      // the job finished its work either way; the run's own status says whether samples failed
      return { status: status === "done_with_failures" ? "done" : status, error: null };
    },
    { signal: opts.signal, heartbeatMs: opts.cancelPollMs ?? 250 },
  );
  return status;
}

async function workRun(db: Db, runId: string, opts: ExecuteOptions, ctx: JobContext): Promise<RunStatus> {
  const run = getRunById(db, { id: runId });
  if (!run) throw new Error(`No run ${runId}`);
  const { options } = run;
  setRunStatus(db, { id: runId, status: "running", error: null, ownerPid: process.pid });
  const pending = getPendingTasks(db, { runId });
  const signal = ctx.signal;
  // every call waiting to retry listens on this signal: more than Node's default 10 is normal here
  setMaxListeners(0, signal);
  const env: TaskEnv = {
    db,
    options,
    settings: opts.settings,
    registry: opts.registry,
    cases: new Map(getRunCases(db, { runId }).map((c) => [c.caseId, c])),
    scheduler: createCallScheduler({
      concurrency: options.concurrency,
      perProviderConcurrency: options.providerConcurrency ?? opts.settings.judging.perProviderConcurrency,
    }),
    signal,
    prompts: new Map(),
  };
  const progress: ExecuteProgress = {
    completed: 0,
    errors: 0,
    cached: 0,
    costUsd: 0,
    remaining: pending.length,
  };
  const writer = createSampleWriter(db, (err) => ctx.failStorage(err));
  const warnings = new Set<string>();
  const warn =
    opts.onWarning ?? ((line: string) => process.stderr.write(`jury: provider warning: ${line}\n`));
  const record = (task: Task, { sample: s, cache, warnings: said }: TaskOutcome) => {
    for (const w of said ?? []) {
      if (warnings.has(w)) continue;
      warnings.add(w);
      warn(w);
    }
    if (signal.aborted) return; // stopped: the task stays pending and a resume redoes it
    const sample: SampleWrite = {
      taskId: task.id,
      runId,
      caseId: task.caseId,
      criterionId: task.criterionId,
      judge: task.judge,
      sampleIndex: task.sampleIndex,
      ...s,
    };
    // counted once committed; a failed write (a full disk) is the job's failure, never this judge's
    writer.write({ sample, cache }, (written) => {
      if (!written) return;
      progress.completed++;
      progress.remaining--;
      if (s.error) progress.errors++;
      if (s.cached) progress.cached++;
      progress.costUsd += s.costUsd;
      ctx.report({ done: progress.completed, errors: progress.errors });
      opts.onProgress?.(progress);
    });
  };

  try {
    const perform = async (task: Task) => {
      const outcome = await performTask(env, task);
      if (outcome) record(task, outcome);
    };
    const batched = pending.filter((t) => isBatchable(env, t));
    const live = pending.filter((t) => !isBatchable(env, t));
    await Promise.all([
      ...primeFirst(live, promptCachingOn(env)).map((g) => g(perform)),
      batched.length
        ? runBatched(env, batched, record, {
            cancelled: () => ctx.stopReason()?.kind === "cancelled",
            onBatch: opts.onBatch,
            pollMs: opts.batchPollMs,
          })
        : undefined,
    ]);
    writer.flush();
    addRunProviderWarnings(db, { id: runId, warnings: [...warnings] });
    return settleRun(db, runId, options, ctx);
  } catch (err) {
    try {
      writer.flush(); // what was answered is kept
      setRunStatus(db, { id: runId, status: "failed", error: errorMessage(err), ownerPid: null });
    } catch {
      // the disk may be full: recovery marks it interrupted from the job's stale heartbeat
    }
    return "failed";
  }
}

/**
 * The run's status once its tasks ended: done only when every planned sample answered (failed samples
 * make it done_with_failures), else cancelled or interrupted (resumable); its results computed.
 */
function settleRun(db: Db, runId: string, options: RunOptions, ctx: JobContext): RunStatus {
  const stop = ctx.stopReason();
  if (stop?.kind === "lost") return "interrupted"; // another process works it now: leave its rows alone
  const status: RunStatus =
    stop?.kind === "cancelled"
      ? "cancelled"
      : ctx.signal.aborted
        ? "interrupted"
        : getRunProgress(db, { runId }).errors > 0
          ? "done_with_failures"
          : "done";
  const error =
    stop?.kind === "storage"
      ? `${stop.message}. Free space, then resume it: the samples not stored are redone.`
      : status === "interrupted"
        ? "Stopped before it finished; resume it."
        : null;
  finalizeRun(db, runId, options);
  setRunStatus(db, { id: runId, status, error, ownerPid: null });
  return status;
}

/**
 * The run's tasks as groups to start at once. With prompt caching on, the samples of one case ×
 * criterion × judge (of a provider that caches prompts) share their prompt: the first goes alone and
 * writes the provider's cache, the others start when it answered and read it. Every group starts at
 * once, so the run's concurrency is spent on other prompts meanwhile.
 */
export function primeFirst(
  tasks: readonly Task[],
  caching: boolean,
): ((perform: (t: Task) => Promise<void>) => Promise<void>)[] {
  const groups = new Map<string, Task[]>();
  const alone: Task[] = [];
  for (const t of tasks) {
    if (!caching || !cachingProvider(t.judge)) {
      alone.push(t);
      continue;
    }
    const key = `${t.caseId}\u0000${t.criterionId}\u0000${t.judge}`;
    const g = groups.get(key);
    if (g) g.push(t);
    else groups.set(key, [t]);
  }
  return [
    ...alone.map((t) => (perform: (t: Task) => Promise<void>) => perform(t)),
    ...[...groups.values()].map((g) => async (perform: (t: Task) => Promise<void>) => {
      const [first, ...rest] = [...g].sort((a, b) => a.sampleIndex - b.sampleIndex);
      await perform(first);
      await Promise.all(rest.map(perform));
    }),
  ];
}
