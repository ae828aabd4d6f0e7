import os from "node:os";
import type { AnyDb } from "@/db/client";
import {
  beatWorker,
  type ClaimLimits,
  claimHolders,
  claimTasks,
  liveWorkers,
  openTasks,
  removeWorker,
} from "@/db/queries/claims";
import type { Task } from "@/db/schema";
import { readEnv } from "../env/registry";
import { isPidAlive } from "../jobs/runner";

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
  /** this process's calls at once */
  slots: number;
  /** the run's limits over every worker */
  limits: ClaimLimits;
  signal: AbortSignal;
  /** only these judges' tasks (the live part of a batched run) */
  judges?: readonly string[];
  /** groups the claimed tasks before they start (prompt caching: one sample first, then the rest) */
  group?: (tasks: Task[]) => ((perform: (t: Task) => Promise<void>) => Promise<void>)[];
  leaseMs?: number;
  pollMs?: number;
};

export async function pumpTasks(o: PumpOptions, perform: (t: Task) => Promise<void>): Promise<void> {
  const leaseMs = o.leaseMs ?? readEnv("JURY_TASK_LEASE_MS");
  const pollMs = o.pollMs ?? readEnv("JURY_CLAIM_POLL_MS");
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const woken = () => {
    wake?.();
    wake = undefined;
  };
  o.signal.addEventListener("abort", woken, { once: true });

  // the claims' lease moves on while this worker holds them: a third of the lease apart
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

  /** Waits for one of this worker's tasks to end, or pollMs; then for the sample writer's commit. */
  const idle = async () => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
      if (o.signal.aborted) wake();
    });
    // a task that just ended is stored at the end of this turn of the event loop (the sample
    // writer's commit): until then its claim still counts against the run's limits
    await new Promise<void>((resolve) => setImmediate(resolve));
  };

  // calls claimed and not yet ended (a task waiting in its group holds its claim, and a slot); a
  // deterministic task calls no model and takes no slot
  let inFlight = 0;
  const slot = (t: Task) => (t.judge === "deterministic" ? 0 : 1);
  const start = (t: Task) =>
    perform(t).then(
      () => {
        inFlight -= slot(t);
        woken();
      },
      (error) => {
        inFlight -= slot(t);
        failure ??= { error };
        woken();
      },
    );
  const launch = (tasks: Task[]) => {
    for (const t of tasks) inFlight += slot(t);
    const groups = o.group ? o.group(tasks) : tasks.map((t) => (f: (t: Task) => Promise<void>) => f(t));
    for (const g of groups) {
      const p: Promise<void> = g(start).finally(() => running.delete(p));
      running.add(p);
    }
  };

  // claims go in batches of a few slots (a claim is a write transaction): an eighth of the slots, at
  // most 4, once the first claim filled them
  const batch = Math.max(1, Math.min(4, Math.floor(o.slots / 8)));
  // and a few claimed ahead, waiting in the call scheduler (which holds the calls to `slots`), so a
  // slot that frees starts its next call at once rather than after a claim
  const capacity = o.slots + 2 * batch;
  let claimedOnce = false;
  try {
    await freeDeadLocalWorkers(o.db, o.runId);
    while (!o.signal.aborted && !failure) {
      const now = Date.now();
      const want = capacity - inFlight;
      if (claimedOnce && running.size > 0 && want < batch) {
        await idle();
        continue;
      }
      claimedOnce = true;
      const got = await claimTasks(o.db, {
        runId: o.runId,
        workerId: o.workerId,
        max: Math.max(0, want),
        now: new Date(now),
        until: new Date(now + leaseMs),
        limits: o.limits,
        judges: o.judges,
        fairSince: new Date(now - leaseMs),
      });
      if (got.length > 0) {
        launch(got);
        continue;
      }
      if (running.size === 0) {
        const open = await openTasks(o.db, { runId: o.runId, now: new Date() });
        if (open.pending === 0) break;
        // held by others: a dead process of this host gives its claims back now
        if ((await freeDeadLocalWorkers(o.db, o.runId)) > 0) continue;
      }
      // nothing to claim now: wait for one of ours to end, or look again after pollMs
      await idle();
    }
    await Promise.all(running);
  } finally {
    clearInterval(renew);
    o.signal.removeEventListener("abort", woken);
  }
  if (failure) throw failure.error;
}
