import { describe, expect, it } from "vitest";
import { costSoFar } from "./cost-text";

describe("a run's cost so far", () => {
  it("says a mock-only run costs nothing, instead of $0.0000", () => {
    expect(costSoFar({ costUsd: 0, unpriced: false, free: true })).toBe("no cost (mock judges)");
  });
  it("is a lower bound when a judge is unpriced, and a plain figure otherwise", () => {
    expect(costSoFar({ costUsd: 0.01234, unpriced: true, free: false })).toBe("$0.0123 + unpriced so far");
    expect(costSoFar({ costUsd: 0.5, unpriced: false, free: false })).toBe("$0.5000 so far");
  });
});
