import { endpointKeyEnv, LOCAL_BASE_URL_ENV, PROVIDER_KEY_ENV } from "../env/secrets";
import { JuryError } from "../errors";
import { judgeSettingProblems } from "../settings/judges";
import type { Settings } from "../settings/schema";

type Env = Record<string, string | undefined>;

/** Why one judge cannot be called, and the setting or variable that would fix it. */
export type JudgeProblem = {
  judge: string;
  /** the setting (`providers.local.enabled`) or variable (`OPENAI_API_KEY`) it lacks */
  setting: string;
  message: string;
};

const BUILTIN_WITH_KEY = PROVIDER_KEY_ENV as Record<string, string>;

/**
 * Checks, without calling anything, that every judge can be called: its provider is enabled in
 * Settings (lib/settings/judges.ts words that) and has its key (or, for `local`, its base URL) in the
 * environment. The mock provider is never a default: it is only called when named and enabled.
 */
export function judgeProblems(
  judges: readonly string[],
  settings: Pick<Settings, "providers" | "endpoints">,
  env: Env = process.env,
): JudgeProblem[] {
  const out: JudgeProblem[] = [];
  for (const judge of judges) {
    const i = judge.indexOf(":");
    const provider = i > 0 ? judge.slice(0, i) : judge;
    // not written provider:model, unknown, or disabled in Settings: the settings' own words
    const [problem] = judgeSettingProblems(settings, [judge]);
    if (problem) {
      const at = settings.endpoints.findIndex((e) => e.name === provider);
      out.push({
        judge,
        setting:
          i <= 0 || i === judge.length - 1
            ? "--judges"
            : provider in settings.providers
              ? `providers.${provider}.enabled`
              : at >= 0
                ? `endpoints.${at}.enabled`
                : `endpoints (no "${provider}")`,
        message: problem,
      });
      continue;
    }
    // enabled: its key (or the local endpoint's base URL) must be in the environment
    const keyVar =
      BUILTIN_WITH_KEY[provider] ??
      (provider === "local"
        ? LOCAL_BASE_URL_ENV
        : settings.endpoints.find((e) => e.name === provider)?.apiKeyEnv
          ? endpointKeyEnv(provider)
          : undefined);
    if (keyVar && !env[keyVar]?.trim())
      out.push({
        judge,
        setting: keyVar,
        message: `${judge}: ${keyVar} is not set${provider === "local" ? " (the local endpoint's base URL)" : provider in BUILTIN_WITH_KEY ? "" : " (the endpoint's key)"}`,
      });
  }
  return out;
}

/**
 * The refusal: one error naming each judge and what it lacks, and where the judges came from
 * (`--judges`, `JUDGE_MODEL`, Settings) when the caller says.
 */
export function preflightError(
  problems: readonly JudgeProblem[],
  what = "Nothing started",
  source?: string,
): JuryError {
  const n = problems.length === 1 ? "a judge cannot be called" : `${problems.length} judges cannot be called`;
  return new JuryError(
    "invalid:judges",
    `${what}: ${source ? `${source}: ` : ""}${n}:\n${problems.map((p) => `  ${p.message}`).join("\n")}`,
    { problems },
  );
}

/**
 * Refuses (throws `invalid:judges`, exit 2) unless every judge can be called: run it before
 * anything is written or spent. `source` names where the judges came from (`--judges`).
 */
export function assertJudgesReady(
  judges: readonly string[],
  settings: Pick<Settings, "providers" | "endpoints">,
  opts: { env?: Env; what?: string; source?: string } = {},
): void {
  const problems = judgeProblems(judges, settings, opts.env);
  if (problems.length) throw preflightError(problems, opts.what, opts.source);
}
