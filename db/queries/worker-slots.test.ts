import { describe, expect, it } from "vitest";
import type { WorkerSlots } from "../schema";
import { type OnRun, shareSlots } from "./worker-slots";

const t = (ms: number) => new Date(1_700_000_000_000 + ms);
const limits = { concurrency: 32, perProviderConcurrency: 20 };

describe("shareSlots", () => {
  it("gives the first come the remainder: 32 over 3 is 11, 11, 10", () => {
    const onRun: OnRun[] = [
      { id: "b", startedAt: t(1), slots: { total: 0, providers: {} } },
      { id: "a", startedAt: t(0), slots: { total: 0, providers: {} } },
      { id: "c", startedAt: t(2), slots: { total: 0, providers: {} } },
    ];
    const part = (me: string) =>
      shareSlots({ me, now: t(3), onRun, limits, providers: ["x"], inFlight: { total: 0, providers: {} } })
        .part;
    expect(["a", "b", "c"].map((me) => part(me).total)).toEqual([11, 11, 10]);
    expect(["a", "b", "c"].map((me) => part(me).providers.x)).toEqual([7, 7, 6]);
  });

  it("a worker whose part is null does not count; the asking one always does", () => {
    const onRun: OnRun[] = [{ id: "idle", startedAt: t(0), slots: null }];
    const got = shareSlots({
      me: "new",
      now: t(1),
      onRun,
      limits,
      providers: [],
      inFlight: { total: 0, providers: {} },
    });
    expect(got.part.total).toBe(32);
  });

  it("its row never says less than its calls in flight", () => {
    const onRun: OnRun[] = [
      { id: "a", startedAt: t(0), slots: { total: 32, providers: { x: 20 } } },
      { id: "b", startedAt: t(1), slots: { total: 0, providers: { x: 0 } } },
    ];
    const got = shareSlots({
      me: "a",
      now: t(2),
      onRun,
      limits,
      providers: ["x"],
      inFlight: { total: 30, providers: { x: 18 } },
    });
    expect(got.part).toEqual({ total: 16, providers: { x: 10 } });
    expect(got.row).toEqual({ total: 30, providers: { x: 18 } });
  });

  it("whatever order workers ask in and whatever they run, the rows never add up past the limits", () => {
    // a seeded walk: workers come, go, ask for their part and run at most their part
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    type W = {
      id: string;
      startedAt: Date;
      row: WorkerSlots | null;
      limit: WorkerSlots;
      running: WorkerSlots;
    };
    const zero = (): WorkerSlots => ({ total: 0, providers: { x: 0, y: 0 } });
    const workers: W[] = [];
    let clock = 0;
    for (let step = 0; step < 5000; step++) {
      const r = rand(10);
      if (r === 0 && workers.length < 6) {
        workers.push({ id: `w${step}`, startedAt: t(clock++), row: null, limit: zero(), running: zero() });
      } else if (r === 1 && workers.length > 0) {
        workers.splice(rand(workers.length), 1); // a worker leaves (its row is removed with it)
      } else if (workers.length > 0) {
        const w = workers[rand(workers.length)];
        if (r < 6) {
          // it runs some calls within its limit, or ends some
          for (const p of ["x", "y"]) {
            const target = rand(Math.max(1, w.limit.providers[p] + 1));
            const now = w.running.providers[p];
            const next = target > now ? Math.min(target, now + (w.limit.total - w.running.total)) : target;
            w.running.total += next - now;
            w.running.providers[p] = next;
          }
        } else {
          const wants = rand(5) > 0;
          const got = shareSlots({
            me: w.id,
            now: t(clock++),
            onRun: workers.map((o) => ({ id: o.id, startedAt: o.startedAt, slots: o.row })),
            limits,
            providers: ["x", "y"],
            inFlight: w.running,
          });
          w.row = wants || w.running.total > 0 ? got.row : null;
          w.limit = w.row ? got.part : zero();
        }
      }
      const sum = (f: (w: W) => number) => workers.reduce((n, w) => n + f(w), 0);
      // what runs is within each row, and the rows within the limits
      for (const w of workers) expect(w.running.total).toBeLessThanOrEqual(w.row?.total ?? 0);
      expect(sum((w) => w.row?.total ?? 0)).toBeLessThanOrEqual(limits.concurrency);
      for (const p of ["x", "y"])
        expect(sum((w) => w.row?.providers[p] ?? 0)).toBeLessThanOrEqual(limits.perProviderConcurrency);
    }
  });
});
