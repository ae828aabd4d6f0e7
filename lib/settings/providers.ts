// The settings' provider list and the judges they enable, without zod: client components import
// these, and the zod schema (lib/settings/schema.ts) stays on the server.
import type { Settings } from "./schema";

export const builtinProviderIds = ["openai", "anthropic", "google", "local", "mock"] as const;

/**
 * Judges the settings enable, as `provider:model` ids. A blank model id (a row just added in the
 * settings form, not typed into yet) is no judge: a draft's estimate never lists "local:".
 */
export function enabledJudges(s: Pick<Settings, "providers" | "endpoints">): string[] {
  const out: string[] = [];
  const add = (provider: string, models: readonly string[]) => {
    for (const m of models) if (m.trim()) out.push(`${provider}:${m.trim()}`);
  };
  for (const id of builtinProviderIds) if (s.providers[id].enabled) add(id, s.providers[id].models);
  for (const e of s.endpoints) if (e.enabled && e.name.trim()) add(e.name.trim(), e.models);
  return out;
}
