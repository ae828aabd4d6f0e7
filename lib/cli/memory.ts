import { JuryError } from "../errors";
import {
  exportQrelsCommand,
  exportRunCommand,
  exportStudyCommand,
  importBeirCommand,
  importCommand,
  importExampleCommand,
  importStudyCommand,
  searchCommand,
} from "./memory-commands";
import { experimentCommand } from "./memory-experiment";
import { printMetrics } from "./memory-metrics";
import { parseMemoryArgs } from "./memory-options";
import { type MemoryContext, need, resolveCliCollection } from "./memory-shared";

export const MEMORY_HELP = `Usage: jury memory <command> [options]

  retrieve                      Claude Code UserPromptSubmit hook: hook JSON on stdin, <memory-context> on stdout
  search "<query>" [--json]     on-demand search (lenient judge when enabled)
      --mode auto|search (default search)   --limit N (memories shown, 1 to 100)
  log [--json] [--limit N]      every retrieval logged: hook, search, skill (jury memory log --help)
  import <folder>               import JSON memory files (one memory or an array per file)
  import-beir <dir> [--split s] import a BEIR collection (corpus.jsonl, queries.jsonl, qrels/<split>.tsv;
                                default split: test when present)
  import-example                import the example study (a web shop API's memories) into "shop-api"
  import-study <dir>            import a study folder (memories/, queries.json; a query without
                                "relevant" needs annotation and is left out of the metrics)
  experiment [options]          run a configuration over every study query, print its metrics
      --kind bm25|single|dual_strict|dual_lenient   --mode auto|search   --top-k 3   --pool 15
      --depth 100 (BM25: ranked candidates kept, up to 1000)
      --model provider:model    --n 1    --fixed-order    --salt <s>    --body
      defaults: a qrels (BEIR) collection --mode search --top-k 10; an annotated study --mode auto
      and the judge's top-k for that mode
      --resume <experiment-id>  finish an interrupted experiment (queries already done are kept)
  metrics <experiment-id>       print an experiment's metrics
  export-qrels                  ground truth as TREC qrels (stdout)
  export-run <experiment-id>    results as a TREC run file (stdout; BM25 runs give their ranked candidates)
  export-labels <collection> [--format csv|qrels]
                                a study's labels as CSV (one row per query × memory label) or TREC qrels
  export-metrics <collection> [--format csv|json]
                                a study's metrics, one row per configuration (as the study page's table)

Common: --collection <name>, --json
  Without --collection: $JURY_MEMORY_COLLECTION, else a collection named after the project (the git
  repository's folder name) when one exists, else the collection promoted in Settings, else "default".
jury memory <command> --help shows a command's options; each takes only its own.
`;

/** Each subcommand that works on the database, by name (`log` and `retrieve` are handled before). */
const SUBCOMMANDS: Record<string, (c: MemoryContext) => Promise<number>> = {
  search: searchCommand,
  import: importCommand,
  "import-beir": importBeirCommand,
  "import-example": importExampleCommand,
  "import-study": importStudyCommand,
  experiment: experimentCommand,
  metrics: ({ db, values, positionals }) =>
    printMetrics(db, need(positionals[0], "an experiment id"), Boolean(values.json), values.collection),
  "export-qrels": exportQrelsCommand,
  "export-run": exportRunCommand,
  "export-labels": (c) => exportStudyCommand(c, "labels"),
  "export-metrics": (c) => exportStudyCommand(c, "metrics"),
};

/**
 * `jury memory <sub> …`: `log` parses its own options; the others are parsed strictly against their
 * own (lib/cli/memory-options.ts: anything else is a usage error), `--help` prints, `retrieve` runs
 * the hook, and the rest open the database and run their subcommand.
 */
export async function memoryCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "log") return (await import("./memory-log")).memoryLogCommand(rest); // its own options
  const { help, values, positionals } = parseMemoryArgs(sub, rest, MEMORY_HELP);
  if (help !== undefined) {
    process.stdout.write(help);
    return 0;
  }
  if (sub === "retrieve") return (await import("./memory-hook")).memoryRetrieveHook(values.collection); // bin/jury.cjs runs the hook from dist/hook.cjs instead
  const run = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  if (!run) throw new JuryError("usage", `Unknown memory command "${sub}".\n\n${MEMORY_HELP}`);
  const { getDb } = await import("@/db/client");
  const db = getDb();
  const resolved = await resolveCliCollection(db, values.collection);
  return run({ db, values, positionals, collection: resolved.name, resolved });
}
