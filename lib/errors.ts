import { redactSecrets } from "./redact";

/** Typed error codes (`"missing_key:openai"`), with a plain message that is safe to show. */
export class JuryError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "JuryError";
  }
}

/** An error's message, with any secret from the environment redacted. */
export function errorMessage(err: unknown): string {
  return redactSecrets(err instanceof Error ? err.message : String(err));
}
