// The settings' provider list and the judges they enable, without zod: client components import
// these, and the zod schema (lib/settings/schema.ts) stays on the server.
import type { Settings } from "./schema";

export const builtinProviderIds = ["openai", "anthropic", "google", "local", "mock"] as const;

/** Judges the settings enable, as `provider:model` ids. */
export function enabledJudges(s: Pick<Settings, "providers" | "endpoints">): string[] {
  const out: string[] = [];
  for (const id of builtinProviderIds) {
    const p = s.providers[id];
    if (p.enabled) for (const m of p.models) out.push(`${id}:${m}`);
  }
  for (const e of s.endpoints) if (e.enabled) for (const m of e.models) out.push(`${e.name}:${m}`);
  return out;
}
