import { and, eq, inArray, isNull, or } from "drizzle-orm";
import type { Db } from "../client";
import { type Job, type JobKind, type JobStatus, jobs } from "../schema";

export type JobOwner = { pid: number; host: string; token: string };

/** Inserts the job row when it is not there yet (runs made before jobs existed get theirs on claim). */
export function ensureJob(
  db: Db,
  { id, kind, total = 0 }: { id: string; kind: JobKind; total?: number },
): void {
  db.insert(jobs).values({ id, kind, total }).onConflictDoNothing().run();
}

export function getJob(db: Db, { id }: { id: string }): Job | undefined {
  return db.select().from(jobs).where(eq(jobs.id, id)).get();
}

/**
 * Compare-and-set: takes the job for `owner` only if its owner is still the one the caller saw
 * (`expectedToken`, null for none). Two processes that read the same row cannot both win.
 */
export function casClaimJob(
  db: Db,
  { id, owner, expectedToken, now }: { id: string; owner: JobOwner; expectedToken: string | null; now: Date },
): boolean {
  const r = db
    .update(jobs)
    .set({
      status: "running",
      ownerPid: owner.pid,
      ownerHost: owner.host,
      ownerToken: owner.token,
      heartbeatAt: now,
      startedAt: now,
      finishedAt: null,
      cancelRequested: false,
      error: null,
    })
    .where(
      and(
        eq(jobs.id, id),
        expectedToken === null ? isNull(jobs.ownerToken) : eq(jobs.ownerToken, expectedToken),
      ),
    )
    .run();
  return r.changes === 1;
}

/**
 * The owner's heartbeat, carrying its progress. Returns whether a cancel was asked for, or
 * undefined when the job is no longer this owner's (another process took it over).
 */
export function heartbeatJob(
  db: Db,
  {
    id,
    token,
    now,
    progress,
  }: { id: string; token: string; now: Date; progress?: { done: number; total: number; errors: number } },
): { cancelRequested: boolean } | undefined {
  const row = db
    .update(jobs)
    .set({ heartbeatAt: now, ...(progress ?? {}) })
    .where(and(eq(jobs.id, id), eq(jobs.ownerToken, token)))
    .returning({ cancelRequested: jobs.cancelRequested })
    .get();
  return row ? { cancelRequested: row.cancelRequested } : undefined;
}

/** Ends the owner's claim with a status; only the current owner can. */
export function finishJobRow(
  db: Db,
  {
    id,
    token,
    status,
    error,
    now,
  }: { id: string; token: string; status: JobStatus; error: string | null; now: Date },
): boolean {
  const r = db
    .update(jobs)
    .set({
      status,
      error,
      finishedAt: now,
      ownerPid: null,
      ownerHost: null,
      ownerToken: null,
      heartbeatAt: null,
    })
    .where(and(eq(jobs.id, id), eq(jobs.ownerToken, token)))
    .run();
  return r.changes === 1;
}

/** Asks the owner to stop; it sees the request at its next heartbeat. */
export function requestJobCancel(db: Db, { id }: { id: string }): boolean {
  const r = db
    .update(jobs)
    .set({ cancelRequested: true })
    .where(and(eq(jobs.id, id), inArray(jobs.status, ["queued", "running"])))
    .run();
  return r.changes > 0;
}

export function listActiveJobs(db: Db): Job[] {
  return db
    .select()
    .from(jobs)
    .where(or(eq(jobs.status, "running"), eq(jobs.status, "queued")))
    .all();
}

/**
 * Settles a job whose owner died, unless someone claimed it meanwhile (CAS on the token): interrupted,
 * or the status its work already reached when the owner died after the work's last write.
 */
export function casInterruptJob(
  db: Db,
  {
    id,
    expectedToken,
    error,
    now,
    status = "interrupted",
  }: { id: string; expectedToken: string | null; error: string | null; now: Date; status?: JobStatus },
): boolean {
  const r = db
    .update(jobs)
    .set({
      status,
      error,
      finishedAt: now,
      ownerPid: null,
      ownerHost: null,
      ownerToken: null,
      heartbeatAt: null,
    })
    .where(
      and(
        eq(jobs.id, id),
        eq(jobs.status, "running"),
        expectedToken === null ? isNull(jobs.ownerToken) : eq(jobs.ownerToken, expectedToken),
      ),
    )
    .run();
  return r.changes === 1;
}

/** Puts a finished job back in the queue for another round of its work (a running job is left alone). */
export function requeueJob(db: Db, { id, kind }: { id: string; kind: JobKind }): void {
  ensureJob(db, { id, kind });
  db.update(jobs)
    .set({
      status: "queued",
      done: 0,
      total: 0,
      errors: 0,
      error: null,
      cancelRequested: false,
      finishedAt: null,
    })
    .where(
      and(
        eq(jobs.id, id),
        or(
          eq(jobs.status, "done"),
          eq(jobs.status, "failed"),
          eq(jobs.status, "cancelled"),
          eq(jobs.status, "interrupted"),
        ),
      ),
    )
    .run();
}

/** A queued job whose process ended before claiming it: failed, with why (a claimed job is left alone). */
export function failQueuedJob(db: Db, { id, error }: { id: string; error: string }): void {
  db.update(jobs)
    .set({ status: "failed", error, finishedAt: new Date() })
    .where(and(eq(jobs.id, id), eq(jobs.status, "queued")))
    .run();
}
