import { and, asc, eq, gt, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { AnyDb, PgDb, SqliteDb } from "../client";
import { all, exec, type OpDb, query, tx, write } from "../op";
import { pgClaim } from "../pg/hot-path";
import type { Task, WorkerSlots } from "../schema";
import { type SlotLimits, shareSlots } from "./worker-slots";

/**
 * How several processes (on several machines, over PostgreSQL) work one run together, within its
 * concurrency limits, with nothing called twice.
 *
 * - `takeSlots` gives a worker its part of the run's limits, in total and per provider
 *   (worker-slots.ts), which it sets on its own call scheduler; the parts of the live workers never
 *   add up past the limits. Parts are shared one worker at a time (SQLite's write lock; an advisory
 *   lock per run on PostgreSQL) and change only as workers come, go or run out of work, so a worker
 *   asks for its part now and then, not at each claim.
 * - `claimTasks` claims free pending tasks in task order for a worker, up to the room it names (its
 *   part and some ahead, less what it holds); claimed tasks wait for a slot in its scheduler, so a call
 *   that ends starts the next at once. On PostgreSQL one statement with FOR UPDATE SKIP LOCKED (per
 *   provider with room), no lock beside it: two claimers never wait for each other or get one task.
 *
 * A recorded sample ends a task (recordSample writes only while it is pending, so a task never gets
 * two samples); a claim lasts until `claimExpiresAt`, moved on by its worker's heartbeat.
 */

/** The provider of a judge id ("openai:gpt-4o" → "openai"); "deterministic" is no provider's. */
export function providerOf(judge: string): string {
  const i = judge.indexOf(":");
  return i < 0 ? judge : judge.slice(0, i);
}

export type ClaimLimits = SlotLimits;

export type SlotRequest = {
  runId: string;
  workerId: string;
  now: Date;
  /** the workers whose heartbeat is newer than this are live (a silent one's part is free) */
  since: Date;
  /** the run's limits over every worker */
  limits: ClaimLimits;
  /** the providers of the judges this worker calls on the run: its part is counted for each */
  providers: readonly string[];
  /** its calls running now: its row never says less */
  inFlight: WorkerSlots;
  /** whether it wants a part (it holds tasks, or there are free ones): else it gives its part up */
  wants: boolean;
};

/** Locks the run's parts for this transaction (PostgreSQL; SQLite's write transaction is the lock). */
function* lockRunSlots(db: OpDb, runId: string) {
  if (db.engine === "pg")
    yield* exec(db, sql`select pg_advisory_xact_lock(hashtext(${`jury-claims:${runId}`}))`);
}

/**
 * A worker's part of the run's limits now (its scheduler's limits), recorded on its row beside the
 * other live workers' parts. A worker that wants none gets none and its row says so (null): the
 * others share the run without it.
 */
export const takeSlots = query(function* (db, r: SlotRequest) {
  return yield* tx(db, function* (t) {
    const { workers } = t.tables;
    yield* lockRunSlots(t, r.runId);
    const onRun = yield* all(
      t
        .select({ id: workers.id, startedAt: workers.startedAt, slots: workers.slots })
        .from(workers)
        .where(
          and(eq(workers.runId, r.runId), or(gt(workers.heartbeatAt, r.since), eq(workers.id, r.workerId))),
        ),
    );
    const wants = r.wants || r.inFlight.total > 0;
    const { part, row } = shareSlots({
      me: r.workerId,
      now: r.now,
      onRun: wants ? onRun : onRun.filter((w) => w.id !== r.workerId),
      limits: r.limits,
      providers: r.providers,
      inFlight: r.inFlight,
    });
    yield* write(
      t
        .update(workers)
        .set({ slots: wants ? row : null, runId: r.runId })
        .where(eq(workers.id, r.workerId)),
    );
    return wants ? part : { total: 0, providers: Object.fromEntries(r.providers.map((p) => [p, 0])) };
  });
});

export type ClaimRequest = {
  runId: string;
  workerId: string;
  now: Date;
  /** the claims' end */
  until: Date;
  /** at most this many tasks that call a model, in total and per provider (a provider not named: none) */
  room: WorkerSlots;
  /** only these judges' tasks (a batched run's live part), else any */
  judges?: readonly string[];
};

export type ClaimResult = { tasks: Task[] };

/** How many tasks that call no model (deterministic criteria) one claim takes at most, beside the calls. */
const DETERMINISTIC_BATCH = 16;

/**
 * Claims free pending tasks that call a model, in task order, within `room` (in total and per
 * provider), and beside them the free tasks that call none (deterministic criteria) in that stretch
 * of the run (they take no slot).
 */
export function claimTasks(db: SqliteDb, r: ClaimRequest): ClaimResult;
export function claimTasks(db: PgDb, r: ClaimRequest): Promise<ClaimResult>;
export function claimTasks(db: AnyDb, r: ClaimRequest): ClaimResult | Promise<ClaimResult>;
export function claimTasks(db: AnyDb, r: ClaimRequest): ClaimResult | Promise<ClaimResult> {
  if (db.engine === "pg") return pgClaimTasks(db, r);
  return sqliteClaim(db, r);
}

// SQLite: a window of the run's free tasks in one write transaction (its lock keeps claimers apart)
const sqliteClaim = query(function* (db, r: ClaimRequest) {
  return yield* tx(db, function* (t) {
    const { tasks } = t.tables;
    const rooms = new Map(Object.entries(r.room.providers));
    const total = r.room.total;
    // a window past the room: tasks of a provider with no room are passed over, not waited for
    const candidates = yield* all(
      t
        .select()
        .from(tasks)
        .where(
          and(
            eq(tasks.runId, r.runId),
            eq(tasks.status, "pending"),
            or(isNull(tasks.claimExpiresAt), lte(tasks.claimExpiresAt, r.now)),
            r.judges ? inArray(tasks.judge, [...r.judges]) : undefined,
          ),
        )
        .orderBy(asc(tasks.id))
        .limit(total * 2 + DETERMINISTIC_BATCH),
    );
    const chosen: Task[] = [];
    let calls = 0;
    for (const c of candidates) {
      if (c.judge !== "deterministic") {
        const p = providerOf(c.judge);
        const n = rooms.get(p) ?? 0;
        if (n <= 0 || calls >= total) continue;
        rooms.set(p, n - 1);
        calls++;
      }
      chosen.push({ ...c, claimedBy: r.workerId, claimExpiresAt: r.until });
    }
    if (chosen.length > 0)
      yield* write(
        t
          .update(tasks)
          .set({ claimedBy: r.workerId, claimExpiresAt: r.until })
          .where(
            inArray(
              tasks.id,
              chosen.map((c) => c.id),
            ),
          ),
      );
    return { tasks: chosen };
  });
});

// PostgreSQL: one statement per provider with room (the total's room goes to them in turn, as far as
// they have free tasks), rows another claimer holds skipped
async function pgClaimTasks(db: PgDb, r: ClaimRequest): Promise<ClaimResult> {
  const got: Task[] = [];
  let left = r.room.total;
  let first = true;
  const providers = Object.entries(r.room.providers).filter(([, n]) => n > 0);
  // with no room for calls, one statement still takes the deterministic tasks of its stretch
  for (const [provider, n] of providers.length ? providers : [[null, 0] as const]) {
    const calls = Math.min(n, left);
    if (!first && calls <= 0) break;
    const rows = await pgClaim.claim(db, {
      runId: r.runId,
      workerId: r.workerId,
      now: r.now,
      until: r.until,
      judges: r.judges,
      provider: calls > 0 ? provider : null,
      calls: Math.max(0, calls),
      // the first statement takes the deterministic tasks of its stretch too
      deterministic: first ? DETERMINISTIC_BATCH : 0,
    });
    first = false;
    left -= rows.filter((t) => t.judge !== "deterministic").length;
    got.push(...rows);
  }
  return { tasks: got.sort((a, b) => a.id - b.id) };
}
