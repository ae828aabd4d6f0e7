import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { settings as settingsTable } from "@/db/schema";
import { getModel } from "@/lib/providers/get-model";
import { customEndpointSchema, defaultSettings, fieldErrorsOf, settingsSchema } from "@/lib/settings/schema";
import { readSettings, readStoredSettings, writeSettings } from "@/lib/settings/store";
import { tempDir } from "@/lib/testing/fixtures";

// A custom endpoint may only send its own JURY_<NAME>_API_KEY: a dashboard request (a rebinding page,
// anyone holding the token) must not be able to aim another provider's key or the access token at
// a URL of its choosing.

const endpoint = (apiKeyEnv: string | undefined, name = "evil") => ({
  name,
  baseUrl: "http://127.0.0.1:9/v1",
  apiKeyEnv,
  enabled: true,
  models: ["x"],
});

const errorsFor = (endpoints: unknown[]) => {
  const r = settingsSchema.safeParse({ ...defaultSettings, endpoints });
  return r.success ? {} : fieldErrorsOf(r.error);
};

describe("an endpoint's key variable is an allow-list", () => {
  it.each([
    ["OPENAI_API_KEY", /it is the openai provider's key/],
    ["ANTHROPIC_API_KEY", /it is the anthropic provider's key/],
    ["GOOGLE_GENERATIVE_AI_API_KEY", /google provider's key/],
    ["JURY_LOCAL_API_KEY", /local provider's key/],
    ["JURY_ACCESS_TOKEN", /it is the dashboard's access token/],
    ["OLLAMA_AUTH", /not allowed:/],
    ["HOME", /not allowed:/],
    ["jury_evil_api_key", /not allowed:/],
  ])("%s is refused, naming the field and the allowed variable", (name, why) => {
    const errors = errorsFor([endpoint(name)]);
    expect(Object.keys(errors)).toEqual(["endpoints.0.apiKeyEnv"]);
    expect(errors["endpoints.0.apiKeyEnv"]).toMatch(why);
    expect(errors["endpoints.0.apiKeyEnv"]).toContain(`"${name}" is not allowed`);
    expect(errors["endpoints.0.apiKeyEnv"]).toContain('endpoint "evil" may only send JURY_EVIL_API_KEY');
  });

  it("another endpoint's variable is refused too", () => {
    const errors = errorsFor([
      endpoint("JURY_OLLAMA_API_KEY", "ollama"),
      endpoint("JURY_OLLAMA_API_KEY", "evil"),
    ]);
    expect(errors).toEqual({
      "endpoints.1.apiKeyEnv": expect.stringContaining('"JURY_OLLAMA_API_KEY" is not allowed'),
    });
  });

  it("the derived name and no key are accepted; names map dashes to underscores", () => {
    expect(
      errorsFor([endpoint("JURY_EVIL_API_KEY"), endpoint(undefined, "open-router"), endpoint("", "b")]),
    ).toEqual({});
    const ok = customEndpointSchema.parse(endpoint(" JURY_OPEN_ROUTER_API_KEY ", "open-router"));
    expect(ok.apiKeyEnv).toBe("JURY_OPEN_ROUTER_API_KEY");
    expect(customEndpointSchema.parse(endpoint("", "b")).apiKeyEnv).toBeUndefined();
  });

  it("two endpoints may not share a name", () => {
    expect(errorsFor([endpoint(undefined, "a"), endpoint(undefined, "a")])).toEqual({
      "endpoints.1.name": 'Another endpoint is named "a"',
    });
  });

  it("the store refuses to write one", async () => {
    const db = createDb(":memory:");
    await expect(
      (async () =>
        writeSettings(db, { ...defaultSettings, endpoints: [endpoint("OPENAI_API_KEY") as never] }))(),
    ).rejects.toThrow(/JURY_EVIL_API_KEY/);
  });
});

describe("settings stored by an older version", () => {
  it("stay readable; a key variable no longer allowed is reported and never read", async () => {
    const db = createDb(":memory:");
    db.insert(settingsTable)
      .values({
        id: 1,
        data: {
          ...defaultSettings,
          judging: { ...defaultSettings.judging, samples: 5 },
          endpoints: [
            { ...endpoint("OLLAMA_AUTH", "ollama"), baseUrl: "http://127.0.0.1:11434/v1" },
            endpoint(undefined, "plain"),
          ],
        },
      })
      .run();
    const { settings, problems } = await readStoredSettings(db);
    // the rest of the row loads
    expect(settings.judging.samples).toBe(5);
    expect(settings.endpoints.map((e) => e.name)).toEqual(["ollama", "plain"]);
    // the old variable is reported…
    expect(problems).toEqual({
      "endpoints.0.apiKeyEnv": expect.stringMatching(/"OLLAMA_AUTH" is not allowed.*JURY_OLLAMA_API_KEY/),
    });
    // …and not kept: the endpoint now asks for its own variable, and OLLAMA_AUTH is never read
    expect(settings.endpoints[0].apiKeyEnv).toBe("JURY_OLLAMA_API_KEY");
    expect(() => getModel("ollama:x", { settings, env: { OLLAMA_AUTH: "old-secret-value" } })).toThrow(
      /needs JURY_OLLAMA_API_KEY/,
    );
    expect(await readSettings(db)).toEqual(settings);
  });
});

describe("the dashboard's settings action", () => {
  beforeAll(() => {
    process.env.JURY_DB = path.join(tempDir(), "endpoint-keys.db");
  });

  const form = (payload: unknown) => {
    const f = new FormData();
    f.append("payload", JSON.stringify(payload));
    return f;
  };

  it("answers an endpoint naming OPENAI_API_KEY or JURY_ACCESS_TOKEN with a field error, saving nothing", async () => {
    const { saveSettings } = await import("@/app/actions/settings");
    for (const name of ["OPENAI_API_KEY", "JURY_ACCESS_TOKEN"]) {
      const r = await saveSettings(null, form({ ...defaultSettings, endpoints: [endpoint(name)] }));
      expect(r).toMatchObject({
        ok: false,
        error: "Nothing saved: 1 field needs fixing.",
        fieldErrors: {
          "endpoints.0.apiKeyEnv": expect.stringMatching(
            new RegExp(`"${name}" is not allowed.*may only send JURY_EVIL_API_KEY`),
          ),
        },
      });
    }
    const { getDb } = await import("@/db/client");
    expect((await readSettings(getDb())).endpoints).toEqual([]);
  });
});
