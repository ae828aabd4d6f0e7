import type { Db } from "@/db/client";
import { finishExperiment, getExperiment } from "@/db/queries/experiments";
import { getRunById, markInterruptedRuns, setRunStatus } from "@/db/queries/runs";
import type { Job, JobStatus, RunStatus } from "@/db/schema";
import { isPidAlive, recoverStaleJobs } from "./runner";

/**
 * What a dead owner's job leaves behind: its run or experiment, shown as interrupted (resumable).
 * A review is stored only when it finishes, so a dead review has no row yet: its job row, already
 * marked interrupted with why, is what the Reviews page lists (it is not resumed: nothing runs twice).
 */
async function markWorkInterrupted(db: Db, job: Job): Promise<void> {
  const error = job.error ?? "The process working it stopped before it finished; resume it.";
  switch (job.kind) {
    case "run":
      await setRunStatus(db, { id: job.id, status: "interrupted", error, ownerPid: null });
      return;
    case "experiment":
      await finishExperiment(db, job.id, "interrupted", error);
      return;
    case "review":
    case "agreement": // an import or report stores everything in one transaction at its end
      return;
  }
}

/** The job status a finished run or experiment stands for; null while its work is unfinished. */
function jobStatusOf(status: RunStatus | undefined): JobStatus | null {
  switch (status) {
    case "done":
    case "done_with_failures": // the job did its work; the samples say which failed
      return "done";
    case "failed":
    case "cancelled":
      return status;
    default:
      return null;
  }
}

/** What the job's work already reached: a kill after the work's last write must not undo it. */
async function finishedAs(db: Db, job: Job): Promise<JobStatus | null> {
  switch (job.kind) {
    case "run":
      return jobStatusOf((await getRunById(db, { id: job.id }))?.status);
    case "experiment":
      return jobStatusOf((await getExperiment(db, job.id))?.status);
    case "review":
    case "agreement":
      return null;
  }
}

/**
 * Recovers jobs whose owner died. Called at server start and then on a timer in the server
 * process (instrumentation.ts), never from a page render.
 */
export async function recoverJobs(db: Db): Promise<number> {
  const recovered = await recoverStaleJobs(db, (job) => markWorkInterrupted(db, job), {
    finishedAs: (job) => finishedAs(db, job),
  });
  // runs started before jobs existed have only their owner pid
  const legacy = await markInterruptedRuns(db, isPidAlive);
  return recovered.length + legacy;
}

/** Runs recoverJobs now and every `everyMs` in this process (unref'd: it never keeps a process alive). */
export function startRecoveryLoop(db: Db, everyMs = 1_000): () => void {
  // one pass at a time: on PostgreSQL a pass may outlast the interval
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      await recoverJobs(db);
    } catch (err) {
      console.error("jury: job recovery failed:", err instanceof Error ? err.message : err);
    } finally {
      busy = false;
    }
  };
  tick();
  const t = setInterval(tick, everyMs);
  t.unref?.();
  return () => clearInterval(t);
}
