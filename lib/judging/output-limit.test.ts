import { expect, it } from "vitest";
import { isReasoningModel, maxOutputTokensFor } from "./output-limit";

it("reasoning models: gpt-5 and o-series, Gemini 2.5 Pro/Flash; not gpt-4.1, gpt-5-chat, Flash-Lite or Claude", () => {
  const yes = [
    ["openai", "gpt-5"],
    ["openai", "gpt-5-mini-2025-08-07"],
    ["openai", "o4-mini"],
    ["openai", "o3"],
    ["google", "gemini-2.5-pro"],
    ["google", "gemini-2.5-flash"],
    ["google", "gemini-3-pro-preview"],
  ];
  const no = [
    ["openai", "gpt-4.1-mini"],
    ["openai", "gpt-5-chat-latest"],
    ["google", "gemini-2.5-flash-lite"],
    ["google", "gemini-2.0-flash"],
    ["anthropic", "claude-sonnet-4-5"],
    ["local", "gpt-5"],
  ];
  for (const [p, m] of yes) expect(isReasoningModel(p, m), `${p}:${m}`).toBe(true);
  for (const [p, m] of no) expect(isReasoningModel(p, m), `${p}:${m}`).toBe(false);
});

it("the limit: 1,024 by default, 4,096 more for a reasoning model, a judge's own value as it is", () => {
  expect(maxOutputTokensFor("anthropic:claude-sonnet-4-5")).toBe(1024);
  expect(maxOutputTokensFor("openai:gpt-5")).toBe(5120);
  expect(maxOutputTokensFor("openai:gpt-5", { maxOutputTokens: 2000 })).toBe(6096);
  expect(maxOutputTokensFor("openai:gpt-5", { maxOutputTokensByJudge: { "openai:gpt-5": 3000 } })).toBe(3000);
  expect(maxOutputTokensFor("local:llama", { maxOutputTokens: 512 })).toBe(512);
});
