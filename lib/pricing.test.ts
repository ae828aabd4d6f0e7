import { describe, expect, it } from "vitest";
import { costOf, formatCost } from "./pricing";

describe("formatCost", () => {
  it("shows a priced call's cost, an unpriced one as unpriced (never $0), a cached one with the cost its call had", () => {
    const c = costOf({ inputPerMTok: 3, outputPerMTok: 15 }, 1000, 200);
    expect(formatCost(c)).toBe("$0.00600");
    expect(formatCost(null)).toBe("unpriced");
    expect(formatCost(c, { cached: true })).toBe("$0.00600 · cached");
    expect(formatCost(null, { cached: true })).toBe("unpriced · cached");
    expect(formatCost(0)).toBe("$0.00000");
  });
});
