import { describe, expect, it } from "vitest";
import { sampleLabel } from "./sample-number";

describe("sampleLabel", () => {
  it("numbers a sample from 1, of the N asked per judge, the one way every page shows it", () => {
    expect(sampleLabel(0, 5)).toBe("sample 1 of 5");
    expect(sampleLabel(4, 5)).toBe("sample 5 of 5");
    expect(sampleLabel(0, 1)).toBe("sample 1 of 1");
  });
  it("a sample beyond N (a run re-planned with a smaller N) still says its own number", () => {
    expect(sampleLabel(6, 3)).toBe("sample 7 of 3");
  });
});
