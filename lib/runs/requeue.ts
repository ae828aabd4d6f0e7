import type { Db } from "@/db/client";
import { getRunSamples, type RequeueOutcome, requeueSamples } from "@/db/queries/runs";
import type { Sample, SupersededReason } from "@/db/schema";
import { DETERMINISTIC_JUDGE } from "./plan-run";

/**
 * Retry and re-sample: new samples for finished tasks, the old ones kept and marked superseded.
 * Both go through the run's job like any other work: requeue, then start the run.
 */

/** A run's current failed samples: what "retry failed samples" replaces. */
export async function samplesToRetry(db: Db, runId: string): Promise<Sample[]> {
  return (await getRunSamples(db, { runId })).filter((s) => s.score === null || s.error !== null);
}

/** One case × criterion's current samples: what "re-sample this item" replaces. */
export async function samplesToResample(
  db: Db,
  runId: string,
  caseId: string,
  criterionId: string,
): Promise<Sample[]> {
  return (await getRunSamples(db, { runId })).filter(
    (s) => s.caseId === caseId && s.criterionId === criterionId,
  );
}

/** The judges a requeue will call (the deterministic checks call none). */
export function judgesToCall(samples: Pick<Sample, "judge">[]): string[] {
  return [...new Set(samples.map((s) => s.judge))].filter((j) => j !== DETERMINISTIC_JUDGE);
}

/**
 * Puts samples' tasks back to work: a retry keeps each failed sample marked "retried" and queues
 * its task again (its call may come from the response cache, which holds only good answers); a
 * re-sample keeps the item's samples marked "resampled" and asks the judges anew (cache skipped).
 * The caller then starts the run (lib/runs/background.ts, or executeRun).
 */
export async function requeue(
  db: Db,
  runId: string,
  samples: Pick<Sample, "id">[],
  reason: SupersededReason,
): Promise<RequeueOutcome> {
  return await requeueSamples(db, {
    runId,
    sampleIds: samples.map((s) => s.id),
    reason,
    fresh: reason === "resampled",
  });
}

/** A requeue refusal, in words. */
export function requeueRefusal(out: Extract<RequeueOutcome, { ok: false }>, what: string): string {
  if (out.reason === "no_run") return "No such run";
  if (out.reason === "live")
    return `The run is ${out.status}: wait for it to finish (or cancel it) before you ${what}.`;
  return what === "retry failed samples"
    ? "No failed samples to retry."
    : "No finished samples to re-sample.";
}
