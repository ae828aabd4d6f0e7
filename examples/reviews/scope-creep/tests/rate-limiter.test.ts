import { afterEach, describe, expect, it, vi } from "vitest";
import { createRateLimiter } from "../src/rate-limiter";

function fakeClock(start = 0) {
  let time = start;
  return {
    now: () => time,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe("createRateLimiter", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("starts with a full bucket", () => {
    const limiter = createRateLimiter({ capacity: 5, refillPerSecond: 1, now: fakeClock().now });
    expect(limiter.available()).toBe(5);
  });

  it("grants requests until the bucket is empty, then refuses", () => {
    const limiter = createRateLimiter({ capacity: 3, refillPerSecond: 1, now: fakeClock().now });
    expect([limiter.tryRemove(), limiter.tryRemove(), limiter.tryRemove(), limiter.tryRemove()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it("takes several tokens at once", () => {
    const limiter = createRateLimiter({ capacity: 10, refillPerSecond: 1, now: fakeClock().now });
    expect(limiter.tryRemove(4)).toBe(true);
    expect(limiter.available()).toBe(6);
  });

  it("takes nothing when a request is refused", () => {
    const limiter = createRateLimiter({ capacity: 3, refillPerSecond: 1, now: fakeClock().now });
    expect(limiter.tryRemove(5)).toBe(false);
    expect(limiter.available()).toBe(3);
  });

  it("refills continuously at refillPerSecond", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ capacity: 4, refillPerSecond: 2, now: clock.now });
    expect(limiter.tryRemove(4)).toBe(true);
    clock.advance(500);
    expect(limiter.available()).toBe(1);
    clock.advance(750);
    expect(limiter.available()).toBe(2);
  });

  it("never refills above capacity", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ capacity: 4, refillPerSecond: 2, now: clock.now });
    limiter.tryRemove(2);
    clock.advance(3_600_000);
    expect(limiter.available()).toBe(4);
  });

  it("uses Date.now when no clock is given", () => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
    const limiter = createRateLimiter({ capacity: 2, refillPerSecond: 1 });
    expect(limiter.tryRemove(2)).toBe(true);
    vi.setSystemTime(1_000);
    expect(limiter.available()).toBe(1);
  });

  it("rejects a non-positive capacity or refill rate", () => {
    expect(() => createRateLimiter({ capacity: 0, refillPerSecond: 1 })).toThrow(RangeError);
    expect(() => createRateLimiter({ capacity: -1, refillPerSecond: 1 })).toThrow(RangeError);
    expect(() => createRateLimiter({ capacity: 1, refillPerSecond: 0 })).toThrow(RangeError);
    expect(() => createRateLimiter({ capacity: 1, refillPerSecond: Number.NaN })).toThrow(RangeError);
  });
});
