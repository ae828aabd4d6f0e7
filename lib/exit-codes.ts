import { isJuryError } from "./errors";

/**
 * What a `jury` process answers, in one place:
 * 0 pass; 1 fail (a verdict under its threshold, a failed review); 2 a usage or configuration error
 * (a bad flag, setting or variable: the message names it and the bad value; an unsafe file; a run
 * another live process is working); 3 infrastructure (a model, worker, database or system under
 * test that did not answer). Commands return 0 and 1 themselves; errors map here.
 */
export const EXIT = { pass: 0, fail: 1, usage: 2, infrastructure: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * Every JuryError code, by its family (the part before the first ":"; `missing_key:openai` is
 * `missing_key`), and its exit code. A code thrown anywhere must be listed here
 * (lib/exit-codes.test.ts reads the sources to check).
 */
export const ERROR_EXIT_CODES: Readonly<Record<string, ExitCode>> = {
  // usage or configuration: the message names the flag, setting, variable or file
  usage: EXIT.usage,
  invalid: EXIT.usage, // invalid:suite, invalid:review, invalid:import, invalid:judge, invalid:settings…
  invalid_env: EXIT.usage,
  invalid_key_env: EXIT.usage,
  unknown_provider: EXIT.usage,
  missing_key: EXIT.usage,
  provider_disabled: EXIT.usage,
  unsafe: EXIT.usage, // unsafe:file: outside its folder, not a regular file, too big
  busy: EXIT.usage, // busy:run: another live process owns it
  not_found: EXIT.usage, // a run, experiment or review id that does not exist
  needs_confirmation: EXIT.usage, // promoting a configuration the figures do not support, unconfirmed
  no_batch_api: EXIT.usage, // no_batch_api:<provider>: --batch asked of a provider Jury has no batch API for
  // infrastructure: something Jury depends on did not answer or is not there
  timeout: EXIT.infrastructure,
  call_failed: EXIT.infrastructure,
  reply_too_large: EXIT.infrastructure,
  // a provider's batch API: the request could not be built from the SDK's, or the API answered an error
  batch_capture: EXIT.infrastructure,
  batch_http: EXIT.infrastructure,
  // the judge answered without a verdict: it refused, or its answer hit the max output tokens
  refusal: EXIT.infrastructure,
  truncated: EXIT.infrastructure,
  deterministic_timeout: EXIT.infrastructure,
  worker_start: EXIT.infrastructure,
  worker_missing: EXIT.infrastructure,
  no_logic_worker: EXIT.infrastructure,
  pool_closed: EXIT.infrastructure,
  sut_unreachable: EXIT.infrastructure,
  sut_error: EXIT.infrastructure,
  db_locked: EXIT.infrastructure,
  db_unreachable: EXIT.infrastructure, // the PostgreSQL server JURY_DATABASE_URL names did not answer
  // a criterion's own code threw: that verdict failed
  logic_error: EXIT.fail,
};

/** Node's own error codes that mean a usage error (node:util parseArgs) or an infrastructure one. */
const NODE_EXIT_CODES: Readonly<Record<string, ExitCode>> = {
  ERR_PARSE_ARGS_UNKNOWN_OPTION: EXIT.usage,
  ERR_PARSE_ARGS_INVALID_OPTION_VALUE: EXIT.usage,
  ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL: EXIT.usage,
  SQLITE_BUSY: EXIT.infrastructure,
  SQLITE_LOCKED: EXIT.infrastructure,
  SQLITE_CANTOPEN: EXIT.infrastructure,
  SQLITE_FULL: EXIT.infrastructure,
  SQLITE_IOERR: EXIT.infrastructure,
  ENOSPC: EXIT.infrastructure,
  EIO: EXIT.infrastructure,
  EMFILE: EXIT.infrastructure,
};

/** The family of a code: `missing_key:openai` → `missing_key`. */
export const codeFamily = (code: string): string => code.split(":", 1)[0];

/** The exit code for an error that ended a command; 1 for anything not listed. */
export function exitCodeFor(err: unknown): ExitCode {
  if (isJuryError(err)) return ERROR_EXIT_CODES[codeFamily(err.code)] ?? EXIT.fail;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    if (NODE_EXIT_CODES[code] !== undefined) return NODE_EXIT_CODES[code];
    // better-sqlite3's extended codes: SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE…
    const base = code.match(/^SQLITE_[A-Z]+/)?.[0];
    if (base && NODE_EXIT_CODES[base] !== undefined) return NODE_EXIT_CODES[base];
  }
  return EXIT.fail;
}
