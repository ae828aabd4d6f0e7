import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { getSettingsData, saveSettingsData } from "@/db/queries/settings";
import { settings as settingsTable } from "@/db/schema";
import { freshStore, type Store, storeKinds } from "../testing/stores";
import { defaultSettings, enabledJudges, fieldErrorsOf, settingsSchema } from "./schema";
import { readSettings, readStoredSettings, writePromotion, writeSettings } from "./store";

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

  it('a model row left blank (just added, not typed into) is no judge in a draft, and never saved as "local:"', async () => {
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
    await expect(writeSettings(db, { ...draft, endpoints: [] })).rejects.toThrow(/Model id cannot be empty/);
    expect(enabledJudges(await readSettings(db))).toEqual([]);
  });

  it("enables no provider by default, the mock one included; a stored row that enabled mock keeps it", async () => {
    expect(enabledJudges(defaultSettings)).toEqual([]);
    const db = createDb(":memory:");
    db.insert(settingsTable)
      .values({ id: 1, data: { providers: { mock: { enabled: true, models: ["judge"] } } } })
      .run();
    expect(enabledJudges(await readSettings(db))).toEqual(["mock:judge"]);
  });
});

describe.each(storeKinds())("settings store on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("returns defaults on an empty database and round-trips a write", async () => {
    const { db } = store;
    expect(await readSettings(db)).toEqual(defaultSettings);
    const next = withJudging({ samples: 7 });
    await writeSettings(db, next);
    expect((await readSettings(db)).judging.samples).toBe(7);
  });

  it("refuses to write invalid settings and leaves the stored row alone", async () => {
    const { db } = store;
    await writeSettings(db, withJudging({ samples: 4 }));
    await expect(writeSettings(db, withJudging({ samples: 11 }))).rejects.toThrow();
    expect((await readSettings(db)).judging.samples).toBe(4);
  });

  it("fills keys added since a row was written, and keeps a deleted price deleted", async () => {
    const { db } = store;
    await saveSettingsData(db, {
      judging: { samples: 2 },
      prices: { "mock:judge": { inputPerMTok: 0, outputPerMTok: 0 } },
    });
    const s = await readSettings(db);
    expect(s.judging.samples).toBe(2);
    expect(s.judging.temperature).toBe(0.8);
    expect(Object.keys(s.prices)).toEqual(["mock:judge"]);
  });

  it("reports what in the stored row does not validate, and still loads the rest", async () => {
    const { db } = store;
    await saveSettingsData(db, { judging: { samples: 5 }, provenance: { "no such path": { source: "x" } } });
    const { settings, problems } = await readStoredSettings(db);
    expect(settings.judging.samples).toBe(5);
    expect(settings.provenance).toEqual({});
    expect(Object.keys(problems)).toEqual(["provenance.no such path"]);
  });

  it("a promotion records its provenance; a later hand edit of the promoted value marks it overridden", async () => {
    const { db } = store;
    const at = new Date(0).toISOString();
    const stored = await writePromotion(
      db,
      "promote.panel",
      (s) => ({ ...s, reviewJudges: ["mock:judge"] }),
      { source: "run", id: "run_1", label: "a run", figures: {}, at },
      { reviewJudges: (next) => next.reviewJudges },
    );
    expect(stored.reviewJudges).toEqual(["mock:judge"]);
    expect(stored.provenance.reviewJudges).toMatchObject({
      source: "run",
      id: "run_1",
      value: ["mock:judge"],
    });
    expect(await readSettings(db)).toEqual(stored);
    // a hand edit cannot write provenance, and keeps the stored one
    await writeSettings(db, { ...stored, reviewJudges: ["mock:other"], provenance: {} });
    const after = await readSettings(db);
    expect(after.reviewJudges).toEqual(["mock:other"]);
    expect(after.provenance.reviewJudges).toMatchObject({ id: "run_1", value: ["mock:judge"] });
    expect(after.provenance.reviewJudges?.overriddenAt).toEqual(expect.any(String));
  });

  it("writes made at once each land whole: none overwrites another's half-read row", async () => {
    const { db } = store;
    await Promise.all(
      [1, 2, 3, 4].map((n) =>
        writePromotion(
          db,
          "promote.panel",
          (s) => ({ ...s, criteriaPanels: { ...s.criteriaPanels, [`c${n}`]: ["mock:judge"] } }),
          { source: "run", id: `run_${n}`, label: "a run", figures: {}, at: new Date(0).toISOString() },
          { [`criteriaPanels.c${n}`]: () => ["mock:judge"] },
        ),
      ),
    );
    const s = await readSettings(db);
    expect(Object.keys(s.criteriaPanels).sort()).toEqual(["c1", "c2", "c3", "c4"]);
    expect(Object.keys(s.provenance).sort()).toEqual([
      "criteriaPanels.c1",
      "criteriaPanels.c2",
      "criteriaPanels.c3",
      "criteriaPanels.c4",
    ]);
    expect(await getSettingsData(db)).toBeDefined();
  });
});
