import { JuryError } from "../errors";
import { builtinProviderIds } from "./providers";
import type { Settings } from "./schema";

/**
 * Why each judge named on the command line cannot be used with these settings: not written
 * `provider:model`, a provider or endpoint that does not exist, or one that is disabled in Settings.
 * Keys and base URLs are the preflight's (lib/providers/preflight.ts); this is about the flag's value.
 */
export function judgeSettingProblems(
  settings: Pick<Settings, "providers" | "endpoints">,
  judges: readonly string[],
): string[] {
  const out: string[] = [];
  for (const judge of judges) {
    const i = judge.indexOf(":");
    if (i <= 0 || i === judge.length - 1) {
      out.push(`"${judge}" must be written provider:model, like openai:gpt-5-mini`);
      continue;
    }
    const provider = judge.slice(0, i);
    if ((builtinProviderIds as readonly string[]).includes(provider)) {
      if (!settings.providers[provider as (typeof builtinProviderIds)[number]].enabled)
        out.push(
          `${judge}: the ${provider} provider is disabled in Settings (enable it: jury settings set providers.${provider}.enabled true)`,
        );
      continue;
    }
    const endpoint = settings.endpoints.find((e) => e.name === provider);
    if (!endpoint) {
      const names = [...builtinProviderIds, ...settings.endpoints.map((e) => e.name)];
      out.push(`${judge}: no provider or endpoint is named "${provider}" (there are ${names.join(", ")})`);
    } else if (!endpoint.enabled) {
      const at = settings.endpoints.indexOf(endpoint);
      out.push(
        `${judge}: the endpoint "${provider}" is disabled in Settings (enable it: jury settings set endpoints.${at}.enabled true)`,
      );
    }
  }
  return out;
}

/**
 * Refuses, as a usage error (exit 2) naming the flag and each judge, judges the settings do not
 * allow: `--judges local:x` while the local provider is disabled. Call it before anything is stored
 * or called.
 */
export function assertJudgesEnabled(
  settings: Pick<Settings, "providers" | "endpoints">,
  judges: readonly string[],
  flag = "--judges",
): void {
  const problems = judgeSettingProblems(settings, judges);
  if (problems.length === 1) throw new JuryError("usage", `${flag}: ${problems[0]}`, { flag, problems });
  if (problems.length)
    throw new JuryError(
      "usage",
      `${flag}: ${problems.length} judges cannot be used:\n  ${problems.join("\n  ")}`,
      {
        flag,
        problems,
      },
    );
}
