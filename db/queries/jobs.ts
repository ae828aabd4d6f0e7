import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { all, one, query, write } from "../op";
import type { Job, JobKind, JobStatus } from "../schema";

export type JobOwner = { pid: number; host: string; token: string };

/** Inserts the job row when it is not there yet (runs made before jobs existed get theirs on claim). */
export const ensureJob = query(function* (
  db,
  { id, kind, total = 0 }: { id: string; kind: JobKind; total?: number },
) {
  const { jobs } = db.tables;
  yield* write(db.insert(jobs).values({ id, kind, total }).onConflictDoNothing());
});

export const getJob = query(function* (db, { id }: { id: string }) {
  const { jobs } = db.tables;
  const row: Job | undefined = yield* one(db.select().from(jobs).where(eq(jobs.id, id)));
  return row;
});

/**
 * Compare-and-set: takes the job for `owner` only if its owner is still the one the caller saw
 * (`expectedToken`, null for none). Two processes that read the same row cannot both win.
 *
 * On PostgreSQL (several processes, on several machines) the row is locked `FOR UPDATE SKIP LOCKED`
 * in the same statement: a row another transaction is claiming (or writing) right now is not waited
 * for but skipped, which reads as "claimed by someone else" (false); the CAS on the token, re-checked
 * on the row's newest version, keeps a claim that committed meanwhile from being taken twice.
 */
export const casClaimJob = query(function* (
  db,
  { id, owner, expectedToken, now }: { id: string; owner: JobOwner; expectedToken: string | null; now: Date },
) {
  const { jobs } = db.tables;
  const unclaimed = expectedToken === null ? isNull(jobs.ownerToken) : eq(jobs.ownerToken, expectedToken);
  const lockable =
    db.engine === "pg"
      ? sql`${jobs.id} in (select j.id from jobs j where j.id = ${id} and ${
          expectedToken === null ? sql`j.owner_token is null` : sql`j.owner_token = ${expectedToken}`
        } for update skip locked)`
      : undefined;
  const r = yield* write(
    db
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
      .where(and(eq(jobs.id, id), unclaimed, lockable)),
  );
  return r.changes === 1;
});

/**
 * The owner's heartbeat, carrying its progress. Returns whether a cancel was asked for, or
 * undefined when the job is no longer this owner's (another process took it over).
 */
export const heartbeatJob = query(function* (
  db,
  {
    id,
    token,
    now,
    progress,
  }: { id: string; token: string; now: Date; progress?: { done: number; total: number; errors: number } },
) {
  const { jobs } = db.tables;
  const row = yield* one(
    db
      .update(jobs)
      .set({ heartbeatAt: now, ...(progress ?? {}) })
      .where(and(eq(jobs.id, id), eq(jobs.ownerToken, token)))
      .returning({ cancelRequested: jobs.cancelRequested }),
  );
  const out: { cancelRequested: boolean } | undefined = row
    ? { cancelRequested: row.cancelRequested }
    : undefined;
  return out;
});

/** Ends the owner's claim with a status (and its final progress); only the current owner can. */
export const finishJobRow = query(function* (
  db,
  {
    id,
    token,
    status,
    error,
    now,
    progress,
  }: {
    id: string;
    token: string;
    status: JobStatus;
    error: string | null;
    now: Date;
    /** the final progress, written with the status (a job may end before its first heartbeat) */
    progress?: { done: number; total: number; errors: number };
  },
) {
  const { jobs } = db.tables;
  const r = yield* write(
    db
      .update(jobs)
      .set({ ...settled(status, error, now), ...(progress ?? {}) })
      .where(and(eq(jobs.id, id), eq(jobs.ownerToken, token))),
  );
  return r.changes === 1;
});

/** A job's row once it ended: its status and error, when, and no owner any more. */
const settled = (status: JobStatus, error: string | null, now: Date) => ({
  status,
  error,
  finishedAt: now,
  ownerPid: null,
  ownerHost: null,
  ownerToken: null,
  heartbeatAt: null,
});

/** Asks the owner to stop; it sees the request at its next heartbeat. */
export const requestJobCancel = query(function* (db, { id }: { id: string }) {
  const { jobs } = db.tables;
  const r = yield* write(
    db
      .update(jobs)
      .set({ cancelRequested: true })
      .where(and(eq(jobs.id, id), inArray(jobs.status, ["queued", "running"]))),
  );
  return r.changes > 0;
});

export const listActiveJobs = query(function* (db) {
  const { jobs } = db.tables;
  const out: Job[] = yield* all(
    db
      .select()
      .from(jobs)
      .where(or(eq(jobs.status, "running"), eq(jobs.status, "queued"))),
  );
  return out;
});

/**
 * Settles a job whose owner died, unless someone claimed it meanwhile (CAS on the token): interrupted,
 * or the status its work already reached when the owner died after the work's last write.
 */
export const casInterruptJob = query(function* (
  db,
  {
    id,
    expectedToken,
    error,
    now,
    status = "interrupted",
  }: { id: string; expectedToken: string | null; error: string | null; now: Date; status?: JobStatus },
) {
  const { jobs } = db.tables;
  const r = yield* write(
    db
      .update(jobs)
      .set(settled(status, error, now))
      .where(
        and(
          eq(jobs.id, id),
          eq(jobs.status, "running"),
          expectedToken === null ? isNull(jobs.ownerToken) : eq(jobs.ownerToken, expectedToken),
        ),
      ),
  );
  return r.changes === 1;
});

/** Puts a finished job back in the queue for another round of its work (a running job is left alone). */
export const requeueJob = query(function* (db, { id, kind }: { id: string; kind: JobKind }) {
  const { jobs } = db.tables;
  yield* ensureJob.body(db, { id, kind });
  yield* write(
    db
      .update(jobs)
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
      ),
  );
});

/** A queued job whose process ended before claiming it: failed, with why (a claimed job is left alone). */
export const failQueuedJob = query(function* (db, { id, error }: { id: string; error: string }) {
  const { jobs } = db.tables;
  yield* write(
    db
      .update(jobs)
      .set({ status: "failed", error, finishedAt: new Date() })
      .where(and(eq(jobs.id, id), eq(jobs.status, "queued"))),
  );
});
