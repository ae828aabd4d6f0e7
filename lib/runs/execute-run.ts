import { setMaxListeners } from "node:events";
import type { Db } from "@/db/client";
import {
  getCachedResponse,
  getPendingTasks,
  getRunById,
  getRunCases,
  getRunProgress,
  type SampleRecord,
  type SampleWrite,
  setRunStatus,
} from "@/db/queries/runs";
import type { RunStatus, Task } from "@/db/schema";
import type { CaseInput, LlmCriterion } from "../criteria/definition";
import type { CriteriaRegistry } from "../criteria/registry";
import { deterministicTimeoutMs, type LogicPool, sharedLogicPool } from "../criteria/worker-pool";
import { errorMessage, isJuryError, JuryError } from "../errors";
import { type JobContext, runJob } from "../jobs/runner";
import { createCallScheduler } from "../jobs/scheduler";
import { callModel, partialReply } from "../judging/call-model";
import { parseJudgment } from "../judging/parse-json";
import { buildJudgePrompt, type JudgeRequest } from "../judging/prompt";
import { getOrInsert } from "../map-utils";
import { costOf } from "../pricing";
import { getModel } from "../providers/get-model";
import type { Settings } from "../settings/schema";
import { judgeCacheKey } from "./cache-key";
import { finalizeRun } from "./finalize-run";
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
  /** how often the job's heartbeat runs (and sees a cancel request) */
  cancelPollMs?: number;
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

  const cases = new Map(getRunCases(db, { runId }).map((c) => [c.caseId, c]));
  const pending = getPendingTasks(db, { runId });
  const signal = ctx.signal;
  // every call waiting to retry listens on this signal: more than Node's default 10 is normal here
  setMaxListeners(0, signal);

  const j = opts.settings.judging;
  const scheduler = createCallScheduler({
    concurrency: options.concurrency,
    perProviderConcurrency: options.providerConcurrency ?? j.perProviderConcurrency,
  });
  const prompts = new Map<string, JudgeRequest>();
  // deterministic criteria run in a worker thread, the process's shared one (started on the first
  // such task of any run, kept for the runs that follow, ended after a minute idle)
  let pool: LogicPool | undefined;
  const logicPool = () => {
    if (!opts.registry.logicWorker)
      throw new JuryError(
        "no_logic_worker",
        "these criteria were loaded without a worker bundle for their logic",
      );
    pool ??= sharedLogicPool(opts.registry.logicWorker, deterministicTimeoutMs());
    return pool;
  };
  const progress: ExecuteProgress = {
    completed: 0,
    errors: 0,
    cached: 0,
    costUsd: 0,
    remaining: pending.length,
  };

  const writer = createSampleWriter(db, (err) => ctx.failStorage(err));
  const finish = (
    task: Task,
    s: Omit<SampleWrite, "taskId" | "runId" | "caseId" | "criterionId" | "judge" | "sampleIndex">,
    cache?: SampleRecord["cache"],
  ) => {
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
  const empty = {
    score: null,
    reasoning: null,
    rawText: null,
    latencyMs: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    attempts: 0,
    cached: false,
    error: null,
  };

  const runTask = async (task: Task): Promise<void> => {
    const c = cases.get(task.caseId);
    const cc = c?.criteria.find((x) => x.id === task.criterionId);
    const def = opts.registry.criteria.get(task.criterionId);
    if (!c || !cc || !def) {
      finish(task, { ...empty, error: `criterion ${task.criterionId} is no longer available` });
      return;
    }
    const input = c.input as CaseInput & { hint?: string; focusAreas?: string[] };
    if (def.type === "deterministic") {
      try {
        // never on this thread: a regex or loop that does not return would hang it (and the server)
        const r = await logicPool().run(
          { criterionId: def.id, fn: def.function, output: c.output, input, params: cc.params },
          signal,
        );
        const outOfScale = !Number.isFinite(r.score) || r.score < cc.scale[0] || r.score > cc.scale[1];
        finish(task, {
          ...empty,
          score: outOfScale ? null : r.score,
          reasoning: r.details,
          attempts: 1,
          error: outOfScale ? `score ${r.score} is outside the scale ${cc.scale.join("–")}` : null,
        });
      } catch (err) {
        if (signal.aborted) return; // left pending: a resume picks it up
        finish(task, {
          ...empty,
          attempts: 1,
          error:
            isJuryError(err) && err.code === "deterministic_timeout"
              ? errorMessage(err)
              : `deterministic criterion failed: ${errorMessage(err)}`,
        });
      }
      return;
    }
    const pk = `${task.caseId}\u0000${task.criterionId}`;
    const req = getOrInsert(prompts, pk, () =>
      buildJudgePrompt(def as LlmCriterion, input, c.output, {
        hint: input.hint,
        focusAreas: input.focusAreas,
      }),
    );
    const cacheKey = judgeCacheKey(task.judge, req, options.temperature, task.sampleIndex);
    const scale = cc.scale;
    // a re-sampled task (fresh) asks anew: its stored answer would only repeat the old sample
    if (!options.noCache && !task.fresh) {
      const hit = getCachedResponse(db, cacheKey);
      if (hit) {
        const p = parseJudgment(hit.text, scale);
        finish(task, {
          ...empty,
          ...(p.ok ? { score: p.score, reasoning: p.reasoning } : { error: p.error }),
          rawText: hit.text,
          inputTokens: hit.inputTokens,
          outputTokens: hit.outputTokens,
          cached: true,
          requestKey: cacheKey,
        });
        return;
      }
    }
    try {
      const model = getModel(task.judge, { settings: opts.settings });
      const r = await scheduler.schedule(task.judge, () => {
        signal.throwIfAborted(); // a slot freed after a stop starts no new call
        return callModel({
          model,
          system: req.system,
          prompt: req.prompt,
          schema: req.schema,
          temperature: options.temperature,
          timeoutMs: j.timeoutMs,
          maxRetries: j.maxRetries,
          signal,
        });
      });
      const price = opts.settings.prices[task.judge];
      const costUsd = price ? costOf(price, r.inputTokens, r.outputTokens) : 0;
      const p = parseJudgment(r.text, scale);
      finish(
        task,
        {
          ...empty,
          ...(p.ok ? { score: p.score, reasoning: p.reasoning } : { error: p.error }),
          rawText: r.text,
          latencyMs: r.latencyMs,
          inputTokens: r.inputTokens,
          outputTokens: r.outputTokens,
          costUsd,
          attempts: r.attempts,
          requestKey: cacheKey,
        },
        p.ok ? { key: cacheKey, ...r } : undefined,
      );
    } catch (err) {
      if (signal.aborted) return; // left pending: a resume picks it up
      // a reply over the size cap is stored once, cut to the cap, as this sample's error
      finish(task, { ...empty, ...partialReply(err), error: errorMessage(err), requestKey: cacheKey });
    }
  };

  try {
    await Promise.all(pending.map(runTask));
    writer.flush();
    const stop = ctx.stopReason();
    if (stop?.kind === "lost") return "interrupted"; // another process works it now: leave its rows alone
    // done only when every planned sample answered; failed samples make it done_with_failures
    const status: RunStatus =
      stop?.kind === "cancelled"
        ? "cancelled"
        : signal.aborted
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
