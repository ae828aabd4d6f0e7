/**
 * Every environment variable Jury reads, declared once: its parser, its default and its help line.
 * docs/configuration.md's table is printed from this list (`node scripts/env-table.mjs`), and a
 * test (lib/env/registry.test.ts) checks that every variable the code reads is declared here and
 * documented there.
 *
 * Parsing is strict: a value that does not parse is an error (code `invalid_env`, exit 2) naming the
 * variable and its value, never a silent default. An unset or blank variable takes the default.
 *
 * Kept free of zod and other heavy imports: the memory hook's small bundle loads it.
 */
import { JuryError } from "../errors";
import { COLLECTION_NAME } from "../memory/collection";
import {
  ACCESS_TOKEN_ENV,
  DATABASE_URL_ENV,
  LOCAL_API_KEY_ENV,
  LOCAL_BASE_URL_ENV,
  PROVIDER_KEY_ENV,
  TEST_DATABASE_URL_ENV,
} from "./secrets";

type Env = Record<string, string | undefined>;

/** Where a variable matters, for the table. */
export type EnvGroup = "server" | "providers" | "limits" | "paths" | "review" | "memory" | "internal";

export type EnvSpec<T> = {
  /** the variable, or a pattern's display name (`JURY_<NAME>_API_KEY`) */
  name: string;
  /** for a family of variables: the names it covers */
  pattern?: RegExp;
  group: EnvGroup;
  /** the default as docs/configuration.md shows it, in Markdown ("" for none) */
  defaultText: string;
  /** one line for docs/configuration.md's table */
  help: string;
  /** its value is a secret: never printed (lib/env/secrets.ts lists the same names for redaction) */
  secret?: boolean;
  /** the raw value (undefined when unset) to its typed value; throws JuryError `invalid_env` */
  parse: (raw: string | undefined, name: string) => T;
};

/** A value as Markdown code. */
const code = (v: unknown) => `\`${String(v)}\``;

const blank = (raw: string | undefined): raw is undefined => raw === undefined || raw.trim() === "";

function invalid(name: string, raw: string, expected: string): JuryError {
  return new JuryError("invalid_env", `${name}=${JSON.stringify(raw)} must be ${expected}`, {
    variable: name,
    value: raw,
  });
}

const TRUE = ["true", "1", "yes"];
const FALSE = ["false", "0", "no"];

/** true/false/1/0/yes/no (any case); anything else is an error naming the variable. */
export function parseBooleanEnv(raw: string, name: string): boolean {
  const v = raw.trim().toLowerCase();
  if (TRUE.includes(v)) return true;
  if (FALSE.includes(v)) return false;
  throw invalid(name, raw, "true, false, 1, 0, yes or no");
}

type Base = { group: EnvGroup; help: string };

function bool(o: Base & { default: boolean }): EnvSpec<boolean>;
function bool(o: Base & { default: undefined; defaultText: string }): EnvSpec<boolean | undefined>;
function bool(
  o: Base & { default: boolean | undefined; defaultText?: string },
): EnvSpec<boolean | undefined> {
  return {
    name: "",
    group: o.group,
    help: o.help,
    defaultText: o.defaultText ?? code(o.default),
    parse: (raw, name) => (blank(raw) ? o.default : parseBooleanEnv(raw, name)),
  };
}

function int(
  o: Base & { default: number; min: number; max?: number; unit?: string; defaultText?: string },
): EnvSpec<number> {
  const max = o.max ?? Number.MAX_SAFE_INTEGER;
  const unit = o.unit ? ` of ${o.unit}` : "";
  const range = o.max === undefined ? `at least ${o.min}` : `from ${o.min} to ${o.max}`;
  return {
    name: "",
    group: o.group,
    help: o.help,
    defaultText: o.defaultText ?? code(o.default),
    parse: (raw, name) => {
      if (blank(raw)) return o.default;
      const t = raw.trim();
      const n = /^[+-]?\d+$/.test(t) ? Number(t) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < o.min || n > max)
        throw invalid(name, raw, `a whole number${unit}, ${range} (default ${o.default})`);
      return n;
    },
  };
}

function text(
  o: Base & { default?: string; defaultText?: string; secret?: boolean },
): EnvSpec<string | undefined> {
  return {
    name: "",
    group: o.group,
    help: o.help,
    secret: o.secret,
    defaultText: o.defaultText ?? (o.default === undefined ? "" : code(o.default)),
    parse: (raw) => (blank(raw) ? o.default : raw.trim()),
  };
}

function textWithDefault(o: Base & { default: string; defaultText?: string }): EnvSpec<string> {
  return { ...text(o), parse: (raw) => (blank(raw) ? o.default : raw.trim()) };
}

/** A memory collection's name, or undefined when unset; any other value is an error naming it. */
function collectionName(o: Base & { defaultText: string }): EnvSpec<string | undefined> {
  return {
    ...text(o),
    parse: (raw, name) => {
      if (blank(raw)) return undefined;
      const t = raw.trim();
      if (!COLLECTION_NAME.test(t))
        throw invalid(
          name,
          raw,
          "a collection name: a letter or digit, then letters, digits, _ . - (64 at most)",
        );
      return t;
    },
  };
}

function url(o: Base): EnvSpec<string | undefined> {
  return {
    name: "",
    group: o.group,
    help: o.help,
    defaultText: "",
    parse: (raw, name) => {
      if (blank(raw)) return undefined;
      const t = raw.trim();
      let ok = false;
      try {
        ok = /^https?:$/.test(new URL(t).protocol);
      } catch {}
      if (!ok) throw invalid(name, raw, "an http(s) URL, like http://127.0.0.1:11434/v1");
      return t;
    },
  };
}

function list(o: Base & { separator: string; defaultText?: string }): EnvSpec<string[]> {
  return {
    name: "",
    group: o.group,
    help: o.help,
    defaultText: o.defaultText ?? "",
    parse: (raw) =>
      blank(raw)
        ? []
        : raw
            .split(o.separator)
            .map((s) => s.trim())
            .filter(Boolean),
  };
}

const secret = (help: string, group: EnvGroup = "providers") => text({ group, help, secret: true });
/**
 * A PostgreSQL URL (`postgres://` or `postgresql://`), or undefined when unset. A secret: a URL can
 * carry a password, so an invalid value is named but never printed.
 */
function postgresUrl(o: Base & { defaultText: string }): EnvSpec<string | undefined> {
  return {
    name: "",
    group: o.group,
    help: o.help,
    secret: true,
    defaultText: o.defaultText,
    parse: (raw, name) => {
      if (blank(raw)) return undefined;
      const t = raw.trim();
      let ok = false;
      try {
        ok = /^postgres(ql)?:$/.test(new URL(t).protocol);
      } catch {}
      if (!ok)
        throw new JuryError(
          "invalid_env",
          `${name} must be a postgres:// or postgresql:// URL, like postgres://jury@db.example:5432/jury (its value is not shown: it may hold a password)`,
          { variable: name },
        );
      return t;
    },
  };
}

/** PATH-style separator of folder lists (`:` on Unix, `;` on Windows), without importing node:path. */
const PATH_DELIMITER = typeof process !== "undefined" && process.platform === "win32" ? ";" : ":";

const specs = {
  // the database and the dashboard's server
  JURY_DB: text({
    group: "server",
    defaultText: "`jury.db` in the per-user data folder",
    help: "SQLite file (the folder is created). Unset: a checkout's existing `data/jury.db`, else `jury.db` in the per-user data folder (`$XDG_DATA_HOME/jury` or `~/.local/share/jury` on Linux, `~/Library/Application Support/jury` on macOS, `%LOCALAPPDATA%\\jury` on Windows). Migrations apply on start, in the server and the CLI.",
  }),
  [DATABASE_URL_ENV]: postgresUrl({
    group: "server",
    defaultText: "unset: SQLite",
    help: "A PostgreSQL database (`postgres://user:password@host:5432/name`) to keep everything in instead of the SQLite file, for a team sharing one store: every command, `jury worker` and the dashboard read and write there (migrations apply at start). The memory hook reads a local SQLite file only. A server that does not answer is exit 3. A secret: never printed (messages name the host and database).",
  }),
  JURY_HOST: textWithDefault({
    group: "server",
    default: "127.0.0.1",
    help: "Where `jury ui` (and `npm start`) listens unless `--host` says; anything but loopback needs `JURY_ACCESS_TOKEN`.",
  }),
  PORT: int({
    group: "server",
    default: 3000,
    min: 1,
    max: 65535,
    help: "The port `jury ui` (and `npm start`) listens on unless `--port` says.",
  }),
  [ACCESS_TOKEN_ENV]: secret(
    "Required to bind anything but loopback (at least 16 characters); every request must then carry it (see docs/security.md).",
    "server",
  ),
  JURY_ALLOWED_HOSTS: list({
    group: "server",
    separator: ",",
    help: "More `host` or `host:port` names the dashboard answers to, comma-separated (a reverse proxy's name, a LAN address).",
  }),

  // providers and their keys
  [PROVIDER_KEY_ENV.openai]: secret("Key for `openai:<model>` judges."),
  [PROVIDER_KEY_ENV.anthropic]: secret("Key for `anthropic:<model>` judges."),
  [PROVIDER_KEY_ENV.google]: secret("Key for `google:<model>` judges."),
  [LOCAL_BASE_URL_ENV]: url({
    group: "providers",
    help: "An OpenAI-compatible endpoint for `local:<model>` judges (Ollama: `http://127.0.0.1:11434/v1`).",
  }),
  [LOCAL_API_KEY_ENV]: secret("Its key, if it needs one."),

  // limits
  JURY_MAX_FILE_BYTES: int({
    group: "limits",
    default: 10 * 1024 * 1024,
    defaultText: "10 MiB",
    min: 1,
    unit: "bytes",
    help: "Largest file read from a suite, memory, criteria or review input (also caps HTTP outputs).",
  }),
  JURY_UPLOAD_MAX_BYTES: int({
    group: "limits",
    default: 10 * 1024 * 1024,
    defaultText: "10 MiB",
    min: 1024,
    unit: "bytes",
    help: "Most the dashboard's import form takes in one upload, all files together (read when the server starts). Larger files import from the CLI: `jury agreement import …`.",
  }),
  JURY_TRUSTED_ROOT: list({
    group: "limits",
    separator: PATH_DELIMITER,
    help: "A folder (or `:`-separated list) under which a suite's or memory folder's files may also resolve.",
  }),
  JURY_BATCH_POLL_MS: int({
    group: "limits",
    default: 30_000,
    defaultText: "30,000",
    min: 10,
    unit: "milliseconds",
    help: "How often a batched run asks the providers' batch APIs whether its batches have ended.",
  }),
  JURY_TASK_LEASE_MS: int({
    group: "limits",
    default: 30_000,
    defaultText: "30,000",
    min: 200,
    unit: "milliseconds",
    help: "How long a worker's claim on a run's task lasts without its heartbeat; a dead worker's tasks are taken by others after it.",
  }),
  JURY_CLAIM_POLL_MS: int({
    group: "limits",
    default: 500,
    defaultText: "500",
    min: 10,
    unit: "milliseconds",
    help: "How often a worker with nothing to claim looks again for tasks (others' expired claims, new runs for `jury worker`).",
  }),
  JURY_MAX_FIELD_CHARS: int({
    group: "limits",
    default: 50_000,
    defaultText: "50,000",
    min: 1000,
    unit: "characters",
    help: "Per-field budget of what is sent to a judge (at least 1,000), cut with a visible marker.",
  }),
  JURY_MAX_REPLY_BYTES: int({
    group: "limits",
    default: 256 * 1024,
    defaultText: "256 KiB",
    min: 1024,
    unit: "bytes",
    help: "Largest judge reply kept (at least 1 KiB); a longer one is that sample's error.",
  }),
  JURY_DETERMINISTIC_TIMEOUT_MS: int({
    group: "limits",
    default: 1000,
    defaultText: "1,000",
    min: 1,
    max: 600_000,
    unit: "milliseconds",
    help: "Time limit of one deterministic criterion call, run in a worker thread.",
  }),

  // folders
  JURY_CRITERIA_DIR: text({
    group: "paths",
    defaultText: "`criteria` (`jury`: the package's own)",
    help: "The criteria folder (one folder per criterion); `bin/jury.cjs` sets it to the package's when unset.",
  }),
  JURY_SUITES_DIR: list({
    group: "paths",
    separator: PATH_DELIMITER,
    defaultText: "`examples/suites`",
    help: "Folders (`:`-separated) the dashboard lists suites from.",
  }),
  XDG_DATA_HOME: text({
    group: "paths",
    defaultText: "`~/.local/share`",
    help: "Linux and other Unix: the per-user data folder's parent (an absolute path; a relative one is ignored).",
  }),
  LOCALAPPDATA: text({
    group: "paths",
    defaultText: "`%USERPROFILE%\\AppData\\Local`",
    help: "Windows: the per-user data folder's parent (set by Windows).",
  }),
  JURY_MIGRATIONS: text({
    group: "paths",
    defaultText: "`db/migrations` (`jury`: the package's own)",
    help: "The migrations folder; `bin/jury.cjs` sets it to the package's when unset.",
  }),

  // jury review
  JUDGE_ENABLED: bool({
    group: "review",
    default: undefined,
    defaultText: "unset",
    help: "`false` (or `0`, `no`) turns the review judge off: tests decide. `true`/`1`/`yes` turns it on; anything else is an error.",
  }),
  JUDGE_MODEL: text({
    group: "review",
    help: "`jury review`'s judge (`provider:model`) when `--judges` is not given; `--judges` wins, and without either the judges enabled in Settings are used.",
  }),
  JUDGE_MAX_PER_HOUR: int({
    group: "review",
    default: 20,
    min: 1,
    help: "At most this many review judgments per rolling hour, across processes.",
  }),

  JURY_CLAUDE_PROJECTS_DIR: text({
    group: "review",
    defaultText: "`~/.claude/projects`",
    help: "Where `jury review` looks for the newest Claude Code transcript of the project when `--transcript` is not given.",
  }),

  // memory retrieval
  JURY_MEMORY_COLLECTION: collectionName({
    group: "memory",
    defaultText: "project's, promoted, or `default`",
    help: "The memory collection `jury memory`, the hook and the skill read when `--collection` is not given (docs/memory.md: which collection is read).",
  }),
  JURY_HOOK_LOG: text({
    group: "memory",
    defaultText: "`jury-hook.log` beside the database",
    help: "The hook's log file (one line per problem; secrets redacted).",
  }),
  JURY_HOOK_BUDGET_MS: int({
    group: "memory",
    default: 8000,
    defaultText: "8,000",
    min: 100,
    max: 60_000,
    unit: "milliseconds",
    help: "The hook's time budget from its start: a judge still out then is abandoned, the BM25 fallback printed (path `timeout`).",
  }),
  JURY_DISABLE_FTS5: bool({
    group: "memory",
    default: false,
    help: "`true` searches memories without SQLite's FTS5 (a plain keyword scan), as on a SQLite built without it.",
  }),

  // not settings: set by tools, or for the tests
  NEXT_RUNTIME: text({
    group: "internal",
    defaultText: "set by Next.js",
    help: "Set by Next.js (`nodejs` or `edge`); not a setting. `instrumentation.ts` starts the run recovery only under `nodejs`.",
  }),
  [TEST_DATABASE_URL_ENV]: postgresUrl({
    group: "internal",
    defaultText: "unset: SQLite only",
    help: "Tests only: a PostgreSQL database the store tests also run against (each test creates a database of its own there and drops it); `.ci/run` sets it, and in CI (`CI` set) a test fails without it.",
  }),
  SCRIPTED_PORT: int({
    group: "internal",
    default: 0,
    min: 0,
    max: 65535,
    help: "Tests only: the port of the scripted OpenAI-compatible server (`dist/scripted-server.mjs`; 0 picks one).",
  }),
  SCRIPTED_LATENCY_MS: int({
    group: "internal",
    default: 0,
    min: 0,
    unit: "milliseconds",
    help: "Tests only: latency the scripted server adds to every answer.",
  }),
} satisfies Record<string, EnvSpec<unknown>>;

/** Families of variables, matched by pattern. */
const patterns: EnvSpec<string | undefined>[] = [
  {
    ...secret(
      "The key of the custom endpoint `<name>` (uppercased, dashes as underscores), if it needs one; sent only to that endpoint.",
    ),
    name: "JURY_<NAME>_API_KEY",
    pattern: /^JURY_[A-Z0-9_]+_API_KEY$/,
  },
];

export type EnvName = keyof typeof specs;
type ValueOf<K extends EnvName> = ReturnType<(typeof specs)[K]["parse"]>;

/** Every declared variable, in the documented order (a family after the local provider's key), with its name. */
export const ENV_VARS: readonly EnvSpec<unknown>[] = Object.entries(specs).flatMap(([name, s]) => [
  { ...(s as EnvSpec<unknown>), name },
  ...(name === LOCAL_API_KEY_ENV ? patterns : []),
]);

/** The declaration of `name`: its own, or the pattern that covers it. */
export function envSpec(name: string): EnvSpec<unknown> | undefined {
  if (Object.hasOwn(specs, name)) return { ...(specs as Record<string, EnvSpec<unknown>>)[name], name };
  return patterns.find((p) => p.pattern?.test(name));
}

/**
 * A variable's typed value: its default when unset or blank, else the parsed value. A value that does
 * not parse throws JuryError `invalid_env` naming the variable and the value (exit 2).
 */
export function readEnv<K extends EnvName>(name: K, env: Env = process.env): ValueOf<K> {
  return (specs[name] as EnvSpec<ValueOf<K>>).parse(env[name], name);
}

/**
 * Every declared variable that is set to a value that does not parse, as the errors readEnv would
 * throw: for a command to refuse up front (`jury` checks them before any command runs).
 */
export function invalidEnv(env: Env = process.env): JuryError[] {
  const out: JuryError[] = [];
  for (const name of Object.keys(specs) as EnvName[]) {
    try {
      readEnv(name, env);
    } catch (err) {
      out.push(err as JuryError);
    }
  }
  return out;
}

const GROUP_TITLES: Record<EnvGroup, string> = {
  server: "server",
  providers: "providers",
  limits: "limits",
  paths: "folders",
  review: "`jury review`",
  memory: "memory",
  internal: "not a setting",
};

/** docs/configuration.md's table, as Markdown: one row per variable, in declaration order. */
export function envMarkdownTable(): string {
  const rows = ENV_VARS.map((v) => [`\`${v.name}\``, GROUP_TITLES[v.group], v.defaultText || "—", v.help]);
  const header = ["Variable", "For", "Default", "What it does"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(header), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...rows.map(line)].join("\n");
}
