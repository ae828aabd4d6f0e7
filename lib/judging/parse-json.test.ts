import { describe, expect, it } from "vitest";
import { parseJsonLoose, parseJudgment, tooDeepPath } from "./parse-json";

describe("parseJsonLoose (the fallback order: whole text, fenced block, first object)", () => {
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

describe("a judge's answer nested past the depth limit", () => {
  it("is that sample's error naming where, not a stack overflow later", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const r = parseJudgment(`{"score": 5, "reasoning": "x", "evidence": ${deep}}`, [1, 10]);
    expect(r).toEqual({
      ok: false,
      error: "the answer is nested deeper than 100 levels (at evidence.0.0.0.0.0…)",
    });
  });

  it("tooDeepPath walks 100,000 levels without recursion and finds the first too-deep value", () => {
    const v = JSON.parse(`{"ok":[1,{"x":2}],"deep":${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
    expect(tooDeepPath(v)?.slice(0, 3)).toEqual(["deep", 0, 0]);
    expect(tooDeepPath(v)).toHaveLength(100);
    expect(tooDeepPath({ a: { b: [1] } }, 3)).toBeUndefined();
    expect(tooDeepPath({ a: { b: [[1]] } }, 3)).toEqual(["a", "b", 0]);
    expect(tooDeepPath("text")).toBeUndefined();
  });
});
