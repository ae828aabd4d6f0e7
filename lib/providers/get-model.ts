import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { LanguageModel } from "ai";
import {
  endpointKeyEnv,
  LOCAL_API_KEY_ENV,
  LOCAL_BASE_URL_ENV,
  markSecretEnv,
  PROVIDER_KEY_ENV,
} from "../env/secrets";
import { JuryError } from "../errors";
import type { Settings } from "../settings/schema";
import { guardedFetch, guardFetch, keepAliveFetch } from "./keep-alive-fetch";
import { createMockModel } from "./mock-model";

type Env = Record<string, string | undefined>;

/** The env vars each built-in provider reads. Only names live here; values stay in the environment. */
export const providerKeyEnv = PROVIDER_KEY_ENV;
export { LOCAL_API_KEY_ENV, LOCAL_BASE_URL_ENV };

/**
 * Where each built-in provider's key goes: its SDK's default URL, fixed here so that no setting and
 * no variable the SDK would read (OPENAI_BASE_URL, ANTHROPIC_BASE_URL) sends the key elsewhere. For an
 * OpenAI-compatible proxy, add a named endpoint with its own key variable.
 */
export const BUILTIN_BASE_URLS = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
  google: "https://generativelanguage.googleapis.com/v1beta",
} as const;

export function parseJudgeId(id: string): { provider: string; model: string } {
  const i = id.indexOf(":");
  if (i <= 0 || i === id.length - 1) {
    throw new JuryError(
      "invalid:judge",
      `Judge "${id}" must be written provider:model, like openai:gpt-5-mini`,
    );
  }
  return { provider: id.slice(0, i), model: id.slice(i + 1) };
}

type ModelFactory = (spec: string) => LanguageModel;
let override: ModelFactory | undefined;

/** Tests swap in mock models here, and nowhere else. Pass undefined to restore. */
export function setModelOverride(factory: ModelFactory | undefined): void {
  override = factory;
  cache.clear();
}

const cache = new Map<string, LanguageModel>();

let providerFetch: typeof fetch | undefined;

/**
 * Tests send the built-in providers' (openai, anthropic, google) HTTP requests to the provider
 * simulators (lib/testing/provider-sims) here, and nowhere else: no setting or variable reaches it, so
 * production requests always go to the fixed base URLs below. The requests still pass through
 * guardedFetch (no redirects followed, body size capped). Pass undefined to restore.
 */
export function setProviderFetch(f: typeof fetch | undefined): void {
  providerFetch = f;
  cache.clear();
}

/** The built-in providers' fetch: guardedFetch, over the test simulators' fetch when one is set. */
const builtinFetch: typeof fetch = (input, init) =>
  providerFetch ? guardFetch(providerFetch)(input, init) : guardedFetch(input, init);

/**
 * Resolves `provider:model` to an AI SDK model. Provider clients are built once per
 * (provider, base URL, key) and reused: this sits on the judging hot path.
 */
export function getModel(
  spec: string,
  opts: { settings?: Partial<Pick<Settings, "endpoints">>; env?: Env } = {},
): LanguageModel {
  if (override) return override(spec);
  const env = opts.env ?? process.env;
  const { provider, model } = parseJudgeId(spec);
  const endpoint = opts.settings?.endpoints?.find((e) => e.name === provider);
  const material = materialFor(provider, env, endpoint);
  const cacheKey = `${spec}\u0000${material.join("\u0000")}`;
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  const built = build(provider, model, env, endpoint);
  cache.set(cacheKey, built);
  return built;
}

function requireEnv(env: Env, name: string, provider: string, why = ""): string {
  const v = env[name];
  if (!v) {
    throw new JuryError(
      `missing_key:${provider}`,
      `The ${provider} judge needs ${name}${why}: set it in the environment or .env.local, then restart.`,
      { envVar: name },
    );
  }
  return v;
}

/** A key read for sending: marked secret, so redaction covers its value whatever the variable's name. */
function requireKey(env: Env, name: string, provider: string, why?: string): string {
  markSecretEnv(name);
  return requireEnv(env, name, provider, why);
}

type Endpoint = Settings["endpoints"][number];

/**
 * The variable a custom endpoint's key comes from, or undefined for no key. Only its own
 * `JURY_<NAME>_API_KEY` is ever read, whatever the settings say: the schema rejects anything else, and
 * settings that reach here some other way cannot send another variable to the endpoint's URL.
 */
function endpointKeyVar(endpoint: Endpoint): string | undefined {
  if (!endpoint.apiKeyEnv) return undefined;
  const allowed = endpointKeyEnv(endpoint.name);
  if (endpoint.apiKeyEnv !== allowed) {
    throw new JuryError(
      `invalid_key_env:${endpoint.name}`,
      `Endpoint "${endpoint.name}" names key variable ${endpoint.apiKeyEnv}, which is not allowed: its key may only come from ${allowed}. Fix it in Settings.`,
    );
  }
  return allowed;
}

function materialFor(provider: string, env: Env, endpoint?: Endpoint): string[] {
  if (provider in providerKeyEnv) return [env[providerKeyEnv[provider as keyof typeof providerKeyEnv]] ?? ""];
  if (provider === "local") return [env[LOCAL_BASE_URL_ENV] ?? "", env[LOCAL_API_KEY_ENV] ?? ""];
  if (endpoint) {
    const keyVar = endpointKeyVar(endpoint);
    return [endpoint.baseUrl, keyVar ?? "", keyVar ? (env[keyVar] ?? "") : ""];
  }
  return [];
}

function build(provider: string, model: string, env: Env, endpoint?: Endpoint): LanguageModel {
  switch (provider) {
    case "openai": {
      const apiKey = requireKey(env, providerKeyEnv.openai, provider);
      return lazyModel(provider, model, async () =>
        (await import("@ai-sdk/openai")).createOpenAI({
          apiKey,
          baseURL: BUILTIN_BASE_URLS.openai,
          fetch: builtinFetch,
        })(model),
      );
    }
    case "anthropic": {
      const apiKey = requireKey(env, providerKeyEnv.anthropic, provider);
      return lazyModel(provider, model, async () =>
        (await import("@ai-sdk/anthropic")).createAnthropic({
          apiKey,
          baseURL: BUILTIN_BASE_URLS.anthropic,
          fetch: builtinFetch,
        })(model),
      );
    }
    case "google": {
      const apiKey = requireKey(env, providerKeyEnv.google, provider);
      return lazyModel(provider, model, async () =>
        (await import("@ai-sdk/google")).createGoogleGenerativeAI({
          apiKey,
          baseURL: BUILTIN_BASE_URLS.google,
          fetch: builtinFetch,
        })(model),
      );
    }
    case "mock":
      return createMockModel(model);
    case "local": {
      const baseURL = requireEnv(env, LOCAL_BASE_URL_ENV, provider);
      if (env[LOCAL_API_KEY_ENV]) markSecretEnv(LOCAL_API_KEY_ENV);
      return compatible("local", baseURL, env[LOCAL_API_KEY_ENV], model);
    }
    default: {
      if (!endpoint) {
        throw new JuryError(
          `unknown_provider:${provider}`,
          `Unknown provider "${provider}": use openai, anthropic, google, local, mock, or add an endpoint named "${provider}" in Settings.`,
        );
      }
      const keyVar = endpointKeyVar(endpoint);
      const key = keyVar
        ? requireKey(env, keyVar, provider, " (a custom endpoint's key comes only from JURY_<NAME>_API_KEY)")
        : undefined;
      return compatible(endpoint.name, endpoint.baseUrl, key, model);
    }
  }
}

/**
 * A built-in provider's model whose SDK is loaded on its first call: the three SDKs cost a `jury`
 * command about 30 ms of start-up when loaded up front, and most runs use one provider or none of
 * them. The key is checked when the model is made, as before; the SDK only when it is called.
 */
function lazyModel(provider: string, modelId: string, load: () => Promise<LanguageModelV3>): LanguageModelV3 {
  let loading: Promise<LanguageModelV3> | undefined;
  let real: LanguageModelV3 | undefined;
  const get = () => {
    loading ??= load().then((m) => {
      real = m;
      return m;
    });
    return loading;
  };
  return {
    specificationVersion: "v3",
    get provider() {
      return real?.provider ?? provider;
    },
    modelId,
    get supportedUrls() {
      return real ? real.supportedUrls : get().then((m) => m.supportedUrls);
    },
    doGenerate: async (options) => (await get()).doGenerate(options),
    doStream: async (options) => (await get()).doStream(options),
  };
}

function compatible(name: string, baseURL: string, apiKey: string | undefined, model: string): LanguageModel {
  return createOpenAICompatible({
    name,
    baseURL: baseURL.replace(/\/+$/, ""),
    apiKey,
    includeUsage: true,
    supportsStructuredOutputs: true,
    fetch: keepAliveFetch,
  }).chatModel(model);
}

/** Which keys are present, for the Settings page. Never returns a value. */
export function keyPresence(env: Env = process.env): { name: string; present: boolean }[] {
  return [...Object.values(providerKeyEnv), LOCAL_BASE_URL_ENV, LOCAL_API_KEY_ENV].map((name) => ({
    name,
    present: Boolean(env[name]),
  }));
}

/**
 * A built-in provider's SDK model whose HTTP goes to `f` and carries no real key: the batch path
 * (lib/runs/batch-api.ts) captures there the exact request the SDK would send live, and hands a
 * batch result back through it, so a batched call is written and read by the same SDK code as a
 * live one.
 */
export function builtinModelOver(spec: string, f: typeof fetch): LanguageModel {
  const { provider, model } = parseJudgeId(spec);
  const apiKey = "unused-by-capture";
  if (provider === "openai")
    return lazyModel(provider, model, async () =>
      (await import("@ai-sdk/openai")).createOpenAI({ apiKey, baseURL: BUILTIN_BASE_URLS.openai, fetch: f })(
        model,
      ),
    );
  if (provider === "anthropic")
    return lazyModel(provider, model, async () =>
      (await import("@ai-sdk/anthropic")).createAnthropic({
        apiKey,
        baseURL: BUILTIN_BASE_URLS.anthropic,
        fetch: f,
      })(model),
    );
  throw new JuryError(`no_batch_api:${provider}`, `${provider} judges have no batch API in Jury`);
}

/** The batch APIs' HTTP for a built-in provider: its fixed base URL, its key, the built-in fetch. */
export function batchHttp(
  provider: "openai" | "anthropic",
  env: Env = process.env,
): { baseURL: string; apiKey: string; fetch: typeof fetch } {
  const apiKey = requireKey(env, providerKeyEnv[provider], provider);
  return { baseURL: BUILTIN_BASE_URLS[provider], apiKey, fetch: builtinFetch };
}
