/**
 * Size limits read from the environment. Kept free of imports: the memory hook's bundle loads it.
 */

type Env = Record<string, string | undefined>;

/** Largest judge reply kept, in bytes of UTF-8 text; a larger one is that sample's error. */
export const MAX_REPLY_BYTES_ENV = "JURY_MAX_REPLY_BYTES";
export const DEFAULT_MAX_REPLY_BYTES = 256 * 1024;

let parsed: { raw: string | undefined; value: number } | undefined;

/**
 * JURY_MAX_REPLY_BYTES as a whole number of bytes (at least 1024), or the default 256 KiB when unset;
 * a value that is not such a number is an error naming the variable, not a silent default.
 */
export function maxReplyBytes(env: Env = process.env): number {
  const raw = env[MAX_REPLY_BYTES_ENV];
  if (parsed && parsed.raw === raw) return parsed.value;
  let value = DEFAULT_MAX_REPLY_BYTES;
  if (raw !== undefined && raw.trim() !== "") {
    value = Number(raw.trim());
    if (!Number.isInteger(value) || value < 1024) {
      throw new Error(
        `${MAX_REPLY_BYTES_ENV}=${JSON.stringify(raw)} must be a whole number of bytes, at least 1024 (default ${DEFAULT_MAX_REPLY_BYTES})`,
      );
    }
  }
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
