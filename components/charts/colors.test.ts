import { describe, expect, it } from "vitest";
import { DETERMINISTIC_COLOR, JUDGE_PALETTE, judgeColor, judgeColors, kindColor } from "./colors";

describe("judge colours", () => {
  it("a judge's colour depends on its name only: the same on every chart and page", () => {
    expect(judgeColor("local:a")).toBe(judgeColor("local:a"));
    expect(judgeColors(["local:a", "openai:gpt-5-mini"]).get("local:a")).toBe(judgeColor("local:a"));
    expect(judgeColors(["local:zzz", "local:a"]).get("local:a")).toBe(judgeColor("local:a"));
    expect(judgeColor("deterministic")).toBe(DETERMINISTIC_COLOR);
  });

  it("the judges of one chart never share a colour, up to the palette's size", () => {
    const judges = Array.from({ length: JUDGE_PALETTE.length }, (_, i) => `local:judge-${i}`);
    const colors = judgeColors(judges);
    expect(new Set(colors.values()).size).toBe(judges.length);
    // two names that hash to the same hue: the later one by name moves, the earlier keeps its own
    const base = judgeColor("local:a");
    const twin = Array.from({ length: 500 }, (_, i) => `local:x${i}`).find((j) => judgeColor(j) === base)!;
    const pair = judgeColors([twin, "local:a"]);
    expect(pair.get("local:a")).toBe(base);
    expect(pair.get(twin)).not.toBe(base);
  });

  it("study configuration kinds have fixed hues", () => {
    expect(new Set(["BM25", "single judge", "dual strict", "dual lenient"].map(kindColor)).size).toBe(4);
  });
});
