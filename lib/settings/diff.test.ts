import { describe, expect, it } from "vitest";
import { describeChange, diffSettings } from "./diff";
import { defaultSettings, type Settings } from "./schema";

const clone = (s: Settings): Settings => structuredClone(s);

describe("diffSettings", () => {
  it("is empty when nothing changed", () => {
    expect(diffSettings(defaultSettings, clone(defaultSettings))).toEqual([]);
  });

  it("names each changed value with its value before and after", () => {
    const next = clone(defaultSettings);
    next.judging.samples = 5;
    next.providers.openai.models = ["gpt-5-mini", "gpt-5"];
    next.criteriaPanels = { correctness: ["openai:gpt-5-mini"] };
    expect(diffSettings(defaultSettings, next)).toEqual([
      { path: "providers.openai.models", before: ["gpt-5-mini"], after: ["gpt-5-mini", "gpt-5"] },
      { path: "judging.samples", before: 3, after: 5 },
      { path: "criteriaPanels.correctness", after: ["openai:gpt-5-mini"] },
    ]);
  });

  it("compares endpoints by name, and never records a key variable, only that it changed", () => {
    const before = clone(defaultSettings);
    before.endpoints = [
      {
        name: "ollama",
        baseUrl: "http://127.0.0.1:11434/v1",
        apiKeyEnv: undefined,
        enabled: true,
        models: ["llama"],
      },
      {
        name: "router",
        baseUrl: "https://router.example/v1",
        apiKeyEnv: "JURY_ROUTER_API_KEY",
        enabled: true,
        models: ["m"],
      },
    ];
    const after = clone(before);
    // reordered, one key variable set, one endpoint removed and one added
    after.endpoints = [
      { ...before.endpoints[0], apiKeyEnv: "JURY_OLLAMA_API_KEY" },
      {
        name: "vllm",
        baseUrl: "https://vllm.example/v1",
        apiKeyEnv: "JURY_VLLM_API_KEY",
        enabled: false,
        models: [],
      },
    ];
    const changes = diffSettings(before, after);
    expect(changes).toContainEqual({ path: "endpoints.ollama.apiKeyEnv", redacted: true });
    expect(changes).toContainEqual({ path: "endpoints.router.apiKeyEnv", redacted: true });
    expect(changes).toContainEqual({ path: "endpoints.vllm.apiKeyEnv", redacted: true });
    expect(changes).toContainEqual({ path: "endpoints.vllm.baseUrl", after: "https://vllm.example/v1" });
    expect(changes).toContainEqual({ path: "endpoints.router.name", before: "router" });
    expect(changes.some((c) => c.path.startsWith("endpoints.ollama.baseUrl"))).toBe(false);
    expect(JSON.stringify(changes)).not.toMatch(/JURY_\w+_API_KEY/);
  });

  it("never records a URL that carries a user, a password or a query", () => {
    const before = clone(defaultSettings);
    before.endpoints = [
      { name: "x", baseUrl: "https://x.example/v1", apiKeyEnv: undefined, enabled: true, models: [] },
    ];
    const after = clone(before);
    after.endpoints[0].baseUrl = "https://bob:hunter2@x.example/v1?api_key=sk-live-123";
    const changes = diffSettings(before, after);
    expect(changes).toEqual([{ path: "endpoints.x.baseUrl", redacted: true }]);
    expect(JSON.stringify(changes)).not.toContain("hunter2");
    expect(JSON.stringify(changes)).not.toContain("sk-live-123");
  });

  it("treats fields named like a secret as credentials wherever they are, but not max output tokens", () => {
    const changes = diffSettings(
      { a: { token: "t1", password: "p1", clientSecret: "s1" }, judging: { maxOutputTokens: 1 } },
      { a: { token: "t2", password: "p2", clientSecret: "s2" }, judging: { maxOutputTokens: 2 } },
    );
    expect(changes).toEqual([
      { path: "a.token", redacted: true },
      { path: "a.password", redacted: true },
      { path: "a.clientSecret", redacted: true },
      { path: "judging.maxOutputTokens", before: 1, after: 2 },
    ]);
  });

  it("leaves provenance out and reads a first save (nothing stored) as every value added", () => {
    const next = clone(defaultSettings);
    next.provenance = {
      reviewJudges: { source: "run", id: "run_1", figures: {}, at: new Date(0).toISOString(), value: [] },
    };
    const changes = diffSettings(undefined, next);
    expect(changes.some((c) => c.path.startsWith("provenance"))).toBe(false);
    expect(changes).toContainEqual({ path: "judging.samples", after: 3 });
  });

  it("describes a change in one line", () => {
    expect(describeChange({ path: "judging.samples", before: 3, after: 5 })).toBe("judging.samples: 3 → 5");
    expect(describeChange({ path: "criteriaPanels.c", after: ["a:b"] })).toBe(
      'criteriaPanels.c: (none) → ["a:b"]',
    );
    expect(describeChange({ path: "endpoints.x.apiKeyEnv", redacted: true })).toBe(
      "endpoints.x.apiKeyEnv: changed (value not recorded)",
    );
  });
});
