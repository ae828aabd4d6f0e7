import { redactSecrets } from "./redact";

/**
 * Typed error codes (`"missing_key:openai"`), with a plain message that is safe to show. What a code
 * means to the process (its exit code) is decided in one place: lib/exit-codes.ts.
 *
 * Compare codes, never classes: the hook's two bundles (dist/hook.cjs and dist/hook-full.cjs) each
 * carry their own copy of this class, so `err instanceof JuryError` is false for an error thrown by
 * the other bundle. Use `isJuryError(err)` / `hasErrorCode(err, "missing_key")` instead.
 */
export class JuryError extends Error {
  /** a brand that survives being bundled twice: isJuryError checks it, not the class */
  readonly isJuryError = true;
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "JuryError";
  }
}

/** A JuryError from any bundle: an Error named "JuryError" with a string code. */
export function isJuryError(err: unknown): err is JuryError {
  return (
    err instanceof Error && err.name === "JuryError" && typeof (err as { code?: unknown }).code === "string"
  );
}

/**
 * Whether `err` is a JuryError whose code is `code` or starts with `code:` (`hasErrorCode(err,
 * "missing_key")` matches `missing_key:openai`). Works across bundles (see isJuryError).
 */
export function hasErrorCode(err: unknown, code: string): err is JuryError {
  return isJuryError(err) && (err.code === code || err.code.startsWith(`${code}:`));
}

/** An error's message, with any secret from the environment redacted. */
export function errorMessage(err: unknown): string {
  return redactSecrets(err instanceof Error ? err.message : String(err));
}
