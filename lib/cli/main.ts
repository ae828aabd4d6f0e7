import { parseArgs } from "node:util";
import { JuryError } from "../errors";
import { exitCodeFor } from "../exit-codes";

const VERSION = "0.1.0";

const HELP = `jury — measure and ship LLM judges

Usage: jury <command> [options]

Commands:
  eval <suite-dir>    Run a suite with a panel of judges (jury eval --help)
  memory <command>    Memories: the Claude Code hook, search, import, experiments (jury memory --help)
  review [options]    Judge a code change: criteria + diff + tests → verdict (jury review --help)
  db migrate          Create or update the database (JURY_DB, default data/jury.db)
  settings            Print the current settings as JSON (keys are never stored)
  help                Show this help

Options:
  -h, --help          Show help
  -v, --version       Show the version

Environment:
  JURY_DB                       SQLite file (default data/jury.db)
  OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY
  JURY_LOCAL_BASE_URL           OpenAI-compatible endpoint for local:<model> (Ollama: http://127.0.0.1:11434/v1)
  JURY_LOCAL_API_KEY            its key, if it needs one
`;

type Command = (args: string[]) => Promise<number>;

// Each command loads its own modules, so `jury --help` stays fast.
const commands: Record<string, Command> = {
  eval: async (args) => (await import("./eval")).evalCommand(args),
  memory: async (args) => (await import("./memory")).memoryCommand(args),
  review: async (args) => (await import("./review")).reviewCommand(args),
  db: async (args) => {
    if (args[0] !== "migrate")
      throw new JuryError("usage", `Unknown db command "${args[0] ?? ""}". Try: jury db migrate`);
    const { getDb } = await import("../../db/client");
    getDb();
    process.stdout.write(`Database ready: ${(await import("../../db/path")).resolveDbPath()}\n`);
    return 0;
  },
  settings: async () => {
    const { getDb } = await import("../../db/client");
    const { readSettings } = await import("../settings/store");
    process.stdout.write(`${JSON.stringify(readSettings(getDb()), null, 2)}\n`);
    return 0;
  },
};

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } },
    allowPositionals: true,
    strict: false,
  });
  const [name] = positionals;
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (!name || name === "help" || (values.help && !commands[name])) {
    process.stdout.write(HELP);
    return 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`jury: unknown command "${name}". Run \`jury --help\` for the list.\n`);
    return 2;
  }
  try {
    return await command(argv.slice(argv.indexOf(name) + 1));
  } catch (err) {
    process.stderr.write(`jury ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    // 2: bad options, or a file Jury refuses to read (outside its folder, not a regular file, too big)
    return exitCodeFor(err);
  }
}
