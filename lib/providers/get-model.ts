import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { JuryError } from "../errors";
import type { Settings } from "../settings/schema";
import { keepAliveFetch } from "./keep-alive-fetch";
import { createMockModel } from "./mock-model";

type Env = Record<string, string | undefined>;

/** The env vars each built-in provider reads. Only names live here; values stay in the environment. */
export const providerKeyEnv = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  google: "GOOGLE_GENERATIVE_AI_API_KEY",
} as const;
export const LOCAL_BASE_URL_ENV = "JURY_LOCAL_BASE_URL";
export const LOCAL_API_KEY_ENV = "JURY_LOCAL_API_KEY";

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

function requireEnv(env: Env, name: string, provider: string): string {
  const v = env[name];
  if (!v) {
    throw new JuryError(
      `missing_key:${provider}`,
      `The ${provider} judge needs ${name}: set it in the environment or .env.local, then restart.`,
      { envVar: name },
    );
  }
  return v;
}

function materialFor(provider: string, env: Env, endpoint?: Settings["endpoints"][number]): string[] {
  if (provider in providerKeyEnv) return [env[providerKeyEnv[provider as keyof typeof providerKeyEnv]] ?? ""];
  if (provider === "local") return [env[LOCAL_BASE_URL_ENV] ?? "", env[LOCAL_API_KEY_ENV] ?? ""];
  if (endpoint) return [endpoint.baseUrl, endpoint.apiKeyEnv ? (env[endpoint.apiKeyEnv] ?? "") : ""];
  return [];
}

function build(
  provider: string,
  model: string,
  env: Env,
  endpoint?: Settings["endpoints"][number],
): LanguageModel {
  switch (provider) {
    case "openai":
      return createOpenAI({ apiKey: requireEnv(env, providerKeyEnv.openai, provider) })(model);
    case "anthropic":
      return createAnthropic({ apiKey: requireEnv(env, providerKeyEnv.anthropic, provider) })(model);
    case "google":
      return createGoogleGenerativeAI({ apiKey: requireEnv(env, providerKeyEnv.google, provider) })(model);
    case "mock":
      return createMockModel(model);
    case "local": {
      const baseURL = requireEnv(env, LOCAL_BASE_URL_ENV, provider);
      return compatible("local", baseURL, env[LOCAL_API_KEY_ENV], model);
    }
    default: {
      if (!endpoint) {
        throw new JuryError(
          `unknown_provider:${provider}`,
          `Unknown provider "${provider}": use openai, anthropic, google, local, mock, or add an endpoint named "${provider}" in Settings.`,
        );
      }
      const key = endpoint.apiKeyEnv ? requireEnv(env, endpoint.apiKeyEnv, provider) : undefined;
      return compatible(endpoint.name, endpoint.baseUrl, key, model);
    }
  }
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
