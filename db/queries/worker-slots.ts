import type { WorkerSlots } from "../schema";

/**
 * How the live workers on a run share its concurrency (pure; claims.ts runs it under the run's claim
 * lock). Each worker's row holds its part; the parts of the live workers never add up past the run's
 * limits, in total and per provider, so the calls in flight over every worker stay within them while
 * each worker keeps tasks claimed ahead of its calls.
 *
 * The workers that want a part (a row's part is not null, and the asking one) are ordered by when they
 * started; of k of them the i-th gets `floor(c / k)`, one more while `i < c mod k`, of each limit c, or
 * what the others' parts leave of c when that is less (a worker that came first gives its slots back
 * as its calls end). A worker's row never says less than the calls it has running, so a part given
 * up is taken by another only once those calls ended.
 */
export type SlotLimits = { concurrency: number; perProviderConcurrency: number };

export type OnRun = { id: string; startedAt: Date; slots: WorkerSlots | null };

export function shareSlots(a: {
  me: string;
  now: Date;
  onRun: readonly OnRun[];
  limits: SlotLimits;
  providers: readonly string[];
  inFlight: WorkerSlots;
}): { part: WorkerSlots; row: WorkerSlots } {
  const sharing = a.onRun.filter((w) => w.id === a.me || w.slots !== null);
  if (!sharing.some((w) => w.id === a.me)) sharing.push({ id: a.me, startedAt: a.now, slots: null });
  sharing.sort(
    (x, y) => x.startedAt.getTime() - y.startedAt.getTime() || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
  );
  const k = sharing.length;
  const i = sharing.findIndex((w) => w.id === a.me);
  const others = sharing.filter((w) => w.id !== a.me);
  const partOf = (limit: number, taken: (s: WorkerSlots) => number) => {
    const fair = Math.floor(limit / k) + (i < limit % k ? 1 : 0);
    const left = limit - others.reduce((sum, w) => sum + (w.slots ? taken(w.slots) : 0), 0);
    return Math.max(0, Math.min(fair, left));
  };
  const part: WorkerSlots = { total: partOf(a.limits.concurrency, (s) => s.total), providers: {} };
  const row: WorkerSlots = { total: Math.max(part.total, a.inFlight.total), providers: {} };
  for (const p of a.providers) {
    part.providers[p] = partOf(a.limits.perProviderConcurrency, (s) => s.providers[p] ?? 0);
    row.providers[p] = Math.max(part.providers[p], a.inFlight.providers[p] ?? 0);
  }
  return { part, row };
}
