import { getOpenRunBatches, insertRunBatch, updateRunBatch } from "@/db/queries/batches";
import { getCachedResponse } from "@/db/queries/runs";
import type { RunBatch, Task } from "@/db/schema";
import type { LlmCriterion } from "../criteria/definition";
import { readEnv } from "../env/registry";
import { errorMessage } from "../errors";
import { promptCacheKey } from "../judging/prompt-cache";
import { batchProvider } from "../pricing";
import {
  type BatchCall,
  type BatchProvider,
  batchResults,
  cancelBatch,
  captureRequest,
  pollBatch,
  readResult,
  submitBatch,
} from "./batch-api";
import {
  failedOutcome,
  judgeRequestOf,
  outcomeOfCall,
  performTask,
  promptCachingOn,
  type TaskEnv,
  type TaskOutcome,
} from "./run-task";

/** A batch's state as progress shows it. */
export type BatchProgress = {
  id: string;
  judge: string;
  status: string;
  total: number;
  succeeded: number;
  failed: number;
};

type Record = (task: Task, outcome: TaskOutcome) => void;

/** The tasks a batched run sends through a batch API: LLM calls of OpenAI and Anthropic judges. */
export function isBatchable(env: TaskEnv, task: Task): boolean {
  return (
    env.options.batch === true &&
    batchProvider(task.judge) !== undefined &&
    env.registry.criteria.get(task.criterionId)?.type === "llm"
  );
}

/**
 * A batched run's batch calls, owned by the run's job: the tasks no open batch holds are submitted
 * (one batch per judge, its id stored at once), then every open batch of the run is polled every
 * JURY_BATCH_POLL_MS until it ends, and its results land as ordinary samples priced at the batch
 * rate; a request that expired, was cancelled or failed becomes a failed sample ("Retry failed"
 * redoes it). Stopped (interrupted, a crash), the batches stay open and a resume polls them again
 * without submitting; cancelled, the batches are cancelled at the provider.
 */
export async function runBatched(
  env: TaskEnv,
  tasks: readonly Task[],
  record: Record,
  o: { cancelled: () => boolean; onBatch?: (b: BatchProgress) => void; pollMs?: number },
): Promise<void> {
  const runId = tasks[0]?.runId ?? "";
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const open = runId ? await getOpenRunBatches(env.db, { runId }) : [];
  const held = new Set(open.flatMap((b) => b.taskIds));
  const toSubmit: Task[] = [];
  for (const t of tasks) {
    if (held.has(t.id)) continue;
    // an answer in the response cache is taken from there, as a live run does
    if (!env.options.noCache && !t.fresh && (await cachedAnswer(env, t))) {
      const outcome = await performTask(env, t);
      if (outcome) record(t, outcome);
      continue;
    }
    toSubmit.push(t);
  }
  const byJudge = new Map<string, Task[]>();
  for (const t of toSubmit) byJudge.set(t.judge, [...(byJudge.get(t.judge) ?? []), t]);
  for (const [judge, list] of byJudge) {
    if (env.signal.aborted) return;
    open.push(await submit(env, judge, list));
  }
  await pollUntilCollected(env, open, byId, record, o);
}

async function cachedAnswer(env: TaskEnv, t: Task): Promise<boolean> {
  const def = env.registry.criteria.get(t.criterionId) as LlmCriterion | undefined;
  const c = env.cases.get(t.caseId);
  if (!def || !c) return false;
  return (await getCachedResponse(env.db, judgeRequestOf(env, t, def, c).cacheKey)) !== undefined;
}

/** What one task's call asks: the judge prompt, schema, temperature and prompt-cache hint. */
function callOf(env: TaskEnv, t: Task) {
  const def = env.registry.criteria.get(t.criterionId) as LlmCriterion;
  const c = env.cases.get(t.caseId);
  const cc = c?.criteria.find((x) => x.id === t.criterionId);
  if (!c || !cc) return undefined;
  const { req, cacheKey } = judgeRequestOf(env, t, def, c);
  const provider = batchProvider(t.judge) as BatchProvider;
  const call: BatchCall = {
    system: req.system,
    prompt: req.prompt,
    schema: req.schema,
    temperature: env.options.temperature,
    ...(promptCachingOn(env) ? { promptCache: { provider, key: promptCacheKey(req) } } : {}),
  };
  return { call, cacheKey, scale: cc.scale };
}

async function submit(env: TaskEnv, judge: string, list: Task[]): Promise<RunBatch> {
  const provider = batchProvider(judge) as BatchProvider;
  // the first sample of each prompt first: the provider runs a batch's requests roughly in order,
  // so it writes the prompt cache that the prompt's other samples read
  const ordered = [...list].sort((a, b) => a.sampleIndex - b.sampleIndex || a.id - b.id);
  const requests = [];
  for (const t of ordered) {
    const c = callOf(env, t);
    if (c) requests.push({ customId: `t${t.id}`, captured: await captureRequest(judge, c.call) });
  }
  const { id, inputFileId } = await submitBatch(provider, requests);
  const taskIds = ordered.map((t) => t.id);
  await insertRunBatch(env.db, { id, runId: ordered[0].runId, judge, taskIds, inputFileId });
  return {
    id,
    runId: ordered[0].runId,
    judge,
    status: "submitted",
    taskIds,
    succeeded: 0,
    failed: 0,
    inputFileId: inputFileId ?? null,
    error: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  };
}

async function pollUntilCollected(
  env: TaskEnv,
  open: RunBatch[],
  byId: Map<number, Task>,
  record: Record,
  o: { cancelled: () => boolean; onBatch?: (b: BatchProgress) => void; pollMs?: number },
): Promise<void> {
  const pollMs = o.pollMs ?? readEnv("JURY_BATCH_POLL_MS");
  let pending = [...open];
  while (pending.length) {
    if (env.signal.aborted) {
      if (o.cancelled()) await cancelAll(env, pending);
      return; // interrupted: the batches stay open and a resume polls them
    }
    const still: RunBatch[] = [];
    for (const b of pending) {
      const provider = batchProvider(b.judge) as BatchProvider;
      const state = await pollBatch(provider, b.id);
      await updateRunBatch(env.db, b.id, {
        status: state.status === "ended" ? "ended" : state.status,
        succeeded: state.succeeded,
        failed: state.failed,
        error: state.error ?? null,
      });
      o.onBatch?.({ id: b.id, judge: b.judge, ...state, total: state.total || b.taskIds.length });
      if (state.status === "in_progress" || state.status === "cancelling") {
        still.push(b);
        continue;
      }
      await collect(env, b, provider, state.status, byId, record);
    }
    pending = still;
    if (pending.length) await sleep(pollMs, env.signal);
  }
}

async function collect(
  env: TaskEnv,
  b: RunBatch,
  provider: BatchProvider,
  status: string,
  byId: Map<number, Task>,
  record: Record,
): Promise<void> {
  const results = status === "failed" ? new Map() : await batchResults(provider, b.id);
  for (const taskId of b.taskIds) {
    const t = byId.get(taskId);
    if (!t) continue; // done meanwhile (another owner): never written twice
    const c = callOf(env, t);
    if (!c) continue;
    const r = results.get(`t${taskId}`);
    if (!r) {
      record(t, failedOutcome(c.cacheKey, `batch ${status} before this request ran`));
      continue;
    }
    if (!r.ok) {
      record(t, failedOutcome(c.cacheKey, r.error));
      continue;
    }
    try {
      const call = await readResult(t.judge, c.call, r.body);
      record(t, outcomeOfCall(env, t, c.scale, c.cacheKey, call, { batch: true }));
    } catch (err) {
      record(t, failedOutcome(c.cacheKey, errorMessage(err)));
    }
  }
  await updateRunBatch(env.db, b.id, { status: "collected" });
}

async function cancelAll(env: TaskEnv, batches: RunBatch[]): Promise<void> {
  for (const b of batches) {
    try {
      await cancelBatch(batchProvider(b.judge) as BatchProvider, b.id);
      await updateRunBatch(env.db, b.id, { status: "cancelled" });
    } catch (err) {
      await updateRunBatch(env.db, b.id, { error: `cancel failed: ${errorMessage(err)}` });
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
