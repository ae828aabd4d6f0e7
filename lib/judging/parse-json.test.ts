import { describe, expect, it } from "vitest";
import { parseJsonLoose, parseJudgment } from "./parse-json";

describe("parseJsonLoose (seed 004's fallback order)", () => {
  it.each([
    ['{"score": 7}', { score: 7 }],
    ['```json\n{"score": 6, "reasoning": "ok"}\n```', { score: 6, reasoning: "ok" }],
    ['Sure! {"score": 3, "reasoning": "has } brace"} Anything else?', { score: 3, reasoning: "has } brace" }],
    ['first {"score": 1} then {"score": 2}', { score: 1 }],
  ])("%s", (text, want) => expect(parseJsonLoose(text)).toEqual(want));

  it("returns undefined when nothing parses", () => {
    expect(parseJsonLoose("no json here {")).toBeUndefined();
  });
});

describe("parseJudgment", () => {
  it("rejects a score outside the scale instead of clamping it", () => {
    expect(parseJudgment('{"score": 11}', [1, 10])).toEqual({
      ok: false,
      error: "score 11 is outside the scale 1–10",
    });
    expect(parseJudgment('{"score": 0}', [1, 10]).ok).toBe(false);
    expect(parseJudgment('{"score": 10, "reasoning": "top"}', [1, 10])).toMatchObject({
      ok: true,
      score: 10,
      reasoning: "top",
    });
  });
  it("rejects a missing or non-numeric score", () => {
    expect(parseJudgment('{"reasoning": "x"}', [1, 10]).ok).toBe(false);
    expect(parseJudgment('{"score": "high"}', [1, 10]).ok).toBe(false);
    expect(parseJudgment("[1,2]", [1, 10]).ok).toBe(false);
  });
});
