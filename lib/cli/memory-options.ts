/**
 * The options of each `jury memory` subcommand, declared once (lib/cli/args.ts): each subcommand
 * accepts only its own, an unknown option or a bad value is a usage error naming it (exit 2), and
 * `jury memory <command> --help` is printed from here. Values stay the strings the command reads;
 * the declared parsers only refuse bad ones, before anything is opened.
 *
 * `memory log` parses its own options (lib/cli/memory-log.ts).
 */
import { JuryError } from "../errors";
import { RETRIEVAL_KINDS, RETRIEVAL_MODES } from "../memory/kinds";
import {
  type CommandSpec,
  choiceValue,
  formatHelp,
  intValue,
  judgesValue,
  nonEmpty,
  type Opt,
  parseCommand,
} from "./args";

/** A string option whose value is checked by `check` and kept as written. */
const checked = (
  arg: string,
  help: string,
  check: (raw: string, flag: string) => unknown,
  bad?: string,
): Opt<string> => ({
  type: "string",
  arg,
  help,
  parse: (raw, flag) => {
    check(raw, flag);
    return raw;
  },
  bad,
});
const flag = (help: string): Opt<boolean> => ({ type: "boolean", help });

/** Every option of `jury memory`, each subcommand taking some. */
export const MEMORY_OPTIONS = {
  collection: checked(
    "<name>",
    "the memory collection (default: $JURY_MEMORY_COLLECTION, else one named after the project, else the promoted one, else default)",
    nonEmpty,
  ),
  json: flag("print JSON"),
  kind: checked(
    "bm25|single|dual_strict|dual_lenient",
    "the configuration (default bm25)",
    choiceValue(RETRIEVAL_KINDS),
    "nope",
  ),
  mode: checked(
    "auto|search",
    "the hook's mode (auto) or on-demand search (search)",
    choiceValue(RETRIEVAL_MODES),
    "nope",
  ),
  "top-k": checked(
    "<n>",
    "memories kept per query (1 to 1000; a judge run at most 100)",
    intValue(1, 1000),
    "0",
  ),
  pool: checked("<n>", "the judge's candidate pool (1 to 100; not for bm25)", intValue(1, 100), "0"),
  depth: checked("<n>", "BM25 runs: ranked candidates kept (1 to 1000)", intValue(1, 1000), "1001"),
  model: checked(
    "provider:model",
    "the judge (default: Settings → memory judge)",
    (raw, f) => {
      if (judgesValue(raw, f).length !== 1)
        throw new JuryError("usage", `${f} takes one judge, got "${raw}"`);
    },
    "nomodel",
  ),
  n: checked("<n>", "samples per query (1 to 10)", intValue(1, 10), "11"),
  "fixed-order": flag("show the candidates in their BM25 order (default: shuffled)"),
  salt: checked("<s>", "the shuffle's salt", nonEmpty),
  body: flag("show the judge each memory's body, not only its title and tags"),
  resume: checked(
    "<experiment-id>",
    "finish an interrupted experiment (queries already done are kept)",
    nonEmpty,
  ),
  split: checked("<split>", "the qrels split: qrels/<split>.tsv (default: test when present)", nonEmpty),
  limit: checked("<n>", "memories shown (1 to 100)", intValue(1, 100), "0"),
} satisfies Record<string, Opt<unknown>>;

type Name = keyof typeof MEMORY_OPTIONS;
const pick = (...names: Name[]) =>
  Object.fromEntries(names.map((n) => [n, MEMORY_OPTIONS[n]])) as Partial<typeof MEMORY_OPTIONS>;

/** Each subcommand, its arguments and its options. */
export const MEMORY_COMMANDS: Record<string, CommandSpec> = {
  retrieve: {
    name: "memory retrieve",
    summary:
      "Claude Code's UserPromptSubmit hook: the hook JSON on stdin, the <memory-context> block on stdout; always exits 0.",
    options: pick("collection"),
  },
  search: {
    name: "memory search",
    args: '"<query>"',
    summary: "On-demand search: BM25 candidates, judged leniently when the memory judge is on.",
    options: pick("collection", "mode", "limit", "json"),
    positionals: { min: 1, max: Number.POSITIVE_INFINITY },
  },
  import: {
    name: "memory import",
    args: "<folder>",
    summary: "Imports JSON memory files (one memory or an array per file).",
    options: pick("collection"),
    positionals: { min: 1, max: 1 },
  },
  "import-beir": {
    name: "memory import-beir",
    args: "<dir>",
    summary: "Imports a BEIR collection (corpus.jsonl, queries.jsonl, qrels/<split>.tsv).",
    options: pick("collection", "split", "json"),
    positionals: { min: 1, max: 1 },
  },
  "import-example": {
    name: "memory import-example",
    summary:
      'Imports the example study that ships with Jury (54 memories of a web shop API project, 20 prompts with their relevant memories) into the collection "shop-api", named after that project; an existing one is left as it is.',
    options: pick("json"),
  },
  "import-study": {
    name: "memory import-study",
    args: "<dir>",
    summary: "Imports a study folder (memories/, queries.json with ground truth).",
    options: pick("collection", "json"),
    positionals: { min: 1, max: 1 },
  },
  experiment: {
    name: "memory experiment",
    summary: "Runs a retrieval configuration over every study query and prints its metrics.",
    options: pick(
      "collection",
      "kind",
      "mode",
      "top-k",
      "pool",
      "depth",
      "model",
      "n",
      "fixed-order",
      "salt",
      "body",
      "resume",
      "json",
    ),
  },
  metrics: {
    name: "memory metrics",
    args: "<experiment-id>",
    summary: "Prints an experiment's metrics.",
    options: pick("collection", "json"),
    positionals: { min: 1, max: 1 },
  },
  "export-qrels": {
    name: "memory export-qrels",
    summary: "Prints the collection's ground truth as TREC qrels.",
    options: pick("collection"),
  },
  "export-labels": {
    name: "memory export-labels",
    args: "<collection>",
    summary:
      "Prints a study's labels: CSV (default; one row per query × memory label: collection, query id and text, memory id, relevant yes/no, grade, who set it, when) or TREC qrels (the labelled queries, as export-qrels). The same file as the study page's Export links.",
    options: {
      format: checked("csv|qrels", "csv (default) or qrels", choiceValue(["csv", "qrels"]), "xml"),
    },
    positionals: { min: 1, max: 1 },
  },
  "export-metrics": {
    name: "memory export-metrics",
    args: "<collection>",
    summary:
      "Prints a study's metrics, one row per configuration as the study page's table shows them (precision over all queries and over those the judge answered, recall, F1, P@k, nDCG@10 and R@100 for qrels studies, latency, cost, path mix): CSV (default) or JSON. The same file as the study page's Export link.",
    options: {
      format: checked("csv|json", "csv (default) or json", choiceValue(["csv", "json"]), "xml"),
    },
    positionals: { min: 1, max: 1 },
  },
  "export-run": {
    name: "memory export-run",
    args: "<experiment-id>",
    summary: "Prints an experiment's results as a TREC run file (BM25 runs give their ranked candidates).",
    options: {},
    positionals: { min: 1, max: 1 },
  },
};

export type MemoryValues = {
  [K in Name]?: K extends "json" | "fixed-order" | "body" ? boolean : string;
} & { format?: string };

/**
 * Parses `jury memory <sub> …` strictly against the subcommand's own options. `help` is the text to
 * print when --help was asked (for `jury memory --help` too). The collection is resolved later, with
 * the store open (lib/memory/collection.ts).
 */
export function parseMemoryArgs(
  sub: string | undefined,
  rest: string[],
  overview: string,
): { help?: string; values: MemoryValues; positionals: string[] } {
  const none = { values: {}, positionals: [] };
  if (sub === undefined || sub === "help" || sub === "--help" || sub === "-h")
    return { ...none, help: overview };
  if (!Object.hasOwn(MEMORY_COMMANDS, sub))
    throw new JuryError(
      "usage",
      sub.startsWith("-")
        ? `Unknown option ${sub}: give a command first (see jury memory --help)`
        : `Unknown memory command "${sub}". Commands: ${[...Object.keys(MEMORY_COMMANDS), "log"].join(", ")} (see jury memory --help)`,
    );
  const spec = MEMORY_COMMANDS[sub];
  const r = parseCommand(spec, rest);
  if (r.help) return { ...none, help: formatHelp(spec) };
  return { values: r.values as MemoryValues, positionals: r.positionals };
}
