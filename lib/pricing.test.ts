import { describe, expect, it } from "vitest";
import { cacheMinimumTokens, costOf, formatCost, type Price, resolvePrice, uncachedCostOf } from "./pricing";
import { defaultSettings } from "./settings/schema";

const haiku = defaultSettings.prices["anthropic:claude-haiku-4-5-20251001"] as Price;

describe("costOf", () => {
  it("prices Anthropic cache reads at a tenth of input: 1,024 of 1,204 input tokens read from the cache", () => {
    // 180 uncached × $1 + 1,024 read × $0.10 + 95 output × $5, per million tokens
    const usage = { inputTokens: 1204, cacheReadTokens: 1024, outputTokens: 95 };
    expect(costOf(haiku, usage)).toBeCloseTo(0.0007574, 9);
    // what the single-rate formula charged for the same call
    expect(uncachedCostOf(haiku, usage)).toBeCloseTo(0.001679, 9);
  });

  it("prices an Anthropic cache write at the write premium", () => {
    const cost = costOf(haiku, { inputTokens: 5000, cacheWriteTokens: 4800, outputTokens: 0 });
    expect(cost).toBeCloseTo((200 * 1 + 4800 * 1.25) / 1e6, 12);
  });

  it("prices OpenAI and Gemini cached tokens as the cached part of their input", () => {
    const mini = defaultSettings.prices["openai:gpt-5-mini"] as Price;
    expect(costOf(mini, { inputTokens: 1204, cacheReadTokens: 1024, outputTokens: 95 })).toBeCloseTo(
      (180 * 0.25 + 1024 * 0.025 + 95 * 2) / 1e6,
      12,
    );
    const flash = defaultSettings.prices["google:gemini-2.5-flash"] as Price;
    expect(costOf(flash, { inputTokens: 2000, cacheReadTokens: 1500, outputTokens: 10 })).toBeCloseTo(
      (500 * 0.3 + 1500 * 0.03 + 10 * 2.5) / 1e6,
      12,
    );
  });

  it("takes the batch discount off every rate of a batched call, and nothing off a live one", () => {
    const usage = { inputTokens: 1204, cacheReadTokens: 1024, outputTokens: 95 };
    expect(costOf(haiku, usage, { batch: true })).toBeCloseTo(costOf(haiku, usage) / 2, 12);
    const noDiscount: Price = { inputPerMTok: 1, outputPerMTok: 2 };
    expect(costOf(noDiscount, { inputTokens: 10, outputTokens: 10 }, { batch: true })).toBeCloseTo(
      30 / 1e6,
      12,
    );
  });

  it("bills cache tokens at the input rate when a price has no cache rates", () => {
    const plain: Price = { inputPerMTok: 2, outputPerMTok: 8 };
    const usage = { inputTokens: 1000, cacheReadTokens: 900, cacheWriteTokens: 50, outputTokens: 10 };
    expect(costOf(plain, usage)).toBeCloseTo((1000 * 2 + 10 * 8) / 1e6, 12);
  });
});

describe("resolvePrice", () => {
  it("finds a dated snapshot's price under its alias and the alias's under the dated id", () => {
    const prices = defaultSettings.prices;
    expect(resolvePrice(prices, "anthropic:claude-haiku-4-5")).toBe(haiku);
    const aliasOnly = { "anthropic:claude-sonnet-4-5": { inputPerMTok: 3, outputPerMTok: 15 } };
    expect(resolvePrice(aliasOnly, "anthropic:claude-sonnet-4-5-20250929")).toBe(
      aliasOnly["anthropic:claude-sonnet-4-5"],
    );
    const openai = { "openai:gpt-4.1": { inputPerMTok: 2, outputPerMTok: 8 } };
    expect(resolvePrice(openai, "openai:gpt-4.1-2025-04-14")).toBe(openai["openai:gpt-4.1"]);
  });

  it("prefers a judge's own entry, and leaves another model unpriced", () => {
    const own = { inputPerMTok: 9, outputPerMTok: 9 };
    const prices = { ...defaultSettings.prices, "anthropic:claude-haiku-4-5": own };
    expect(resolvePrice(prices, "anthropic:claude-haiku-4-5")).toBe(own);
    expect(resolvePrice(defaultSettings.prices, "anthropic:claude-haiku-4")).toBeUndefined();
    expect(resolvePrice(defaultSettings.prices, "openai:gpt-5")).toBeUndefined();
    // another provider's model of the same name is another model
    expect(resolvePrice(defaultSettings.prices, "local:claude-haiku-4-5")).toBeUndefined();
  });
});

describe("cacheMinimumTokens", () => {
  it("holds each provider's shortest cacheable prompt", () => {
    expect(cacheMinimumTokens("anthropic:claude-sonnet-4-5")).toBe(1024);
    expect(cacheMinimumTokens("anthropic:claude-haiku-4-5")).toBe(4096);
    expect(cacheMinimumTokens("openai:gpt-5-mini")).toBe(1024);
    expect(cacheMinimumTokens("google:gemini-2.5-flash")).toBe(1024);
    expect(cacheMinimumTokens("local:llama3.1:8b")).toBeUndefined();
  });
});

describe("formatCost", () => {
  it("shows a priced call's cost, an unpriced one as unpriced (never $0), a cached one with the cost its call had", () => {
    const c = costOf({ inputPerMTok: 3, outputPerMTok: 15 }, { inputTokens: 1000, outputTokens: 200 });
    expect(formatCost(c)).toBe("$0.00600");
    expect(formatCost(null)).toBe("unpriced");
    expect(formatCost(c, { cached: true })).toBe("$0.00600 · cached");
    expect(formatCost(null, { cached: true })).toBe("unpriced · cached");
    expect(formatCost(0)).toBe("$0.00000");
  });
});
