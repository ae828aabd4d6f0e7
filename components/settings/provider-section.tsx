"use client";

import { endpointKeyEnv } from "@/lib/env/secrets";
import { builtinProviderIds } from "@/lib/settings/providers";
import type { CustomEndpoint, Settings } from "@/lib/settings/schema";
import { FieldError, ModelList, TextField, Toggle, useFocusAfterRender } from "./fields";

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
  /** names of the `JURY_*_API_KEY` variables set in the server's environment (never values) */
  presentKeys?: readonly string[];
};

export function ProviderSection({ value, set, err, showEndpoints = true, presentKeys = [] }: Props) {
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
      {showEndpoints && <EndpointList value={value} set={set} err={err} presentKeys={presentKeys} />}
    </fieldset>
  );
}

const NAME = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * Which key goes where: "sends $JURY_FOO_API_KEY (set) to https://…", so that changing a base URL
 * shows whose key it will receive.
 */
function KeyDestination({
  e,
  presentKeys,
  id,
}: {
  e: CustomEndpoint;
  presentKeys: readonly string[];
  id: string;
}) {
  const url = e.baseUrl.trim() || "(no base URL yet)";
  if (!e.apiKeyEnv)
    return (
      <p className="text-xs text-zinc-600" data-testid={id}>
        sends no key to <code className="break-all">{url}</code>
      </p>
    );
  if (!NAME.test(e.name.trim()))
    return (
      <p className="text-xs text-zinc-600" data-testid={id}>
        sends JURY_&lt;NAME&gt;_API_KEY to <code className="break-all">{url}</code> (name the endpoint first)
      </p>
    );
  const keyVar = endpointKeyEnv(e.name);
  const set = presentKeys.includes(keyVar);
  return (
    <p className="text-xs text-zinc-600" data-testid={id}>
      sends <code>${keyVar}</code>{" "}
      <span className={set ? "text-green-700" : "text-amber-700"}>({set ? "set" : "not set"})</span> to{" "}
      <code className="break-all">{url}</code>
    </p>
  );
}

function EndpointList({ value, set, err, presentKeys = [] }: Props) {
  const endpoints = value.endpoints;
  const focusField = useFocusAfterRender();
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-medium">Named OpenAI-compatible endpoints</h3>
      <p className="text-xs text-zinc-500">
        Ollama, vLLM, LM Studio, llama.cpp server, OpenRouter… Judges are then named <code>name:model</code>.
        The key stays in the environment: an endpoint named <code>foo-bar</code> can only send{" "}
        <code>JURY_FOO_BAR_API_KEY</code>, and only to its own base URL.
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
            // the key variable follows the name: it is always the endpoint's own
            onChange={(v) =>
              set(`endpoints.${i}`, { ...e, name: v, apiKeyEnv: e.apiKeyEnv ? endpointKeyEnv(v) : "" })
            }
          />
          <TextField
            id={`endpoints.${i}.baseUrl`}
            label="Base URL"
            placeholder="http://127.0.0.1:11434/v1"
            value={e.baseUrl}
            error={err(`endpoints.${i}.baseUrl`)}
            onChange={(v) => set(`endpoints.${i}.baseUrl`, v)}
          />
          <div>
            <Toggle
              id={`endpoints.${i}.apiKeyEnv`}
              label={
                <span className="text-xs">
                  sends a key (
                  <code>{NAME.test(e.name.trim()) ? endpointKeyEnv(e.name) : "JURY_<NAME>_API_KEY"}</code>)
                </span>
              }
              checked={Boolean(e.apiKeyEnv)}
              error={err(`endpoints.${i}.apiKeyEnv`)}
              onChange={(v) => set(`endpoints.${i}.apiKeyEnv`, v ? endpointKeyEnv(e.name) : "")}
            />
            <FieldError id={`endpoints.${i}.apiKeyEnv`} error={err(`endpoints.${i}.apiKeyEnv`)} />
          </div>
          <div className="sm:col-span-3">
            <KeyDestination e={e} presentKeys={presentKeys} id={`endpoints.${i}.sends`} />
          </div>
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
        onClick={() => {
          focusField(`endpoints.${endpoints.length}.name`);
          set("endpoints", [
            ...endpoints,
            { name: "", baseUrl: "", apiKeyEnv: "", enabled: true, models: [""] },
          ]);
        }}
      >
        + add endpoint
      </button>
    </div>
  );
}
