import { describe, expect, it } from "vitest";
import { Limiter } from "./limiter";

const tick = () => new Promise((r) => setImmediate(r));

describe("Limiter", () => {
  it("runs at most its limit at once; a raised limit starts the waiting, a lowered one starts none until below it", async () => {
    const l = new Limiter(2);
    const ends: (() => void)[] = [];
    let peak = 0;
    const job = () =>
      l.run(async () => {
        peak = Math.max(peak, l.running);
        await new Promise<void>((r) => ends.push(r));
      });
    const all = Array.from({ length: 6 }, job);
    await tick();
    expect(l.running).toBe(2);
    l.setLimit(4);
    await tick();
    expect(l.running).toBe(4);
    l.setLimit(1);
    ends.shift()?.(); // one ends: 3 run, above the new limit, so none starts
    await tick();
    expect(l.running).toBe(3);
    for (let i = 0; i < 3; i++) ends.shift()?.();
    await tick();
    expect(l.running).toBe(1); // one of the two waiting started
    while (ends.length) {
      ends.shift()?.();
      await tick();
    }
    await Promise.all(all);
    expect(peak).toBe(4);
    expect(l.running).toBe(0);
  });

  it("a place freed goes to the first waiting, not to a caller that comes meanwhile", async () => {
    const l = new Limiter(1);
    const order: string[] = [];
    let release!: () => void;
    const first = l.run(() => new Promise<void>((r) => (release = r)));
    const second = l.run(async () => {
      order.push("waiting");
    });
    await tick();
    release();
    const third = l.run(async () => {
      order.push("late");
    });
    await Promise.all([first, second, third]);
    expect(order).toEqual(["waiting", "late"]);
  });
});
