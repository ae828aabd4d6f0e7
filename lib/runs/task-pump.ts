import os from "node:os";
import type { AnyDb } from "@/db/client";
import { type ClaimLimits, claimTasks, takeSlots } from "@/db/queries/claim-tasks";
import { beatWorker, claimHolders, liveWorkers, openTasks, removeWorker } from "@/db/queries/claims";
import { readEnv } from "../env/registry";
import { isPidAlive } from "../jobs/runner";
import type { CallScheduler } from "../jobs/scheduler";
import { ClaimedTasks, type Counts, type GroupTasks, type PerformTask } from "./claimed-tasks";

/** A worker's id: its host, its pid and a random part (`host:pid:xyz`), so its liveness can be checked here. */
export function workerIdOf(random: string, host = os.hostname(), pid = process.pid): string {
  return `${host}:${pid}:${random}`;
}

/**
 * Removes the workers of this host whose process is gone (a SIGKILLed worker) from a run: their
 * claims come back at once, instead of after their lease, and their part of the run's concurrency
 * goes to the others. Another host's workers are judged by their lease.
 */
export async function freeDeadLocalWorkers(db: AnyDb, runId: string): Promise<number> {
  const host = os.hostname();
  const now = new Date();
  const ids = new Set(await claimHolders(db, { runId, now }));
  const since = new Date(now.getTime() - readEnv("JURY_TASK_LEASE_MS"));
  for (const w of await liveWorkers(db, { since, runId })) ids.add(w.id);
  let freed = 0;
  for (const id of ids) {
    const parts = id.split(":");
    const pid = Number(parts.at(-2));
    if (parts.slice(0, -2).join(":") !== host || !Number.isInteger(pid) || isPidAlive(pid)) continue;
    await removeWorker(db, { id });
    freed++;
  }
  return freed;
}

export type PumpOptions = {
  db: AnyDb;
  runId: string;
  workerId: string;
  /** the run's limits over every worker */
  limits: ClaimLimits;
  /** this worker's calls: its part of the run's limits is set on it each time it asks */
  scheduler: Pick<CallScheduler, "setLimits" | "inFlight">;
  /** the providers of the judges it calls */
  providers: readonly string[];
  signal: AbortSignal;
  /** only these judges' tasks (the live part of a batched run) */
  judges?: readonly string[];
  /** groups the claimed tasks before they start (prompt caching: one sample first, then the rest) */
  group?: GroupTasks;
  leaseMs?: number;
  pollMs?: number;
  /** tasks kept claimed beyond its part, waiting for a slot (default CLAIM_AHEAD) */
  ahead?: number;
};

/**
 * Tasks a worker keeps claimed beyond its part of the run's concurrency: a call that ends starts the
 * next at once, from these, while a claim (a write transaction, a round trip on PostgreSQL) refills
 * them in the background. Another worker finds them taken; they return with the worker's lease.
 */
export const CLAIM_AHEAD = 16;

/** Claims are taken once this many tasks can be claimed (a claim is a write transaction). */
const CLAIM_BATCH = 8;

/** How soon a worker with nothing left, whose run's last tasks others hold, first looks again. */
const END_POLL_MS = 20;

/** How often a worker asks for its part of the run's limits (they change as workers come and go). */
const SHARE_MS = 250;

/** How often near the run's end (nothing left to claim). */
const END_SHARE_MS = 50;

/** How soon a worker with no part yet (others still hold the run's slots) asks again. */
const PART_RETRY_MS = 25;

/** More calls in flight than the part allows, in total or for a provider. */
function exceeds(inFlight: Counts, part: Counts): boolean {
  if (inFlight.total > part.total) return true;
  return Object.entries(inFlight.providers).some(([p, n]) => n > (part.providers[p] ?? 0));
}

/** The calls it may claim: its part and `ahead` more, less what it holds, in total and per provider. */
function roomFor(part: Counts, held: Counts, ahead: number, providers: readonly string[]): Counts {
  const of = (mine: number, holds: number) => (mine > 0 ? Math.max(0, mine + ahead - holds) : 0);
  const room: Counts = { total: of(part.total, held.total), providers: {} };
  for (const p of providers) room.providers[p] = of(part.providers[p] ?? 0, held.providers[p] ?? 0);
  return room;
}

/**
 * Claims a run's tasks for this worker and works them until none is left to claim and its own are
 * done: its part of the run's limits (claim-tasks.ts) set on its scheduler, `ahead` more claimed to start
 * as slots free up, its claims' lease renewed while it holds them.
 */
export async function pumpTasks(o: PumpOptions, perform: PerformTask): Promise<void> {
  const leaseMs = o.leaseMs ?? readEnv("JURY_TASK_LEASE_MS");
  const pollMs = o.pollMs ?? readEnv("JURY_CLAIM_POLL_MS");
  const ahead = o.ahead ?? CLAIM_AHEAD;
  const tasks = new ClaimedTasks(perform, o.group, o.signal);
  const { held, running } = tasks;
  const renew = renewClaims(o, leaseMs);

  let part: Counts = { total: 0, providers: {} };
  let lastShare = Number.NEGATIVE_INFINITY;
  let lastClaim = Number.NEGATIVE_INFINITY;
  // whether there is work for it (it assumes so until a claim finds none): it then wants a part
  let work = true;
  let waitMs = END_POLL_MS / 2;
  // its calls in flight are more than its part (its row says them, not its part)
  let above = false;
  const shareMs = Math.min(pollMs, SHARE_MS);
  try {
    await freeDeadLocalWorkers(o.db, o.runId);
    while (!o.signal.aborted && !tasks.failure) {
      const now = Date.now();
      // its part of the run's limits, asked for now and then (workers come, go, run out of work), more
      // often near the run's end (none left to claim: another may have given its part up), while it
      // has none, and as soon as the calls it ran past a smaller part have ended (its row still says
      // them, and another worker waits for that part)
      const inFlight = o.scheduler.inFlight();
      if (
        part.total === 0 ||
        now - lastShare >= (work ? shareMs : Math.min(shareMs, END_SHARE_MS)) ||
        (above && !exceeds(inFlight, part))
      ) {
        part = await takeSlots(o.db, {
          runId: o.runId,
          workerId: o.workerId,
          now: new Date(now),
          since: new Date(now - leaseMs),
          limits: o.limits,
          providers: o.providers,
          inFlight,
          wants: work || held.total > 0,
        });
        above = exceeds(inFlight, part);
        lastShare = now;
        o.scheduler.setLimits(part);
      }
      const room = roomFor(part, held, ahead, o.providers);
      if (room.total >= CLAIM_BATCH || (room.total > 0 && (held.total === 0 || now - lastClaim >= pollMs))) {
        lastClaim = now;
        const got = await claimTasks(o.db, {
          runId: o.runId,
          workerId: o.workerId,
          now: new Date(now),
          until: new Date(now + leaseMs),
          room,
          judges: o.judges,
        });
        if (got.tasks.length > 0) {
          work = true;
          tasks.launch(got.tasks);
          continue;
        }
        work = false; // none free for it now
      } else if (held.total > 0) {
        // its part is full: wait for an answer, or its next look at its part
        await tasks.idle(Math.max(1, shareMs - (now - lastShare)));
        continue;
      }
      if (part.total === 0 && work) {
        // work is there and the others still hold the run's slots: they give them back as calls end
        await tasks.idle(Math.min(pollMs, PART_RETRY_MS));
        continue;
      }
      if (running.size === 0) {
        const open = await openTasks(o.db, { runId: o.runId, now: new Date() });
        if (open.pending === 0) break;
        work = open.free > 0;
        // held by others: a dead process of this host gives its claims back now
        if ((await freeDeadLocalWorkers(o.db, o.runId)) > 0) continue;
        // the others' last tasks end soon (the run's end waits on them) or after a long call: look
        // again soon, then less and less often, up to pollMs
        waitMs = Math.min(pollMs, waitMs * 2);
        await tasks.idle(waitMs);
        continue;
      }
      waitMs = END_POLL_MS / 2;
      // nothing to claim now: wait for one of ours to answer or end, or look again after pollMs
      await tasks.idle(pollMs);
    }
    await tasks.settle();
  } finally {
    clearInterval(renew);
    tasks.close();
  }
  if (tasks.failure) throw tasks.failure.error;
}

/** The claims' lease moves on while this worker holds them: a third of the lease apart. */
function renewClaims(o: PumpOptions, leaseMs: number): NodeJS.Timeout {
  const renew = setInterval(
    () => {
      const now = Date.now();
      Promise.resolve(
        beatWorker(o.db, {
          id: o.workerId,
          runId: o.runId,
          now: new Date(now),
          until: new Date(now + leaseMs),
        }),
      ).catch(() => {
        // not fatal by itself: a claim that lapses is taken by another worker, whose sample wins or loses by the task's status
      });
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  renew.unref?.();
  return renew;
}
