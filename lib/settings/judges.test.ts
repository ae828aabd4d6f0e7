import { describe, expect, it } from "vitest";
import { exitCodeFor } from "../exit-codes";
import { assertJudgesEnabled, judgeSettingProblems } from "./judges";
import { defaultSettings, type Settings } from "./schema";

const settings: Settings = {
  ...defaultSettings,
  providers: { ...defaultSettings.providers, openai: { enabled: true, models: ["gpt-5-mini"] } },
  endpoints: [
    { name: "router", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: undefined, enabled: false, models: ["m"] },
    { name: "box", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: undefined, enabled: true, models: ["m"] },
  ],
};

const refusal = (judges: string[]) => {
  try {
    assertJudgesEnabled(settings, judges);
  } catch (err) {
    return { code: exitCodeFor(err), message: (err as Error).message };
  }
  return undefined;
};

describe("assertJudgesEnabled", () => {
  it("accepts judges of enabled providers and endpoints, whatever the model (Ollama tags have colons)", () => {
    expect(refusal(["openai:gpt-5", "box:llama3.1:8b"])).toBeUndefined();
  });

  it("--judges naming a disabled provider is a usage error (exit 2) naming the flag, the judge and the setting", () => {
    expect(refusal(["local:x"])).toEqual({
      code: 2,
      message:
        "--judges: local:x: the local provider is disabled in Settings (enable it: jury settings set providers.local.enabled true)",
    });
  });

  it("names a disabled endpoint by its index, an unknown provider, and a judge not written provider:model", () => {
    expect(judgeSettingProblems(settings, ["router:m", "nope:m", "local:", "openai:gpt-5"])).toEqual([
      'router:m: the endpoint "router" is disabled in Settings (enable it: jury settings set endpoints.0.enabled true)',
      'nope:m: no provider or endpoint is named "nope" (there are openai, anthropic, google, local, mock, router, box)',
      '"local:" must be written provider:model, like openai:gpt-5-mini',
    ]);
    expect(refusal(["router:m", "local:"])?.message).toMatch(
      /^--judges: 2 judges cannot be used:\n {2}router:m/,
    );
  });
});
