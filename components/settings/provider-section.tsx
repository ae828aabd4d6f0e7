"use client";

import { builtinProviderIds, type Settings } from "@/lib/settings/schema";
import { ModelList, TextField, Toggle } from "./fields";

const providerLabels: Record<(typeof builtinProviderIds)[number], string> = {
  openai: "OpenAI",
  anthropic: "Anthropic",
  google: "Google",
  local: "Local (OpenAI-compatible, JURY_LOCAL_BASE_URL)",
  mock: "Mock",
};

type Props = {
  value: Settings;
  set: (path: string, v: unknown) => void;
  err: (path: string) => string | undefined;
  showEndpoints?: boolean;
};

export function ProviderSection({ value, set, err, showEndpoints = true }: Props) {
  return (
    <fieldset className="space-y-3">
      <legend className="mb-2 text-sm font-semibold">Judge providers</legend>
      <div className="grid gap-3 sm:grid-cols-2">
        {builtinProviderIds.map((id) => (
          <div key={id} className="rounded border border-zinc-200 p-3" data-testid={`provider-${id}`}>
            <Toggle
              id={`providers.${id}.enabled`}
              label={
                <span className="font-medium">
                  {providerLabels[id]}
                  {id === "mock" && (
                    <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-800">
                      not a model
                    </span>
                  )}
                </span>
              }
              checked={value.providers[id].enabled}
              onChange={(v) => set(`providers.${id}.enabled`, v)}
            />
            <div className="mt-2">
              <ModelList
                id={`providers.${id}.models`}
                models={value.providers[id].models}
                errors={err}
                onChange={(v) => set(`providers.${id}.models`, v)}
              />
            </div>
          </div>
        ))}
      </div>
      {showEndpoints && <EndpointList value={value} set={set} err={err} />}
    </fieldset>
  );
}

function EndpointList({ value, set, err }: Props) {
  const endpoints = value.endpoints;
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-medium">Named OpenAI-compatible endpoints</h3>
      <p className="text-xs text-zinc-500">
        Ollama, vLLM, LM Studio, llama.cpp server, OpenRouter… Judges are then named <code>name:model</code>.
        The key stays in the environment: give the name of the variable that holds it.
      </p>
      {endpoints.length === 0 && <p className="text-xs text-zinc-500">No endpoints yet.</p>}
      {endpoints.map((e, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
        <div key={i} className="grid gap-2 rounded border border-zinc-200 p-3 sm:grid-cols-3">
          <TextField
            id={`endpoints.${i}.name`}
            label="Name"
            value={e.name}
            error={err(`endpoints.${i}.name`)}
            onChange={(v) => set(`endpoints.${i}.name`, v)}
          />
          <TextField
            id={`endpoints.${i}.baseUrl`}
            label="Base URL"
            placeholder="http://127.0.0.1:11434/v1"
            value={e.baseUrl}
            error={err(`endpoints.${i}.baseUrl`)}
            onChange={(v) => set(`endpoints.${i}.baseUrl`, v)}
          />
          <TextField
            id={`endpoints.${i}.apiKeyEnv`}
            label="Env var with the key (optional)"
            value={e.apiKeyEnv ?? ""}
            error={err(`endpoints.${i}.apiKeyEnv`)}
            onChange={(v) => set(`endpoints.${i}.apiKeyEnv`, v)}
          />
          <div className="sm:col-span-2">
            <ModelList
              id={`endpoints.${i}.models`}
              models={e.models}
              errors={err}
              onChange={(v) => set(`endpoints.${i}.models`, v)}
            />
          </div>
          <div className="flex items-start justify-between">
            <Toggle
              id={`endpoints.${i}.enabled`}
              label="enabled"
              checked={e.enabled}
              onChange={(v) => set(`endpoints.${i}.enabled`, v)}
            />
            <button
              type="button"
              className="text-xs text-red-700 hover:underline"
              onClick={() =>
                set(
                  "endpoints",
                  endpoints.filter((_, j) => j !== i),
                )
              }
            >
              remove endpoint
            </button>
          </div>
        </div>
      ))}
      <button
        type="button"
        data-testid="endpoints-add"
        className="rounded border border-zinc-300 px-2 py-1 text-xs hover:bg-zinc-50"
        onClick={() =>
          set("endpoints", [
            ...endpoints,
            { name: "", baseUrl: "", apiKeyEnv: "", enabled: true, models: [""] },
          ])
        }
      >
        + add endpoint
      </button>
    </div>
  );
}
