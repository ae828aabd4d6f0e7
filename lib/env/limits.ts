/**
 * Size limits read from the environment (declared in lib/env/registry.ts). Kept free of heavy
 * imports: the memory hook's bundle loads it.
 */
import { readEnv } from "./registry";

type Env = Record<string, string | undefined>;

/** Largest judge reply kept, in bytes of UTF-8 text; a larger one is that sample's error. */
export const MAX_REPLY_BYTES_ENV = "JURY_MAX_REPLY_BYTES";

let parsed: { raw: string | undefined; value: number } | undefined;

/**
 * JURY_MAX_REPLY_BYTES as a whole number of bytes (at least 1024), or the default 256 KiB when unset;
 * a value that is not such a number is an error naming the variable (JuryError `invalid_env`), not a
 * silent default.
 */
export function maxReplyBytes(env: Env = process.env): number {
  const raw = env[MAX_REPLY_BYTES_ENV];
  if (parsed && parsed.raw === raw) return parsed.value;
  const value = readEnv(MAX_REPLY_BYTES_ENV, env);
  parsed = { raw, value };
  return value;
}

/**
 * Largest HTTP response body read from a provider: room for a reply at the cap even with every
 * character JSON-escaped (`\uXXXX`, 6 bytes), plus the envelope; at least 1 MiB. A body past it is
 * cut off there instead of being held in memory.
 */
export function maxResponseBodyBytes(env: Env = process.env): number {
  return Math.max(1024 * 1024, 8 * maxReplyBytes(env) + 64 * 1024);
}
