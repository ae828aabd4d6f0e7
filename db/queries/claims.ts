import { and, asc, count, eq, gt, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import { all, one, query, write } from "../op";
import type { WorkerKind } from "../schema";

/**
 * Workers and task claims (the claim of a run's tasks and a worker's part of its limits are in
 * claim-tasks.ts): each process that works runs has a row while it does; its claims name it and last
 * until `claimExpiresAt`, which its heartbeat keeps moving. A claim past its time is free again (its
 * worker died).
 */

/**
 * Claims the given pending tasks for a worker where they are free (a batched run's owner takes its
 * batch's tasks at once); returns the ids it got.
 */
export const claimTasksById = query(function* (
  db,
  r: { ids: readonly number[]; workerId: string; now: Date; until: Date },
) {
  const { tasks } = db.tables;
  const got: number[] = [];
  for (let i = 0; i < r.ids.length; i += 500) {
    const rowsOut = yield* all(
      db
        .update(tasks)
        .set({ claimedBy: r.workerId, claimExpiresAt: r.until })
        .where(
          and(
            inArray(tasks.id, r.ids.slice(i, i + 500) as number[]),
            eq(tasks.status, "pending"),
            or(
              isNull(tasks.claimExpiresAt),
              lte(tasks.claimExpiresAt, r.now),
              eq(tasks.claimedBy, r.workerId),
            ),
          ),
        )
        .returning({ id: tasks.id }),
    );
    got.push(...rowsOut.map((x) => x.id));
  }
  return got;
});

/** How a run's pending tasks stand: all of them, and those free to claim now. */
export const openTasks = query(function* (db, { runId, now }: { runId: string; now: Date }) {
  const { tasks } = db.tables;
  const row = yield* one(
    db
      .select({
        pending: count(),
        free: sql<number>`cast(coalesce(sum(case when ${tasks.claimExpiresAt} is null or ${tasks.claimExpiresAt} <= ${now.getTime()} then 1 else 0 end), 0) as integer)`,
      })
      .from(tasks)
      .where(and(eq(tasks.runId, runId), eq(tasks.status, "pending"))),
  );
  return { pending: Number(row?.pending ?? 0), free: Number(row?.free ?? 0) };
});

/** The workers holding live claims on a run's pending tasks. */
export const claimHolders = query(function* (db, { runId, now }: { runId: string; now: Date }) {
  const { tasks } = db.tables;
  const got = yield* all(
    db
      .selectDistinct({ id: tasks.claimedBy })
      .from(tasks)
      .where(
        and(
          eq(tasks.runId, runId),
          eq(tasks.status, "pending"),
          isNotNull(tasks.claimedBy),
          gt(tasks.claimExpiresAt, now),
        ),
      ),
  );
  return got.map((r) => r.id as string).sort();
});

/**
 * Gives back a worker's claims on a run (or on all runs): they end now. A task keeps the name of the
 * worker that last claimed it (claimedBy), so a finished task says who called it; only its claim's
 * end is cleared, and a task put back to pending (a retry) is free at once.
 */
export const releaseClaims = query(function* (db, { workerId, runId }: { workerId: string; runId?: string }) {
  const { tasks } = db.tables;
  return (yield* write(
    db
      .update(tasks)
      .set({ claimExpiresAt: null })
      .where(
        and(
          eq(tasks.claimedBy, workerId),
          isNotNull(tasks.claimExpiresAt),
          runId === undefined ? undefined : eq(tasks.runId, runId),
        ),
      ),
  )).changes;
});

/** Registers a worker (or refreshes it): its process, what it works, its heartbeat. */
export const upsertWorker = query(function* (
  db,
  w: { id: string; kind: WorkerKind; host: string; pid: number; runId: string | null; now: Date },
) {
  const { workers } = db.tables;
  yield* write(
    db
      .insert(workers)
      .values({
        id: w.id,
        kind: w.kind,
        host: w.host,
        pid: w.pid,
        runId: w.runId,
        startedAt: w.now,
        heartbeatAt: w.now,
      })
      .onConflictDoUpdate({ target: workers.id, set: { runId: w.runId, heartbeatAt: w.now } }),
  );
});

/**
 * A worker's heartbeat: its row, and its claims on pending tasks moved to `until`. Says how many
 * claims it still holds (a claim taken over after it expired is no longer its own).
 */
export const beatWorker = query(function* (
  db,
  { id, runId, now, until }: { id: string; runId: string | null; now: Date; until: Date },
) {
  const { workers, tasks } = db.tables;
  yield* write(db.update(workers).set({ heartbeatAt: now, runId }).where(eq(workers.id, id)));
  return (yield* write(
    db
      .update(tasks)
      .set({ claimExpiresAt: until })
      .where(and(eq(tasks.claimedBy, id), eq(tasks.status, "pending"))),
  )).changes;
});

/** Removes a worker's row and gives back its claims. */
export const removeWorker = query(function* (db, { id }: { id: string }) {
  const { workers } = db.tables;
  yield* releaseClaims.body(db, { workerId: id });
  yield* write(db.delete(workers).where(eq(workers.id, id)));
});

/** The workers whose heartbeat is newer than `since` (on one run, or all), oldest first. */
export const liveWorkers = query(function* (db, { since, runId }: { since: Date; runId?: string }) {
  const { workers } = db.tables;
  return yield* all(
    db
      .select()
      .from(workers)
      .where(and(gt(workers.heartbeatAt, since), runId === undefined ? undefined : eq(workers.runId, runId)))
      .orderBy(asc(workers.startedAt), asc(workers.id)),
  );
});

/** Removes the rows of workers silent since `before` (their claims have expired by then). */
export const pruneWorkers = query(function* (db, { before }: { before: Date }) {
  const { workers } = db.tables;
  return (yield* write(db.delete(workers).where(lte(workers.heartbeatAt, before)))).changes;
});

/**
 * Runs with a task free to claim now (queued or running, oldest first): what `jury worker` looks for.
 * A run that is interrupted, cancelled or finished is left alone (resuming is a person's decision).
 */
export const runsWithFreeTasks = query(function* (db, { now, limit }: { now: Date; limit: number }) {
  const { runs, tasks } = db.tables;
  const got = yield* all(
    db
      .select({ id: runs.id, createdAt: runs.createdAt })
      .from(runs)
      .where(
        and(
          inArray(runs.status, ["queued", "running"]),
          sql`exists (select 1 from ${tasks} where ${tasks.runId} = ${runs.id} and ${tasks.status} = 'pending'
            and (${tasks.claimExpiresAt} is null or ${tasks.claimExpiresAt} <= ${now.getTime()}))`,
        ),
      )
      .orderBy(asc(runs.createdAt), asc(runs.id))
      .limit(limit),
  );
  return got.map((r) => r.id);
});
