import { describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { settings as settingsTable } from "@/db/schema";
import { defaultSettings, enabledJudges, fieldErrorsOf, settingsSchema } from "./schema";
import { readSettings, writeSettings } from "./store";

const withJudging = (patch: Partial<typeof defaultSettings.judging>) => ({
  ...defaultSettings,
  judging: { ...defaultSettings.judging, ...patch },
});

const withAutoPool = (n: number) => ({
  ...defaultSettings,
  memoryJudge: {
    ...defaultSettings.memoryJudge,
    modes: {
      ...defaultSettings.memoryJudge.modes,
      auto: { verification: "strict" as const, max_output: 3, candidate_pool_size: n },
    },
  },
});

describe("settings schema", () => {
  it("has the documented defaults: N = 3, temperature 0.8, memory judge off with its default block", () => {
    expect(defaultSettings.judging.samples).toBe(3);
    expect(defaultSettings.judging.temperature).toBe(0.8);
    expect(defaultSettings.memoryJudge).toEqual({
      enabled: false,
      model: "anthropic:claude-haiku-4-5-20251001",
      timeout_per_call: 3,
      fallback_top_k: 2,
      candidate_pool_size: 15,
      dual_verification: false,
      include_conversation_context: true,
      context_turns: 5,
      // what a promoted study configuration carries: one sample, shuffled order, titles and tags only
      include_body: false,
      shuffle: true,
      samples: 1,
      modes: {
        auto: { verification: "strict", max_output: 3 },
        search: { verification: "lenient", max_output: 10 },
      },
    });
  });

  it.each([
    [withJudging({ samples: 0 }), "judging.samples"],
    [withJudging({ samples: 11 }), "judging.samples"],
    [withJudging({ samples: 2.5 }), "judging.samples"],
    [withJudging({ temperature: 3 }), "judging.temperature"],
    [
      {
        ...defaultSettings,
        providers: { ...defaultSettings.providers, openai: { enabled: true, models: ["  "] } },
      },
      "providers.openai.models.0",
    ],
    [
      {
        ...defaultSettings,
        endpoints: [{ name: "ollama", baseUrl: "not a url", enabled: true, models: ["x"] }],
      },
      "endpoints.0.baseUrl",
    ],
    [
      {
        ...defaultSettings,
        endpoints: [{ name: "openai", baseUrl: "http://x/v1", enabled: true, models: ["x"] }],
      },
      "endpoints.0.name",
    ],
    [withAutoPool(0), "memoryJudge.modes.auto.candidate_pool_size"],
    [withAutoPool(101), "memoryJudge.modes.auto.candidate_pool_size"],
    [withAutoPool(7.5), "memoryJudge.modes.auto.candidate_pool_size"],
  ])("rejects bad input with an error at its field (%#)", (input, field) => {
    const r = settingsSchema.safeParse(input);
    expect(r.success).toBe(false);
    if (!r.success) expect(Object.keys(fieldErrorsOf(r.error))).toContain(field);
  });

  it("takes a mode's own candidate pool size, and none", () => {
    expect(settingsSchema.parse(withAutoPool(8)).memoryJudge.modes.auto.candidate_pool_size).toBe(8);
    expect(settingsSchema.parse(defaultSettings).memoryJudge.modes.auto.candidate_pool_size).toBeUndefined();
  });

  it("lists enabled judges as provider:model, endpoints included", () => {
    const s = {
      ...defaultSettings,
      providers: { ...defaultSettings.providers, openai: { enabled: true, models: ["a", "b"] } },
      endpoints: [
        { name: "ollama", baseUrl: "http://127.0.0.1:11434/v1", enabled: true, models: ["llama3:8b"] },
      ],
    };
    expect(enabledJudges(settingsSchema.parse(s))).toEqual(["openai:a", "openai:b", "ollama:llama3:8b"]);
  });

  it('a model row left blank (just added, not typed into) is no judge in a draft, and never saved as "local:"', () => {
    const draft = {
      ...defaultSettings,
      providers: {
        ...defaultSettings.providers,
        local: { enabled: true, models: ["llama3.1:8b", "", "  "] },
      },
      endpoints: [{ name: "", baseUrl: "", apiKeyEnv: "", enabled: true, models: [""] }],
    };
    // the estimate follows the draft: it lists what a run would call, never "local:, local:"
    expect(enabledJudges(draft)).toEqual(["local:llama3.1:8b"]);
    const parsed = settingsSchema.safeParse({ ...draft, endpoints: [] });
    expect(parsed.success).toBe(false);
    expect(parsed.error && fieldErrorsOf(parsed.error)).toEqual({
      "providers.local.models.1": "Model id cannot be empty",
      "providers.local.models.2": "Model id cannot be empty",
    });
    const db = createDb(":memory:");
    expect(() => writeSettings(db, { ...draft, endpoints: [] })).toThrow(/Model id cannot be empty/);
    expect(enabledJudges(readSettings(db))).toEqual([]);
  });

  it("enables no provider by default, the mock one included; a stored row that enabled mock keeps it", () => {
    expect(enabledJudges(defaultSettings)).toEqual([]);
    const db = createDb(":memory:");
    db.insert(settingsTable)
      .values({ id: 1, data: { providers: { mock: { enabled: true, models: ["judge"] } } } })
      .run();
    expect(enabledJudges(readSettings(db))).toEqual(["mock:judge"]);
  });
});

describe("settings store", () => {
  it("returns defaults on an empty database and round-trips a write", () => {
    const db = createDb(":memory:");
    expect(readSettings(db)).toEqual(defaultSettings);
    const next = withJudging({ samples: 7 });
    writeSettings(db, next);
    expect(readSettings(db).judging.samples).toBe(7);
  });

  it("refuses to write invalid settings and leaves the stored row alone", () => {
    const db = createDb(":memory:");
    writeSettings(db, withJudging({ samples: 4 }));
    expect(() => writeSettings(db, withJudging({ samples: 11 }))).toThrow();
    expect(readSettings(db).judging.samples).toBe(4);
  });

  it("fills keys added since a row was written, and keeps a deleted price deleted", () => {
    const db = createDb(":memory:");
    db.insert(settingsTable)
      .values({
        id: 1,
        data: { judging: { samples: 2 }, prices: { "mock:judge": { inputPerMTok: 0, outputPerMTok: 0 } } },
      })
      .run();
    const s = readSettings(db);
    expect(s.judging.samples).toBe(2);
    expect(s.judging.temperature).toBe(0.8);
    expect(Object.keys(s.prices)).toEqual(["mock:judge"]);
  });
});
