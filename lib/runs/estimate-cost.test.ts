import { describe, expect, it } from "vitest";
import { costOf } from "../pricing";
import { defaultSettings } from "../settings/schema";
import { estimateRun, expectedUsage, type SuiteSummary } from "./estimate";
import { unpricedJudges } from "./plan-run";

const prices = defaultSettings.prices;
/** 10 cases × 1 LLM criterion, prompts of about 5,000 tokens: past every provider's cache minimum */
const suite: SuiteSummary = {
  dir: "/s",
  name: "s",
  cases: 10,
  llmCriteria: 1,
  deterministicCriteria: 0,
  meanPromptChars: 20_000,
};

describe("the estimate prices the prompt-cache hits it expects, by the billing formula", () => {
  it("with caching on, each prompt's first sample writes and the other samples read", () => {
    const u = expectedUsage("anthropic:claude-haiku-4-5", 50, 10, 5000, {});
    expect(u).toEqual({
      inputTokens: 250_000,
      outputTokens: 50 * 80,
      cacheReadTokens: 200_000,
      cacheWriteTokens: 50_000,
    });
    // OpenAI and Google bill the first call as ordinary input
    expect(expectedUsage("openai:gpt-5-mini", 50, 10, 5000, {}).cacheWriteTokens).toBe(0);
    // under the provider's minimum, or with caching off, or a provider without prompt caching: nothing read
    expect(expectedUsage("anthropic:claude-haiku-4-5", 50, 10, 3000, {}).cacheReadTokens).toBeUndefined();
    expect(
      expectedUsage("openai:gpt-5-mini", 50, 10, 5000, { promptCaching: false }).cacheReadTokens,
    ).toBeUndefined();
    expect(expectedUsage("local:a", 50, 10, 5000, {}).cacheReadTokens).toBeUndefined();
  });

  it("costs less with caching, and half again with batch for OpenAI and Anthropic judges only", () => {
    const judges = ["anthropic:claude-haiku-4-5", "openai:gpt-5-mini", "google:gemini-2.5-flash"];
    const off = estimateRun(suite, judges, 5, prices, 8, {}, undefined, { promptCaching: false });
    const on = estimateRun(suite, judges, 5, prices, 8, {}, undefined, {});
    const batch = estimateRun(suite, judges, 5, prices, 8, {}, undefined, { batch: true });
    expect(on.cacheReadTokens).toBe(3 * 40 * 5000);
    expect(on.costUsd as number).toBeLessThan((off.costUsd as number) * 0.6);
    const google = estimateRun(suite, ["google:gemini-2.5-flash"], 5, prices, 8);
    const googleBatch = estimateRun(suite, ["google:gemini-2.5-flash"], 5, prices, 8, {}, undefined, {
      batch: true,
    });
    // Google runs live in batch mode: its estimate does not change
    expect(googleBatch.costUsd).toBe(google.costUsd);
    const haiku = prices["anthropic:claude-haiku-4-5-20251001"];
    const u = expectedUsage("anthropic:claude-haiku-4-5", 50, 10, 5000, {});
    expect((on.costUsd as number) - (batch.costUsd as number)).toBeCloseTo(
      costOf(haiku, u) / 2 +
        costOf(prices["openai:gpt-5-mini"], expectedUsage("openai:gpt-5-mini", 50, 10, 5000, {})) / 2,
      12,
    );
  });

  it("an alias is priced by its dated id: not unpriced, in the estimate or the run", () => {
    expect(unpricedJudges(["anthropic:claude-haiku-4-5"], prices)).toEqual([]);
    const e = estimateRun(suite, ["anthropic:claude-haiku-4-5"], 1, prices, 8);
    expect(e.unpricedJudges).toEqual([]);
    expect(e.costUsd).toBeGreaterThan(0);
    expect(unpricedJudges(["anthropic:claude-opus-9"], prices)).toEqual(["anthropic:claude-opus-9"]);
  });
});
