import { randomBytes } from "node:crypto";
import os from "node:os";
import type { Db } from "@/db/client";
import {
  casClaimJob,
  casInterruptJob,
  ensureJob,
  finishJobRow,
  getJob,
  heartbeatJob,
  type JobOwner,
  listActiveJobs,
  requestJobCancel,
} from "@/db/queries/jobs";
import type { Job, JobKind, JobStatus } from "@/db/schema";
import { JuryError } from "../errors";

/**
 * The one way Jury runs long work (panel runs, memory experiments, reviews): a job row with an
 * owner (pid, host, a per-claim token and a heartbeat), claimed by compare-and-set so only one
 * live process works it, cancelled through the row, and recovered when its owner died.
 *
 * The interface is narrow on purpose (enqueue, claim, heartbeat, report, finish, cancel): it is
 * the seam where a Postgres-backed queue (pg-boss: `send`, `fetch`/`work`, `complete`, `fail`,
 * `cancel`, with its own expiry standing in for the heartbeat) would take over.
 */

/** A heartbeat older than this means the owner is gone, whatever its pid says (it may be reused). */
export const STALE_AFTER_MS = 30_000;
export const HEARTBEAT_MS = 1_000;

/** Why a job's signal was aborted. */
export type StopReason =
  | { kind: "cancelled" }
  | { kind: "lost"; message: string }
  | { kind: "storage"; message: string }
  | { kind: "outer"; reason: unknown };

export type JobProgress = { done: number; total: number; errors: number };

export type JobContext = {
  id: string;
  /** aborted on cancel, on a storage failure, when ownership is lost, or when the caller's signal aborts */
  signal: AbortSignal;
  /** progress, written with the next heartbeat */
  report(p: Partial<JobProgress>): void;
  /** stops the job because a write failed: in-flight calls abort, the reason is recorded on the job */
  failStorage(err: unknown): void;
  stopReason(): StopReason | undefined;
};

const thisHost = os.hostname();

export function isPidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the job's owner is still working it: fresh heartbeat, and on this host a live pid. */
export function ownerIsAlive(job: Job, now = Date.now(), staleMs = STALE_AFTER_MS): boolean {
  if (job.status !== "running" || job.ownerToken === null) return false;
  const beat = job.heartbeatAt?.getTime() ?? 0;
  if (now - beat > staleMs) return false;
  if (job.ownerHost === thisHost && job.ownerPid !== null) return isPidAlive(job.ownerPid);
  return true;
}

export function describeOwner(job: Job, now = Date.now()): string {
  const ago = job.heartbeatAt ? Math.max(0, Math.round((now - job.heartbeatAt.getTime()) / 1000)) : "?";
  return `process ${job.ownerPid} on ${job.ownerHost} (heartbeat ${ago} s ago)`;
}

/** Enqueues a job (a no-op when it exists). */
export async function enqueueJob(db: Db, job: { id: string; kind: JobKind; total?: number }): Promise<void> {
  await ensureJob(db, job);
}

/**
 * Claims a job for this process. Throws `busy:<kind>` (a usage-level refusal: exit 2) when a live
 * owner is working it; takes it over when its owner died.
 */
export async function claimJob(
  db: Db,
  job: { id: string; kind: JobKind; total?: number },
  opts: { staleMs?: number } = {},
): Promise<JobOwner> {
  await ensureJob(db, job);
  const owner: JobOwner = { pid: process.pid, host: thisHost, token: randomBytes(9).toString("base64url") };
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await getJob(db, { id: job.id });
    if (!row) break;
    const now = new Date();
    if (ownerIsAlive(row, now.getTime(), opts.staleMs)) {
      throw new JuryError(
        `busy:${job.kind}`,
        `${capitalise(job.kind)} ${job.id} is being worked by ${describeOwner(row, now.getTime())}; wait for it or cancel it.`,
        { ownerPid: row.ownerPid, ownerHost: row.ownerHost },
      );
    }
    if (await casClaimJob(db, { id: job.id, owner, expectedToken: row.ownerToken, now })) return owner;
  }
  throw new JuryError(
    `busy:${job.kind}`,
    `${capitalise(job.kind)} ${job.id} was claimed by another process.`,
  );
}

function capitalise(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

/** Asks the job's owner to stop (it aborts its in-flight calls at its next heartbeat). */
export async function cancelJob(db: Db, id: string): Promise<boolean> {
  return await requestJobCancel(db, { id });
}

export type RunJobOptions = {
  signal?: AbortSignal;
  heartbeatMs?: number;
  staleMs?: number;
};

/**
 * Claims the job, keeps its heartbeat, turns a cancel request, a lost claim, a storage failure or
 * the caller's signal into an abort of `ctx.signal`, and finishes the job with the status `work`
 * returns (or `failed` with its error).
 */
export async function runJob(
  db: Db,
  job: { id: string; kind: JobKind; total?: number },
  work: (ctx: JobContext) => Promise<{ status: JobStatus; error?: string | null }>,
  opts: RunJobOptions = {},
): Promise<{ status: JobStatus; error: string | null; lost: boolean }> {
  const owner = await claimJob(db, job, opts);
  const controller = new AbortController();
  let reason: StopReason | undefined;
  const stop = (r: StopReason) => {
    if (reason) return;
    reason = r;
    controller.abort(r);
  };
  const onOuter = () => stop({ kind: "outer", reason: opts.signal?.reason });
  if (opts.signal?.aborted) onOuter();
  opts.signal?.addEventListener("abort", onOuter, { once: true });
  const progress: JobProgress = { done: 0, total: job.total ?? 0, errors: 0 };
  let dirty = true;
  // on PostgreSQL a beat is a round trip: one at a time (a beat due while one runs is skipped), and
  // none once the work ended (the job's row is finished then)
  let beating: Promise<void> | undefined;
  let ended = false;
  const beatOnce = async () => {
    const wasDirty = dirty;
    dirty = false;
    try {
      const r = await heartbeatJob(db, {
        id: job.id,
        token: owner.token,
        now: new Date(),
        progress: wasDirty ? progress : undefined,
      });
      if (ended) return;
      if (!r) stop({ kind: "lost", message: "Another process took this job over." });
      else if (r.cancelRequested) stop({ kind: "cancelled" });
    } catch {
      if (wasDirty) dirty = true;
      // a heartbeat that cannot be written is not fatal by itself: the job's own writes decide
    }
  };
  const beat = () => {
    if (beating || ended) return;
    beating = beatOnce().finally(() => {
      beating = undefined;
    });
  };
  const timer = setInterval(beat, opts.heartbeatMs ?? HEARTBEAT_MS);
  timer.unref?.();
  const ctx: JobContext = {
    id: job.id,
    signal: controller.signal,
    report(p) {
      Object.assign(progress, p);
      dirty = true;
    },
    failStorage(err) {
      stop({
        kind: "storage",
        message: `Storage failed: ${err instanceof Error ? err.message : String(err)}`,
      });
    },
    stopReason: () => reason,
  };
  let outcome: { status: JobStatus; error: string | null };
  try {
    const r = await work(ctx);
    outcome = { status: r.status, error: r.error ?? null };
  } catch (err) {
    outcome = { status: "failed", error: err instanceof Error ? err.message : String(err) };
  } finally {
    ended = true;
    clearInterval(timer);
    opts.signal?.removeEventListener("abort", onOuter);
  }
  await beating; // a beat in flight ends before the job's row is finished
  if (reason?.kind === "storage" || reason?.kind === "lost") {
    outcome = { status: reason.kind === "lost" ? outcome.status : "interrupted", error: reason.message };
  }
  const lost = reason?.kind === "lost";
  if (!lost) {
    try {
      await finishJobRow(db, { id: job.id, token: owner.token, ...outcome, now: new Date(), progress });
    } catch {
      // the disk may still be full: the stale heartbeat marks the job interrupted at the next start
    }
  }
  return { ...outcome, lost };
}

/**
 * At start-up (never during a page render): jobs whose owner died are marked interrupted, and
 * `onInterrupted` updates what the job worked on (the run, the experiment). When `finishedAs` says the
 * work itself already finished (the owner died between the work's last write and the job's), the job
 * takes that status instead and `onInterrupted` is not called.
 */
export async function recoverStaleJobs(
  db: Db,
  onInterrupted: (job: Job) => unknown,
  opts: {
    staleMs?: number;
    finishedAs?: (job: Job) => JobStatus | null | Promise<JobStatus | null>;
  } = {},
): Promise<Job[]> {
  const out: Job[] = [];
  const now = new Date();
  for (const job of await listActiveJobs(db)) {
    if (job.status !== "running" || ownerIsAlive(job, now.getTime(), opts.staleMs)) continue;
    const finished = (await opts.finishedAs?.(job)) ?? null;
    if (finished) {
      if (
        await casInterruptJob(db, {
          id: job.id,
          expectedToken: job.ownerToken,
          error: null,
          now,
          status: finished,
        })
      )
        out.push(job);
      continue;
    }
    const error = `The process working it (${describeOwner(job, now.getTime())}) stopped before it finished.`;
    if (await casInterruptJob(db, { id: job.id, expectedToken: job.ownerToken, error, now })) {
      await onInterrupted(job);
      out.push(job);
    }
  }
  return out;
}
