import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import os from "node:os";
import type { Db } from "@/db/client";
import { providerOf } from "@/db/queries/claim-tasks";
import { claimTasksById, removeWorker, upsertWorker } from "@/db/queries/claims";
import { getJob } from "@/db/queries/jobs";
import {
  addRunProviderWarnings,
  getPendingTasks,
  getRunById,
  getRunCases,
  getRunProgress,
  type SampleWrite,
  setRunStatus,
} from "@/db/queries/runs";
import type { RunOptions, RunStatus, Task, WorkerKind } from "@/db/schema";
import type { CriteriaRegistry } from "../criteria/registry";
import { readEnv } from "../env/registry";
import { errorMessage, isJuryError } from "../errors";
import { type JobContext, ownerIsAlive, runJob, type StopReason } from "../jobs/runner";
import { createCallScheduler } from "../jobs/scheduler";
import { batchProvider, cachingProvider } from "../pricing";
import type { Settings } from "../settings/schema";
import { type BatchProgress, isBatchable, runBatched } from "./batch-run";
import { finalizeRun } from "./finalize-run";
import { DETERMINISTIC_JUDGE } from "./plan-run";
import { performTask, promptCachingOn, type TaskEnv, type TaskOutcome } from "./run-task";
import { createSampleWriter } from "./sample-writer";
import { freeDeadLocalWorkers, pumpTasks, workerIdOf } from "./task-pump";

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
  /** what this process is, in the workers list (default "eval") */
  workerKind?: WorkerKind;
};

/**
 * Works a run's pending tasks and records each sample as it completes. Finished tasks are never
 * redone, so calling it again on an interrupted run resumes it. Tasks are claimed from the store
 * (lib/runs/task-pump.ts), so several processes, on several machines sharing a PostgreSQL store, work
 * one run together: the first owns the run's job (its status, its settling), the others join it and
 * claim what is free; nothing is called twice. A joiner takes the run over when its owner dies, and
 * returns the run's status once the owner settled it. A batched run is worked by its owner alone
 * (its batches are one request for many tasks): another process gets `busy:run`.
 */
export async function executeRun(db: Db, runId: string, opts: ExecuteOptions): Promise<RunStatus> {
  const run = await getRunById(db, { id: runId });
  if (!run) throw new Error(`No run ${runId}`);
  if (run.status === "done" || run.status === "done_with_failures") return run.status;
  let status: RunStatus = "interrupted";
  try {
    await runJob(
      db,
      { id: runId, kind: "run", total: run.totalTasks },
      async (ctx) => {
        status = await workRun(db, runId, opts, ctx, "owner");
        // the job finished its work either way; the run's own status says whether samples failed
        return { status: status === "done_with_failures" ? "done" : status, error: null };
      },
      { signal: opts.signal, heartbeatMs: opts.cancelPollMs ?? 250 },
    );
  } catch (err) {
    if (isJuryError(err) && err.code === "busy:run" && run.options.batch !== true)
      return joinRun(db, runId, opts);
    throw err;
  }
  return status;
}

/**
 * Works a run another live process owns: claims its free tasks beside it until none is left, stops
 * on a cancel of the run's job, takes the run over if its owner dies, and returns the run's status
 * once its owner settled it.
 */
async function joinRun(db: Db, runId: string, opts: ExecuteOptions): Promise<RunStatus> {
  const controller = new AbortController();
  let reason: StopReason | "orphaned" | "ended" | undefined;
  const stop = (r: StopReason | "orphaned" | "ended") => {
    if (reason) return;
    reason = r;
    controller.abort(r);
  };
  const onOuter = () => stop({ kind: "outer", reason: opts.signal?.reason });
  if (opts.signal?.aborted) onOuter();
  opts.signal?.addEventListener("abort", onOuter, { once: true });
  // the owner's job row says whether to go on: cancelled, ended, or its owner gone
  const watch = async () => {
    const job = await getJob(db, { id: runId });
    if (job?.cancelRequested) stop({ kind: "cancelled" });
    else if (job?.status !== "running") stop("ended");
    else if (!ownerIsAlive(job)) stop("orphaned");
  };
  let watching = false;
  const timer = setInterval(() => {
    if (watching) return; // the last look has not answered yet
    watching = true;
    Promise.resolve()
      .then(watch)
      .catch(() => {
        // a read that fails is not the verdict: the next beat looks again
      })
      .finally(() => {
        watching = false;
      });
  }, opts.cancelPollMs ?? 250);
  timer.unref?.();
  const ctx: JobContext = {
    id: runId,
    signal: controller.signal,
    report() {},
    failStorage(err) {
      stop({ kind: "storage", message: `Storage failed: ${errorMessage(err)}` });
    },
    stopReason: () => (typeof reason === "object" ? reason : undefined),
  };
  try {
    await workRun(db, runId, opts, ctx, "joiner");
  } finally {
    clearInterval(timer);
    opts.signal?.removeEventListener("abort", onOuter);
  }
  if (reason === "orphaned") return executeRun(db, runId, opts);
  if (typeof reason === "object" && reason.kind !== "storage") {
    return reason.kind === "cancelled" ? "cancelled" : "interrupted";
  }
  // the owner settles the run once every task is recorded: wait for it (or take over if it dies)
  const poll = readEnv("JURY_CLAIM_POLL_MS");
  for (;;) {
    const run = await getRunById(db, { id: runId });
    if (!run) throw new Error(`No run ${runId}`);
    if (run.status !== "running" && run.status !== "queued") return run.status;
    const job = await getJob(db, { id: runId });
    if (job && job.status === "running" && !ownerIsAlive(job)) return executeRun(db, runId, opts);
    if (opts.signal?.aborted) return "interrupted";
    await new Promise((r) => setTimeout(r, Math.min(poll, 100)));
  }
}

async function workRun(
  db: Db,
  runId: string,
  opts: ExecuteOptions,
  ctx: JobContext,
  role: "owner" | "joiner",
): Promise<RunStatus> {
  const run = await getRunById(db, { id: runId });
  if (!run) throw new Error(`No run ${runId}`);
  const { options } = run;
  if (role === "owner")
    await setRunStatus(db, { id: runId, status: "running", error: null, ownerPid: process.pid });
  const signal = ctx.signal;
  // every call waiting to retry listens on this signal: more than Node's default 10 is normal here
  setMaxListeners(0, signal);
  const env: TaskEnv = {
    db,
    options,
    settings: opts.settings,
    registry: opts.registry,
    cases: new Map((await getRunCases(db, { runId })).map((c) => [c.caseId, c])),
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
    remaining: (await getRunProgress(db, { runId })).pending,
  };
  const worker = {
    id: workerIdOf(randomBytes(6).toString("base64url")),
    kind: opts.workerKind ?? "eval",
  };
  await upsertWorker(db, { ...worker, host: os.hostname(), pid: process.pid, runId, now: new Date() });
  const writer = createSampleWriter(db, (err) => ctx.failStorage(err));
  const warnings = new Set<string>();
  const warn =
    opts.onWarning ?? ((line: string) => process.stderr.write(`jury: provider warning: ${line}\n`));
  // on PostgreSQL, a promise of the sample's commit (the task ends, and its claim with it, once it is stored)
  const record = (
    task: Task,
    { sample: s, cache, warnings: said }: TaskOutcome,
  ): undefined | Promise<void> => {
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
    return writer.write({ sample, cache }, (written) => {
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

  const limits = {
    concurrency: options.concurrency,
    perProviderConcurrency: options.providerConcurrency ?? opts.settings.judging.perProviderConcurrency,
  };
  try {
    const perform = async (task: Task, answered: () => void) => {
      const outcome = await performTask(env, task);
      // its slot is free (the next claim counts it no more); its sample is stored next (on SQLite at
      // the end of this turn, on PostgreSQL in the writer's next commit), and the task stays pending until then
      answered();
      if (!outcome) return;
      const stored = record(task, outcome);
      if (stored) await stored;
    };
    // a dead process of this host (the run's last owner, SIGKILLed) gives its claims back first
    if (role === "owner") await freeDeadLocalWorkers(db, runId);
    // a batched run's owner takes its batch's tasks at once; the rest are claimed as slots free up
    const batchable =
      role === "owner" ? (await getPendingTasks(db, { runId })).filter((t) => isBatchable(env, t)) : [];
    const now = Date.now();
    const mine = new Set(
      batchable.length
        ? await claimTasksById(db, {
            ids: batchable.map((t) => t.id),
            workerId: worker.id,
            now: new Date(now),
            until: new Date(now + readEnv("JURY_TASK_LEASE_MS")),
          })
        : [],
    );
    const batched = batchable.filter((t) => mine.has(t.id));
    const group = primeFirst(promptCachingOn(env));
    await Promise.all([
      pumpTasks(
        {
          db,
          runId,
          workerId: worker.id,
          limits,
          scheduler: env.scheduler,
          providers: liveProviders(options),
          signal,
          group,
          // a batched run: the live part only (judges without a batch API, deterministic criteria),
          // so a batch's task is never called live beside its batch
          judges:
            options.batch === true
              ? [...options.judges.filter((j) => batchProvider(j) === undefined), DETERMINISTIC_JUDGE]
              : undefined,
        },
        perform,
      ),
      batched.length
        ? runBatched(env, batched, record, {
            cancelled: () => ctx.stopReason()?.kind === "cancelled",
            onBatch: opts.onBatch,
            pollMs: opts.batchPollMs,
          })
        : undefined,
    ]);
    await writer.flush();
    await releaseWorker(db, worker.id);
    await addRunProviderWarnings(db, { id: runId, warnings: [...warnings] });
    return role === "owner" ? await settleRun(db, runId, options, ctx) : "running";
  } catch (err) {
    try {
      await writer.flush(); // what was answered is kept
      await releaseWorker(db, worker.id);
      if (role === "owner")
        await setRunStatus(db, { id: runId, status: "failed", error: errorMessage(err), ownerPid: null });
    } catch {
      // the disk may be full: recovery marks it interrupted from the job's stale heartbeat
    }
    return "failed";
  }
}

/** The providers of the judges a run calls live (a batched run's judges with a batch API are not). */
function liveProviders(options: RunOptions): string[] {
  const live =
    options.batch === true ? options.judges.filter((j) => batchProvider(j) === undefined) : options.judges;
  return [...new Set(live.map(providerOf))];
}

/** Gives back a worker's unfinished claims (others take them at once) and removes its row. */
async function releaseWorker(db: Db, id: string): Promise<void> {
  try {
    await removeWorker(db, { id });
  } catch {
    // its claims expire by themselves
  }
}

/**
 * The run's status once its tasks ended: done only when every planned sample answered (failed samples
 * make it done_with_failures), else cancelled or interrupted (resumable); its results computed.
 */
async function settleRun(db: Db, runId: string, options: RunOptions, ctx: JobContext): Promise<RunStatus> {
  const stop = ctx.stopReason();
  if (stop?.kind === "lost") return "interrupted"; // another process works it now: leave its rows alone
  const status: RunStatus =
    stop?.kind === "cancelled"
      ? "cancelled"
      : ctx.signal.aborted
        ? "interrupted"
        : (await getRunProgress(db, { runId })).errors > 0
          ? "done_with_failures"
          : "done";
  const error =
    stop?.kind === "storage"
      ? `${stop.message}. Free space, then resume it: the samples not stored are redone.`
      : status === "interrupted"
        ? "Stopped before it finished; resume it."
        : null;
  await finalizeRun(db, runId, options);
  await setRunStatus(db, { id: runId, status, error, ownerPid: null });
  return status;
}

/**
 * Groups a worker's claimed tasks before they start, over all its claims of a run. With prompt
 * caching on, the samples of one case × criterion × judge (of a provider that caches prompts) share
 * their prompt: the first this worker claims goes alone and writes the provider's cache, the others
 * (claimed with it or later) start when it answered and read it. Meanwhile the run's slots go to other
 * prompts. (Samples of one prompt claimed by two workers each prime their own.)
 */
export function primeFirst(
  caching: boolean,
): (tasks: readonly Task[]) => ((perform: (t: Task) => Promise<void>) => Promise<void>)[] {
  const primed = new Map<string, Promise<void>>();
  return (tasks) => {
    const groups = new Map<string, Task[]>();
    const out: ((perform: (t: Task) => Promise<void>) => Promise<void>)[] = [];
    for (const t of tasks) {
      if (!caching || !cachingProvider(t.judge)) {
        out.push((perform) => perform(t));
        continue;
      }
      const key = `${t.caseId}\u0000${t.criterionId}\u0000${t.judge}`;
      const g = groups.get(key);
      if (g) g.push(t);
      else groups.set(key, [t]);
    }
    for (const [key, g] of groups) {
      const sorted = [...g].sort((a, b) => a.sampleIndex - b.sampleIndex);
      out.push(async (perform) => {
        const prior = primed.get(key);
        const [first, ...rest] = prior ? [undefined, ...sorted] : sorted;
        if (first) {
          const p = perform(first);
          primed.set(
            key,
            p.then(
              () => {},
              () => {},
            ),
          );
          await p;
        } else await prior;
        await Promise.all(rest.map((t) => perform(t as Task)));
      });
    }
    return out;
  };
}
