import path from "node:path";
import { describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { defaultSettings, type Settings } from "../settings/schema";
import { readSettings } from "../settings/store";
import { tempDir } from "../testing/fixtures";
import { runJurySync } from "../testing/run-jury";
import { applySetting, coerceValue, flattenSettings, resolvePath } from "./settings";

const fresh = () => path.join(tempDir(), "s.db");
const jury = (db: string, ...args: string[]) => runJurySync(["settings", ...args], { env: { JURY_DB: db } });

describe("jury settings", () => {
  it("set stores a valid value where the Settings page reads it, and get and list show it", async () => {
    const db = fresh();
    const set = jury(db, "set", "judging.samples", "5");
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe("judging.samples = 5 (was 3)\n");
    expect((await readSettings(createDb(db))).judging.samples).toBe(5);
    expect(jury(db, "get", "judging.samples").stdout).toBe("5\n");
    expect(jury(db, "list").stdout).toContain("judging.samples = 5\n");
    expect(JSON.parse(jury(db, "list", "--json").stdout).judging.samples).toBe(5);
    // the bare command prints the JSON, as the README has it
    expect(JSON.parse(jury(db).stdout).judging.samples).toBe(5);
  });

  it("an invalid value is a usage error naming the field and the value, and changes nothing", async () => {
    const db = fresh();
    const r = jury(db, "set", "judging.samples", "11");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('judging.samples = "11" is not valid (judging.samples: N must be at most 10)');
    expect((await readSettings(createDb(db))).judging.samples).toBe(defaultSettings.judging.samples);
    const t = jury(db, "set", "judging.temperature", "hot");
    expect([t.code, t.stderr]).toEqual([
      2,
      expect.stringContaining('judging.temperature: expected a number, got "hot"'),
    ]);
    const b = jury(db, "set", "providers.local.enabled", "maybe");
    expect([b.code, b.stderr]).toEqual([
      2,
      expect.stringContaining("providers.local.enabled: expected true or false"),
    ]);
    const u = jury(db, "set", "judging.nope", "1");
    expect([u.code, u.stderr]).toEqual([2, expect.stringContaining('No setting "judging.nope"')]);
  });

  it("booleans, lists and a new price (a key with dots) are read as the field's type", async () => {
    const db = fresh();
    expect(jury(db, "set", "providers.local.enabled", "yes").code).toBe(0);
    expect(jury(db, "set", "providers.local.models", '["llama3.1:8b","qwen3:8b"]').code).toBe(0);
    const p = jury(db, "set", "prices.openai:gpt-4.1", '{"inputPerMTok":2,"outputPerMTok":8}');
    expect(p.code, p.stderr).toBe(0);
    const s = await readSettings(createDb(db));
    expect(s.providers.local).toEqual({ enabled: true, models: ["llama3.1:8b", "qwen3:8b"] });
    expect(s.prices["openai:gpt-4.1"]).toEqual({ inputPerMTok: 2, outputPerMTok: 8 });
    expect(jury(db, "get", "prices.openai:gpt-4.1.outputPerMTok").stdout).toBe("8\n");
    const bad = jury(db, "set", "prices.openai:gpt-4.1.inputPerMTok", "-1");
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringContaining("prices.openai:gpt-4.1.inputPerMTok"),
    ]);
  });
});

describe("settings paths and values", () => {
  it("resolves keys containing dots by the longest existing key", () => {
    expect(resolvePath(defaultSettings, "prices.google:gemini-2.5-flash.inputPerMTok")).toEqual([
      "prices",
      "google:gemini-2.5-flash",
      "inputPerMTok",
    ]);
    expect(resolvePath(defaultSettings, "providers.openai.models.0")).toEqual([
      "providers",
      "openai",
      "models",
      "0",
    ]);
    expect(() => resolvePath(defaultSettings, "judging..samples")).toThrow(/not a settings path/);
    expect(() => resolvePath(defaultSettings, "providers.nope.enabled")).toThrow(
      /No setting "providers.nope.enabled"/,
    );
  });

  it("coerces by the current type, strictly", () => {
    expect(coerceValue("x", "3", 1)).toBe(3);
    expect(() => coerceValue("x", "3a", 1)).toThrow('x: expected a number, got "3a"');
    expect(coerceValue("x", "0", true)).toBe(false);
    expect(coerceValue("x", "123", "text")).toBe("123");
    expect(() => coerceValue("x", "[1,", [])).toThrow(/expected a JSON list/);
  });

  it("applySetting validates with the Settings page's schema: an endpoint may only send its own key", () => {
    const withEndpoint: Settings = {
      ...defaultSettings,
      endpoints: [
        {
          name: "router",
          baseUrl: "http://127.0.0.1:9/v1",
          apiKeyEnv: undefined,
          enabled: true,
          models: ["m"],
        },
      ],
    };
    expect(() => applySetting(withEndpoint, "endpoints.0.apiKeyEnv", "OPENAI_API_KEY")).toThrow(
      /endpoints\.0\.apiKeyEnv = "OPENAI_API_KEY" is not valid \(endpoints\.0\.apiKeyEnv: Key variable "OPENAI_API_KEY" is not allowed/,
    );
    expect(
      applySetting(withEndpoint, "endpoints.0.apiKeyEnv", "JURY_ROUTER_API_KEY").next.endpoints[0].apiKeyEnv,
    ).toBe("JURY_ROUTER_API_KEY");
  });

  it("flattens to one line per leaf", () => {
    const lines = flattenSettings(defaultSettings).map(([k]) => k);
    expect(lines).toContain("judging.samples");
    expect(lines).toContain("providers.openai.models");
    expect(lines).toContain("endpoints");
  });
});
