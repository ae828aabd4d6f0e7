import { describe, expect, it } from "vitest";
import { newToken, newUserId } from "./auth/tokens";
import { endpointKeyEnv, isSecretEnvName, markSecretEnv, presentEndpointKeys } from "./env/secrets";
import { REDACTED, redactSecrets } from "./redact";

describe("the secret variable list", () => {
  it("names provider keys, the access token, every JURY_*_API_KEY and anything named like a secret", () => {
    for (const n of [
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "GOOGLE_GENERATIVE_AI_API_KEY",
      "JURY_LOCAL_API_KEY",
      "JURY_ACCESS_TOKEN",
      "JURY_OLLAMA_API_KEY",
      "GITHUB_TOKEN",
      "DB_PASSWORD",
      "AWS_SECRET",
    ])
      expect(isSecretEnvName(n), n).toBe(true);
    for (const n of ["PATH", "HOME", "JURY_DB", "JURY_LOCAL_BASE_URL", "OLLAMA_AUTH"])
      expect(isSecretEnvName(n), n).toBe(false);
    // a variable a key was actually read from is a secret whatever its name
    markSecretEnv("OLLAMA_AUTH_FOR_TEST");
    expect(isSecretEnvName("OLLAMA_AUTH_FOR_TEST")).toBe(true);
  });

  it("derives an endpoint's key variable from its name", () => {
    expect(endpointKeyEnv("ollama")).toBe("JURY_OLLAMA_API_KEY");
    expect(endpointKeyEnv("open-router-2")).toBe("JURY_OPEN_ROUTER_2_API_KEY");
  });

  it("lists which endpoint keys are set, by name only", () => {
    const env = { JURY_A_API_KEY: "secret-value-1", JURY_B_API_KEY: "", OPENAI_API_KEY: "secret-value-2" };
    expect(presentEndpointKeys(env)).toEqual(["JURY_A_API_KEY"]);
  });
});

describe("redactSecrets", () => {
  it("removes every secret value, longest first, and follows changes to the environment", () => {
    const env: Record<string, string | undefined> = {
      JURY_OLLAMA_API_KEY: "ollama-key-123456",
      JURY_ACCESS_TOKEN: "token-abcdefgh",
      PATH: "/usr/bin:/bin:/usr/local/bin",
    };
    expect(redactSecrets("a ollama-key-123456 b token-abcdefgh c /usr/bin:/bin:/usr/local/bin", env)).toBe(
      "a [redacted] b [redacted] c /usr/bin:/bin:/usr/local/bin",
    );
    env.JURY_ACCESS_TOKEN = "token-changed-1";
    expect(redactSecrets("token-changed-1 token-abcdefgh", env)).toBe("[redacted] token-abcdefgh");
    env.NEW_SECRET = "brand-new-secret";
    expect(redactSecrets("x brand-new-secret", env)).toBe("x [redacted]");
    // a marked variable is picked up at once
    env.ODD_NAME_FOR_A_KEY_VAR = "odd-name-value-1";
    expect(redactSecrets("odd-name-value-1", env)).toBe("odd-name-value-1");
    markSecretEnv("ODD_NAME_FOR_A_KEY_VAR");
    expect(redactSecrets("odd-name-value-1", env)).toBe("[redacted]");
  });

  it("leaves short values and text without secrets unchanged", () => {
    const env = { SOME_TOKEN: "short", OPENAI_API_KEY: "sk-long-enough-1" };
    expect(redactSecrets("short text", env)).toBe("short text");
    const s = "nothing to see here \\u0041";
    expect(redactSecrets(s, env)).toBe(s);
  });

  it("catches a key spelled with JSON escapes", () => {
    const env = { OPENAI_API_KEY: "sk-long-enough-1" };
    expect(redactSecrets('{"r": "\\u0073k-long-enough-1"}', env)).toBe('{"r": "[redacted]"}');
    expect(redactSecrets('{"r": "sk-long\\u002denough-1 \\n"}', env)).toBe('{"r": "[redacted] \\n"}');
  });
});

describe("redactSecrets and personal tokens", () => {
  it("removes a user's personal token wherever it appears, with or without secret variables", () => {
    const { token } = newToken(newUserId());
    const secret = token.split("_").slice(2).join("_");
    for (const env of [{}, { OPENAI_API_KEY: "sk-long-enough-1" }]) {
      expect(redactSecrets(`Authorization: Bearer ${token}`, env)).toBe(`Authorization: Bearer ${REDACTED}`);
      expect(redactSecrets(`"${token}","${token}"`, env)).toBe(`"${REDACTED}","${REDACTED}"`);
      expect(redactSecrets(`?token=${token}&x=1`, env)).toBe(`?token=${REDACTED}&x=1`);
      expect(redactSecrets(`tok:${token}.`, env)).not.toContain(secret);
    }
  });

  it("catches a personal token spelled with JSON escapes", () => {
    const { token } = newToken(newUserId());
    const escaped = token.replace(/_/g, "\\u005f");
    const out = redactSecrets(`{"t":"${escaped}"}`, {});
    expect(out).toBe(`{"t":"${REDACTED}"}`);
  });

  it("leaves text that only resembles a token alone", () => {
    for (const text of [
      "jury_users add",
      "jury_0123_short",
      "table jury_runs",
      `jury_${"a".repeat(16)}_tooShort`,
    ])
      expect(redactSecrets(text, {})).toBe(text);
  });
});
