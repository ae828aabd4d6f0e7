import { and, asc, count, eq, gt, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import { all, exec, type OpDb, one, query, tx, write } from "../op";
import type { Task, WorkerKind } from "../schema";

/**
 * Task claims: how several processes (on several machines, over PostgreSQL) work one run together.
 * A worker claims pending tasks in batches; a claim names it and lasts until `claimExpiresAt`, which
 * its heartbeat keeps moving while it works. A claim past its time is free again (its worker died),
 * a recorded sample ends the task (recordSample writes only while the task is pending, so a task
 * never gets two samples). Claims of one run are taken one worker at a time (SQLite's write lock; a
 * transaction-scoped advisory lock per run on PostgreSQL, beside FOR UPDATE SKIP LOCKED), so the
 * run's concurrency limits hold across workers: the tasks claimed and not expired are the calls in
 * flight.
 */

/** The provider of a judge id ("openai:gpt-4o" → "openai"); "deterministic" is no provider's. */
function providerOf(judge: string): string {
  const i = judge.indexOf(":");
  return i < 0 ? judge : judge.slice(0, i);
}

export type ClaimLimits = {
  /** the run's calls in flight, over every worker */
  concurrency: number;
  /** calls in flight to one provider, over every worker */
  perProviderConcurrency: number;
};

export type ClaimRequest = {
  runId: string;
  workerId: string;
  /** at most this many (the worker's free slots) */
  max: number;
  now: Date;
  /** the claims' end */
  until: Date;
  limits: ClaimLimits;
  /** only these judges' tasks (a batched run's live part), else any */
  judges?: readonly string[];
  /**
   * Shares the run's concurrency fairly: this worker claims at most its part of it among the workers
   * on the run whose heartbeat is newer than `since` (so one that came first does not keep every slot).
   */
  fairSince?: Date;
};

/** How many tasks that call no model (deterministic criteria) one claim takes at most, beside the calls. */
const DETERMINISTIC_BATCH = 16;

/** Locks the run's claims for this transaction (PostgreSQL; SQLite's write transaction is the lock). */
function* lockRunClaims(db: OpDb, runId: string) {
  if (db.engine === "pg")
    yield* exec(db, sql`select pg_advisory_xact_lock(hashtext(${`jury-claims:${runId}`}))`);
}

/**
 * Claims up to `max` of the run's free pending tasks that call a model (in task order) for a worker,
 * within the run's limits counted over every worker's live claims, and beside them the free
 * deterministic tasks in that stretch of the run (they call no model, so they take no slot); returns them.
 */
export const claimTasks = query(function* (db, r: ClaimRequest) {
  return yield* tx(db, (t) => claimInTx(t, r));
});

function* claimInTx(t: OpDb, r: ClaimRequest) {
  const { tasks, workers } = t.tables;
  yield* lockRunClaims(t, r.runId);
  // the workers on the run: alone, a worker's own slots (`max`) are the run's limits, and the count
  // of every live claim below (the costly part of a claim) is not needed
  let others = true;
  let onRun = 1;
  if (r.fairSince) {
    const on = yield* one(
      t
        .select({ n: count() })
        .from(workers)
        .where(and(eq(workers.runId, r.runId), gt(workers.heartbeatAt, r.fairSince))),
    );
    onRun = Math.max(1, Number(on?.n ?? 0));
    others = onRun > 1;
  }
  let total = 0;
  let mine = 0;
  const perProvider = new Map<string, number>();
  if (others) {
    const live = yield* all(
      t
        .select({ by: tasks.claimedBy, judge: tasks.judge, n: count() })
        .from(tasks)
        .where(
          and(
            eq(tasks.runId, r.runId),
            eq(tasks.status, "pending"),
            gt(tasks.claimExpiresAt, r.now),
            isNotNull(tasks.claimedBy),
          ),
        )
        .groupBy(tasks.claimedBy, tasks.judge),
    );
    for (const { by, judge, n } of live) {
      if (judge === "deterministic") continue; // no model call: it takes no slot
      total += Number(n);
      if (by === r.workerId) mine += Number(n);
      const p = providerOf(judge);
      perProvider.set(p, (perProvider.get(p) ?? 0) + Number(n));
    }
  }
  let room = Math.min(r.max, r.limits.concurrency - total);
  // shared fairly: at most this worker's part of the run's concurrency
  if (r.fairSince) room = Math.min(room, Math.ceil(r.limits.concurrency / onRun) - mine);
  room = Math.max(0, room);
  const free = and(
    eq(tasks.runId, r.runId),
    eq(tasks.status, "pending"),
    or(isNull(tasks.claimExpiresAt), lte(tasks.claimExpiresAt, r.now)),
    r.judges ? inArray(tasks.judge, [...r.judges]) : undefined,
    // with no slot left, only the tasks that call no model
    room === 0 ? eq(tasks.judge, "deterministic") : undefined,
  );
  // a window past `room`: tasks of a provider at its limit are passed over, not waited for
  const window = t
    .select()
    .from(tasks)
    .where(free)
    .orderBy(asc(tasks.id))
    .limit(room * 4 + DETERMINISTIC_BATCH);
  const candidates = yield* all(
    t.engine === "pg"
      ? // PostgreSQL: rows another claimer holds are skipped, not waited for
        ((window as unknown as { for(s: "update", o: { skipLocked: true }): unknown }).for("update", {
          skipLocked: true,
        }) as typeof window)
      : window,
  );
  const chosen: Task[] = [];
  let calls = 0;
  for (const c of candidates) {
    if (c.judge !== "deterministic") {
      if (calls >= room) continue;
      const p = providerOf(c.judge);
      const n = perProvider.get(p) ?? 0;
      if (n >= r.limits.perProviderConcurrency) continue;
      perProvider.set(p, n + 1);
      calls++;
    }
    chosen.push({ ...c, claimedBy: r.workerId, claimExpiresAt: r.until });
  }
  if (chosen.length === 0) return chosen;
  yield* write(
    t
      .update(tasks)
      .set({ claimedBy: r.workerId, claimExpiresAt: r.until })
      .where(
        and(
          inArray(
            tasks.id,
            chosen.map((c) => c.id),
          ),
          eq(tasks.status, "pending"),
        ),
      ),
  );
  return chosen;
}

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
