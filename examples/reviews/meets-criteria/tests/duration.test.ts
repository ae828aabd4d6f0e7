import { describe, expect, it } from "vitest";
import { parseDuration } from "../src/duration";

describe("parseDuration", () => {
  it.each([
    ["250ms", 250],
    ["90s", 90_000],
    ["5m", 300_000],
    ["2h", 7_200_000],
    ["1d", 86_400_000],
  ])("parses %s", (input, expected) => {
    expect(parseDuration(input)).toBe(expected);
  });

  it("accepts decimal amounts", () => {
    expect(parseDuration("1.5h")).toBe(5_400_000);
    expect(parseDuration("0.5s")).toBe(500);
  });

  it("sums compound durations", () => {
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("2m15s")).toBe(135_000);
    expect(parseDuration("1d2h3m4s5ms")).toBe(93_784_005);
  });

  it("ignores surrounding whitespace", () => {
    expect(parseDuration("  45s\n")).toBe(45_000);
  });

  it.each(["", "   ", "10", "5w", "-5s", "1h 30m", "h", "1.5.2s"])("rejects %j", (input) => {
    expect(() => parseDuration(input)).toThrow(/Invalid duration/);
  });

  it("names the input in the error", () => {
    expect(() => parseDuration("soon")).toThrow('Invalid duration: "soon"');
  });
});
