import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { installRoot } from "../../db/path";
import { type EnvGroup, envSpec, invalidEnv, readEnv } from "../env/registry";
import { errorMessage, JuryError } from "../errors";
import { EXIT, exitCodeFor } from "../exit-codes";
import { type CommandSpec, formatHelp, parseCommand } from "./args";

/** The version in the package.json beside dist/ (the installed package's, or the checkout's). */
function version(): string {
  try {
    return JSON.parse(fs.readFileSync(path.join(installRoot(), "package.json"), "utf8")).version;
  } catch {
    return "unknown";
  }
}

const HELP = `jury — measure and ship LLM judges

Usage: jury <command> [options]

Commands:
  eval <suite-dir>    Run a suite with a panel of judges (jury eval --help)
  runs <command>      Runs: list, show one (verdicts, alpha, self-consistency), compare two, export one (jury runs --help)
  memory <command>    Memories: the Claude Code hook, search, import, experiments (jury memory --help)
  agreement <command> Judges against people and published data: imports, position bias (jury agreement --help)
  audit [--format F]  The audit log: settings saves, promotions, user changes; csv or jsonl (jury audit --help)
  panel optimize <id> The cheapest panel and N that agree with people, from a labelled run or an import (jury panel --help)
  review [options]    Judge a code change: criteria + diff + tests → verdict (jury review --help)
  settings <command>  Settings: list, get <path>, set <path> <value> (jury settings --help)
  ui [--port N]       Serve the dashboard and print its URL (jury ui --help)
  users <command>     People: add (prints a token once), list, remove, rotate, role (jury users --help)
  worker [--once]     Work the store's runs beside the processes that started them (jury worker --help)
  db migrate          Create or update the database (JURY_DB, default: the per-user data folder)
  help [command]      Show this help, or a command's

Options:
  -h, --help          Show help
  -v, --version       Show the version

Exit codes: 0 pass, 1 fail, 2 usage or configuration error (the message names the flag, setting or
variable and the bad value), 3 infrastructure (a judge, worker, database or system under test that
did not answer).

Environment: every variable is listed in docs/configuration.md. The common ones:
  JURY_DB                       SQLite file (default: jury.db in the per-user data folder;
                                jury db migrate prints where)
  OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY
  JURY_LOCAL_BASE_URL           OpenAI-compatible endpoint for local:<model> (Ollama: http://127.0.0.1:11434/v1)
  JURY_LOCAL_API_KEY            its key, if it needs one
`;

export const DB_MIGRATE: CommandSpec = {
  name: "db migrate",
  summary:
    "Creates the database, or applies the migrations it lacks, and prints where it is (JURY_DB; default: a checkout's existing data/jury.db, else jury.db in the per-user data folder).",
  options: {},
};

type Command = (args: string[]) => Promise<number>;

// Each command loads its own modules, so `jury --help` stays fast.
const commands: Record<string, Command> = {
  agreement: async (args) => (await import("./agreement")).agreementCommand(args),
  audit: async (args) => (await import("./audit")).auditCommand(args),
  eval: async (args) => (await import("./eval")).evalCommand(args),
  memory: async (args) => (await import("./memory")).memoryCommand(args),
  panel: async (args) => (await import("./panel")).panelCommand(args),
  review: async (args) => (await import("./review")).reviewCommand(args),
  runs: async (args) => (await import("./runs")).runsCommand(args),
  settings: async (args) => (await import("./settings")).settingsCommand(args),
  ui: async (args) => (await import("./ui")).uiCommand(args),
  users: async (args) => (await import("./users")).usersCommand(args),
  worker: async (args) => (await import("./worker")).workerCommand(args),
  db: async (args) => {
    const [sub, ...rest] = args;
    if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
      process.stdout.write(formatHelp(DB_MIGRATE));
      return 0;
    }
    if (sub !== "migrate")
      throw new JuryError("usage", `Unknown db command "${sub}". Try: jury db migrate (see jury db --help)`);
    if (parseCommand(DB_MIGRATE, rest).help) {
      process.stdout.write(formatHelp(DB_MIGRATE));
      return 0;
    }
    const { describeStore, readyDb } = await import("../../db/client");
    await readyDb();
    process.stdout.write(`Database ready: ${describeStore()}\n`);
    return 0;
  },
};

/** The variables a command reads; the server's own (and values set by tools) are checked by the server. */
const CHECKED_GROUPS: readonly EnvGroup[] = ["providers", "limits", "paths", "review", "memory"];

/**
 * Every variable the CLI reads that is set to a value that does not parse: a configuration error
 * (exit 2) naming each variable and its value, before the command does anything.
 */
function checkEnv(): void {
  const bad = invalidEnv().filter((e) => {
    const group = envSpec(String(e.details?.variable))?.group;
    return group !== undefined && CHECKED_GROUPS.includes(group);
  });
  if (bad.length) throw new JuryError("invalid_env", bad.map((e) => e.message).join("\n"));
  readEnv("JURY_DATABASE_URL"); // a value that is no PostgreSQL URL is named first
}

const wantsHelp = (args: string[]) => args.includes("--help") || args.includes("-h");

export async function main(argv: string[]): Promise<number> {
  // options before the command are jury's own; the rest is the command's
  const at = argv.findIndex((a) => !a.startsWith("-"));
  const own = at < 0 ? argv : argv.slice(0, at);
  let values: { help?: boolean; version?: boolean };
  try {
    ({ values } = parseArgs({
      args: own,
      options: { help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } },
      strict: true,
    }));
  } catch (err) {
    // node's message names the option; its advice about "--" is for positional arguments
    const message = errorMessage(err).split(". To specify")[0].replace(/\.$/, "");
    process.stderr.write(`jury: ${message}. Run \`jury --help\` for the options.\n`);
    return EXIT.usage;
  }
  if (values.version) {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  let name = at < 0 ? undefined : argv[at];
  let rest = at < 0 ? [] : argv.slice(at + 1);
  if (name === "help") {
    // `jury help eval` is `jury eval --help`
    name = rest[0];
    rest = ["--help"];
    if (name && !commands[name]) {
      process.stderr.write(`jury: unknown command "${name}". Run \`jury --help\` for the list.\n`);
      return EXIT.usage;
    }
  }
  if (!name || values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`jury: unknown command "${name}". Run \`jury --help\` for the list.\n`);
    return EXIT.usage;
  }
  try {
    if (!wantsHelp(rest)) {
      checkEnv();
      // the shared store: its pool opened and migrations applied before the command reads it
      if (readEnv("JURY_DATABASE_URL") && name !== "db") await (await import("../../db/client")).readyDb();
    }
    return await command(rest);
  } catch (err) {
    process.stderr.write(`jury ${name}: ${errorMessage(err)}\n`);
    return exitCodeFor(err);
  }
}
