import { USER_TOKEN_IN_TEXT } from "./auth/tokens";
import { isSecretEnvName, markedSecretCount } from "./env/secrets";

type Env = Record<string, string | undefined>;

export const REDACTED = "[redacted]";
/** Shorter values are not redacted: they would blank out ordinary words ("true", "default"). */
const MIN_SECRET_LENGTH = 8;

type Cache = {
  env: Env;
  keyCount: number;
  checkedAt: number;
  marked: number;
  names: string[];
  values: string[];
  min: number;
};
let cached: Cache | undefined;

/** The length of a personal token: `jury_` + 16 + `_` + 43. */
const USER_TOKEN_MIN = 65;

/** How often process.env is enumerated again to find variables set since (it costs about 15 µs). */
const RESCAN_MS = 1000;

/**
 * The secret values in `env`, longest first. This runs on every model answer, so the list is
 * precomputed and only rebuilt when something changed: another env object, a secret's value, a
 * variable marked secret, or (checked at most once a second for process.env, whose enumeration is
 * slow; at once for any other object) the number of variables.
 */
function secretValues(env: Env): Cache {
  const now = Date.now();
  const c = cached;
  if (
    c &&
    c.env === env &&
    c.marked === markedSecretCount() &&
    c.names.every((n, i) => env[n] === c.values[i])
  ) {
    if (env === process.env && now - c.checkedAt < RESCAN_MS) return c;
    const keyCount = Object.keys(env).length;
    c.checkedAt = now;
    if (keyCount === c.keyCount) return c;
  }
  const entries = Object.entries(env);
  const pairs = entries.filter(
    (e): e is [string, string] =>
      typeof e[1] === "string" && e[1].length >= MIN_SECRET_LENGTH && isSecretEnvName(e[0]),
  );
  pairs.sort((a, b) => b[1].length - a[1].length);
  cached = {
    env,
    keyCount: entries.length,
    checkedAt: now,
    marked: markedSecretCount(),
    names: pairs.map((p) => p[0]),
    values: pairs.map((p) => p[1]),
    min: pairs.length ? pairs[pairs.length - 1][1].length : Number.POSITIVE_INFINITY,
  };
  return cached;
}

function replaceAll(text: string, values: string[]): string {
  let out = text;
  for (const v of values) if (out.includes(v)) out = out.split(v).join(REDACTED);
  return out.includes("jury_") ? out.replace(USER_TOKEN_IN_TEXT, REDACTED) : out;
}

/**
 * JSON string escapes that spell a character which may stand as itself in a JSON string (`\u0073`,
 * `\/`): a model answer can hide a key that way from a plain search, and JSON.parse would then
 * hand it over in clear in the parsed reasoning.
 */
const ESCAPED = /\\u([0-9a-fA-F]{4})|\\\//g;
function unescapeHarmless(text: string): string {
  return text.replace(ESCAPED, (m, hex: string | undefined) => {
    if (hex === undefined) return "/";
    const c = Number.parseInt(hex, 16);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return m;
    return String.fromCharCode(c);
  });
}

/**
 * The one redaction function: removes the value of every secret environment variable (see
 * lib/env/secrets.ts) from text about to be stored, logged or shown, whether it is a provider's
 * error, a model's answer or anything else that may echo a key, and every personal token
 * (`jury_<id>_<secret>`, lib/auth/tokens.ts), which no variable holds. Plain occurrences become
 * `[redacted]`; a key spelled with JSON escapes is caught too (the escapes are then decoded).
 */
export function redactSecrets(text: string, env: Env = process.env): string {
  if (text.length < MIN_SECRET_LENGTH) return text;
  const s = secretValues(env);
  // a personal token is at least this long, and is spelled `jury` (or escaped: then a backslash)
  const mayHoldToken = text.length >= USER_TOKEN_MIN && (text.includes("jury") || text.includes("\\"));
  if (!mayHoldToken && (s.values.length === 0 || text.length < s.min)) return text;
  const out = replaceAll(text, s.values);
  if (!out.includes("\\")) return out;
  const decoded = unescapeHarmless(out);
  if (decoded === out) return out;
  const again = replaceAll(decoded, s.values);
  return again === decoded ? out : again;
}
