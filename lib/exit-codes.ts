import { JuryError } from "./errors";
import { UNSAFE_FILE } from "./read-text";

/**
 * Error codes to exit codes, in one place: 2 for a usage or configuration problem (a bad flag, an
 * unsafe file, a run another live process is working), 1 for anything else. 0 and 1 for pass and
 * fail are the commands' own.
 */
export function exitCodeFor(err: unknown): number {
  if (!(err instanceof JuryError)) return 1;
  const c = err.code;
  if (c === "usage" || c === UNSAFE_FILE || c.startsWith("busy:") || c.startsWith("invalid:")) return 2;
  return 1;
}
