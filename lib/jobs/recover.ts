import type { Db } from "@/db/client";
import { finishExperiment } from "@/db/queries/experiments";
import { markInterruptedRuns, setRunStatus } from "@/db/queries/runs";
import type { Job } from "@/db/schema";
import { isPidAlive, recoverStaleJobs } from "./runner";

/**
 * What a dead owner's job leaves behind: its run or experiment, shown as interrupted (resumable).
 * A review is stored only when it finishes, so a dead review has no row yet: its job row, already
 * marked interrupted with why, is what the Reviews page lists (it is not resumed: nothing runs twice).
 */
function markWorkInterrupted(db: Db, job: Job): void {
  const error = job.error ?? "The process working it stopped before it finished; resume it.";
  switch (job.kind) {
    case "run":
      setRunStatus(db, { id: job.id, status: "interrupted", error, ownerPid: null });
      return;
    case "experiment":
      finishExperiment(db, job.id, "interrupted", error);
      return;
    case "review":
      return;
  }
}

/**
 * Recovers jobs whose owner died. Called at server start and then on a timer in the server
 * process (instrumentation.ts), never from a page render.
 */
export function recoverJobs(db: Db): number {
  const recovered = recoverStaleJobs(db, (job) => markWorkInterrupted(db, job));
  // runs started before jobs existed have only their owner pid
  const legacy = markInterruptedRuns(db, isPidAlive);
  return recovered.length + legacy;
}

/** Runs recoverJobs now and every `everyMs` in this process (unref'd: it never keeps a process alive). */
export function startRecoveryLoop(db: Db, everyMs = 1_000): () => void {
  const tick = () => {
    try {
      recoverJobs(db);
    } catch (err) {
      console.error("jury: job recovery failed:", err instanceof Error ? err.message : err);
    }
  };
  tick();
  const t = setInterval(tick, everyMs);
  t.unref?.();
  return () => clearInterval(t);
}
