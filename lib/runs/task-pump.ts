import os from "node:os";
import type { AnyDb } from "@/db/client";
import {
  beatWorker,
  type ClaimLimits,
  claimHolders,
  claimTasks,
  openTasks,
  releaseClaims,
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
 * Gives back the claims on a run held by dead processes of this host (a SIGKILLed worker), so they
 * are taken at once instead of after their lease; another host's workers are judged by their lease.
 */
export async function freeDeadLocalClaims(db: AnyDb, runId: string): Promise<number> {
  const host = os.hostname();
  let freed = 0;
  for (const id of await claimHolders(db, { runId, now: new Date() })) {
    const parts = id.split(":");
    const pid = Number(parts.at(-2));
    if (parts.slice(0, -2).join(":") !== host || !Number.isInteger(pid) || isPidAlive(pid)) continue;
    freed += await releaseClaims(db, { workerId: id, runId });
    await removeWorker(db, { id }); // its part of the run's concurrency goes back to the others
  }
  return freed;
}

/**
 * Works a run's tasks by claiming them from the store, so that any number of processes (on any
 * number of machines sharing a PostgreSQL store) work one run together and no task is called twice.
 * The worker claims as many free tasks as it has free slots, within the run's limits counted over
 * every worker's claims (db/queries/claims.ts); its claims last `leaseMs` and are renewed while it
 * works; when nothing is free but tasks are still pending (others hold them), it looks again every
 * `pollMs`, and takes a dead worker's tasks once their claims expire. It returns when the run has no
 * pending task left, or when `signal` aborts (its unfinished claims are then its caller's to release).
 */
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

  // claimed and not yet ended (a task waiting in its group holds its claim, and a slot)
  let inFlight = 0;
  const start = (t: Task) =>
    perform(t).then(
      () => {
        inFlight--;
        woken();
      },
      (error) => {
        inFlight--;
        failure ??= { error };
        woken();
      },
    );
  const launch = (tasks: Task[]) => {
    inFlight += tasks.length;
    const groups = o.group ? o.group(tasks) : tasks.map((t) => (f: (t: Task) => Promise<void>) => f(t));
    for (const g of groups) {
      const p: Promise<void> = g(start).finally(() => running.delete(p));
      running.add(p);
    }
  };

  try {
    while (!o.signal.aborted && !failure) {
      const free = o.slots - inFlight;
      let got: Task[] = [];
      if (free > 0) {
        const now = Date.now();
        got = await claimTasks(o.db, {
          runId: o.runId,
          workerId: o.workerId,
          max: free,
          now: new Date(now),
          until: new Date(now + leaseMs),
          limits: o.limits,
          judges: o.judges,
          fairSince: new Date(now - leaseMs),
        });
      }
      if (got.length > 0) {
        launch(got);
        continue;
      }
      if (running.size === 0) {
        const open = await openTasks(o.db, { runId: o.runId, now: new Date() });
        if (open.pending === 0) break;
        // held by others: a dead process of this host gives its claims back now
        if (open.free === 0 && (await freeDeadLocalClaims(o.db, o.runId)) > 0) continue;
      }
      // nothing to claim now: wait for one of ours to end, or look again after pollMs
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
        if (o.signal.aborted) wake();
      });
    }
    await Promise.all(running);
  } finally {
    clearInterval(renew);
    o.signal.removeEventListener("abort", woken);
  }
  if (failure) throw failure.error;
}
