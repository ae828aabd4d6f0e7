import type { Db } from "@/db/client";
import type { ImportSpec } from "../agreement/job-spec";
import type { Confusion, Figure, PointwiseReport } from "../agreement/metrics";
import type { JudgeReport, SetReport } from "../agreement/report";
import type { CriterionAgreement, RunAgreement } from "../agreement/run-agreement";
import type { AgreementShown } from "../agreement/service";
import { JuryError } from "../errors";
import { type CommandSpec, flag, formatHelp, int, judgesValue, type Opt, parseCommand, text } from "./args";
import { cliActor } from "./users";

/**
 * `jury agreement`: judges against gold labels. Imports published judgments (TREC qrels, LLMBar,
 * Jury's JSONL), runs a pairwise criterion in both orders (the position-bias audit), labels a run's
 * verdicts, and shows the figures of an import or a labelled run — what the dashboard's Agreement
 * page shows.
 */

const usage = (m: string) => new JuryError("usage", m);

/** `0-3`: a scale of whole numbers, low below high. */
const scaleOpt: Opt<[number, number]> = {
  type: "string",
  arg: "<low-high>",
  help: "the graded scale, inclusive (TREC default 0-3)",
  bad: "3-0",
  parse: (raw, flag) => {
    const m = /^\s*(-?\d+)\s*-\s*(-?\d+)\s*$/.exec(raw);
    const lo = m ? Number(m[1]) : Number.NaN;
    const hi = m ? Number(m[2]) : Number.NaN;
    if (!m || !(lo < hi))
      throw usage(`${flag} must be low-high whole numbers with low < high, like 0-3, got "${raw}"`);
    return [lo, hi];
  },
};

const namesOpt: Opt<string[]> = {
  type: "string",
  arg: "<a,b,…>",
  help: "the judges' names, one per judge file, in order (default: from each file's path)",
  parse: (raw, flag) => {
    const list = raw.split(",").map((s) => s.trim());
    if (list.some((s) => s === "")) throw usage(`${flag} needs names separated by commas, got "${raw}"`);
    return list;
  },
};

const json = flag("print JSON (disagreements summarised: counts and the first 20 per judge)");
const allDisagreements = flag("with --json: list every disagreement, not the first 20");
const name = text("<text>", "a name for the import (default: from the file)");

export const AGREEMENT_COMMANDS = {
  "import trec": {
    name: "agreement import trec",
    args: "<gold.qrels> <judge.qrels>…",
    summary:
      "Imports TREC qrels (`qid iter docid label` lines, graded): a gold file and one file per judge. Shows per judge accuracy, Cohen's κ, quadratic-weighted κ, κ on relevant/not at the cut, Krippendorff's α and the confusion matrix; gold pairs missing from a judge's file are counted and named, never guessed.",
    options: {
      cut: int("<n>", -1000, 1000, "binary relevance at label ≥ n (default 2)"),
      scale: scaleOpt,
      names: namesOpt,
      name,
      json,
      "all-disagreements": allDisagreements,
    },
    positionals: { min: 2, max: 1000 },
  },
  "import llmbar": {
    name: "agreement import llmbar",
    args: "<result.json>…",
    summary:
      "Imports LLMBar evaluators' result.json files (github.com/princeton-nlp/LLMBar): per item the winner with the outputs in their order (swap = False) and swapped (swap = True). Shows accuracy per order, their mean, accuracy in both orders, positional agreement and first-position wins, and LLMBar's own statistics.json counts.",
    options: {
      dataset: text("<dataset.json>", "the items and gold labels (default: read from the first result.json)"),
      names: namesOpt,
      name,
      json,
      "all-disagreements": allDisagreements,
    },
    positionals: { min: 1, max: 1000 },
    notes: `A judge is named after its folder: evaluators/GPT-4/Vanilla/result.json is "GPT-4/Vanilla".
A null winner (LLMBar found no answer) is counted as no usable answer: wrong in accuracy, never
agreeing in Jury's positional agreement (LLMBar's own "equal" counts two nulls as equal; both shown).`,
  },
  "import jsonl": {
    name: "agreement import jsonl",
    args: "<file.jsonl>",
    summary: "Imports Jury's JSONL of judgments with gold labels (one object a line; see below).",
    options: {
      scale: { ...scaleOpt, help: "graded scores: the scale, inclusive (default: lowest to highest seen)" },
      cut: int("<n>", -1000, 1000, "graded scores: also κ on pass/fail at score ≥ n"),
      name,
      json,
      "all-disagreements": allDisagreements,
    },
    positionals: { min: 1, max: 1 },
    notes: "",
  },
  pairwise: {
    name: "agreement pairwise",
    args: "<suite-folder>",
    summary:
      "Runs a pairwise criterion (criterion.json) over its items (dataset.json, LLMBar's layout) with each judge, each item in both orders, and shows the position-bias audit. Judges that cannot be called are refused before anything is spent or stored.",
    options: {
      judges: {
        type: "string",
        arg: "<provider:model,…>",
        help: "the judges (required)",
        parse: judgesValue,
        bad: "local:",
      },
      "one-order": flag("judge each item in its own order only (no swap)"),
      "no-cache": flag("call every judge afresh"),
      name,
      json,
    },
    positionals: { min: 1, max: 1 },
  },
  shuffles: {
    name: "agreement shuffles",
    args: "<experiment-a> <experiment-b>",
    summary:
      "The memory judge's order audit: two experiments that judged the same queries under different shuffles (jury memory experiment --shuffle --salt …). Per query the Jaccard similarity of the kept sets, their mean with a bootstrap interval, and the share of queries kept identically.",
    options: { json },
    positionals: { min: 2, max: 2 },
  },
  show: {
    name: "agreement show",
    args: "<import-or-run>",
    summary:
      "Shows the figures of an import or pairwise audit (its id), or of a run's judges against the labels people gave its verdicts (the run id): per criterion, per judge and for the panel. Reads the stored report; computes it (as a job, then stores it) when there is none or a run's labels changed since.",
    options: { json, "all-disagreements": allDisagreements },
    positionals: { min: 1, max: 1 },
  },
  list: {
    name: "agreement list",
    summary: "Lists the imports and pairwise audits, and the runs with labels.",
    options: { json },
  },
  label: {
    name: "agreement label",
    args: "<run-id> <case-id> <criterion-id> <pass|fail|clear>",
    summary:
      "Labels one verdict of a run (a person's pass/fail, and a score on the criterion's scale), kept with its history; clear removes the label.",
    options: {
      score: {
        type: "string",
        arg: "<n>",
        help: "a score on the criterion's scale",
        bad: "lots",
        parse: numberParse,
      },
      by: text("<name>", "who labels (kept with the label)"),
    },
    positionals: { min: 4, max: 4 },
  },
  undo: {
    name: "agreement undo",
    args: "<run-id>",
    summary: "Undoes the newest label change of a run (the undo is itself kept in the history).",
    options: {},
    positionals: { min: 1, max: 1 },
  },
} satisfies Record<string, CommandSpec>;

function numberParse(raw: string, flag: string): number {
  const n = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isFinite(n)) throw usage(`${flag} must be a number, got "${raw}"`);
  return n;
}

export const AGREEMENT_HELP = `Usage: jury agreement <command>

Judges against people and against published data: agreement with gold labels, and position bias.

Commands:
  import trec <gold.qrels> <judge.qrels>…  TREC qrels: accuracy, κ, quadratic κ, binary κ, confusion
  import llmbar <result.json>…             LLMBar: accuracy per order, mean, positional agreement
  import jsonl <file.jsonl>                Jury's JSONL: item_id, judge, label or score, gold
  pairwise <suite-folder> --judges …       a pairwise criterion in both orders: the position-bias audit
  shuffles <experiment-a> <experiment-b>   the memory judge under two shuffles: Jaccard of the kept sets
  show <import-or-run> [--json]            the figures of an import, an audit, or a labelled run
  list [--json]                            imports, audits and labelled runs
  label <run> <case> <criterion> pass|fail|clear [--score n]   label one verdict
  undo <run>                               undo the newest label change of a run

Every figure comes with n (the items it rests on) and a 95 % interval: Wilson for a proportion,
a percentile bootstrap for κ, quadratic κ, α and the mean accuracy of two orders (drawn from the
confusion cells' counts: the same distribution as resampling items). Reports are stored: show
reads them; --json summarises disagreements (--all-disagreements lists them all).
jury agreement <command> --help for its options.
`;

// ─── text ────────────────────────────────────────────────────────────────────

const f2 = (f: Figure | null | undefined) => {
  if (!f) return "—";
  if (f.value === null) return `— (n ${f.n})`;
  const i = f.low === null || f.high === null ? "" : ` [${f.low.toFixed(2)}, ${f.high.toFixed(2)}]`;
  return `${f.value.toFixed(2)}${i}`;
};
const pct = (f: Figure) => {
  if (f.value === null) return `— (n ${f.n})`;
  const i =
    f.low === null || f.high === null ? "" : ` [${(f.low * 100).toFixed(0)}, ${(f.high * 100).toFixed(0)}]`;
  return `${(f.value * 100).toFixed(1)}%${i} (n ${f.n})`;
};

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const lines = rows.map((r) =>
    r
      .map((c, i) => (c ?? "").padEnd(widths[i]))
      .join("  ")
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  return `${lines.join("\n")}\n`;
}

const catName = (c: number, passFail: boolean) => (passFail ? (c === 1 ? "pass" : "fail") : String(c));

function confusionText(c: Confusion, passFail: boolean, indent = "    "): string {
  const head = ["gold \\ judge", ...c.categories.map((x) => catName(x, passFail))];
  const rows = c.matrix.map((r, i) => [catName(c.categories[i], passFail), ...r.map(String)]);
  return table([head, ...rows])
    .split("\n")
    .map((l) => (l ? indent + l : l))
    .join("\n");
}

const list = (xs: readonly string[], max = 20) =>
  xs.length <= max ? xs.join(", ") : `${xs.slice(0, max).join(", ")} … and ${xs.length - max} more`;

function pointwiseRows(judge: string, p: PointwiseReport, extra: string[] = []): string[] {
  return [
    judge,
    String(p.n),
    pct(p.accuracy),
    f2(p.kappa),
    ...(p.weightedKappa ? [f2(p.weightedKappa)] : []),
    f2(p.alpha),
    ...(p.binary ? [f2(p.binary.kappa)] : []),
    ...extra,
  ];
}

export function setText(r: SetReport): string {
  const o = r.set.options;
  const out: string[] = [];
  const scale = Array.isArray(o.scale) ? ` ${o.scale[0]}–${o.scale[1]}` : "";
  out.push(
    `${r.set.id}: ${r.set.name} (${r.set.kind}, ${r.labels === "graded" ? `graded${scale}${typeof o.cut === "number" ? `, cut ≥ ${o.cut}` : ""}` : r.labels}) · ${r.items} items, ${r.goldItems} with a gold label · ${r.judges.length} judge${r.judges.length === 1 ? "" : "s"}`,
    "",
  );
  if (r.labels === "pairwise") {
    const rows = [
      [
        "judge",
        "items",
        "accuracy, original order",
        "accuracy, swapped",
        "mean",
        "both orders",
        "positional agreement",
        "first-position wins",
        "unusable",
      ],
    ];
    for (const j of r.judges) {
      const a = j.pairwise!;
      rows.push([
        j.judge,
        String(j.n),
        pct(a.accuracy.original),
        pct(a.accuracy.swapped),
        pct(a.accuracy.mean),
        pct(a.accuracy.both),
        pct(a.positionalAgreement),
        pct(a.firstPositionWins),
        `${a.unusable.original} / ${a.unusable.swapped}`,
      ]);
    }
    out.push(table(rows));
    for (const j of r.judges) {
      const notes: string[] = [];
      if (j.llmbar) {
        const s = j.llmbar;
        notes.push(
          `LLMBar's statistics.json: correct_False ${s.correct_False}/${s.n}, correct_True ${s.correct_True}/${s.n}, correct_average ${(s.correct_average * 100).toFixed(2)}%, correct_both ${s.correct_both}/${s.n}, equal ${s.equal}/${s.n}`,
        );
      }
      if (j.pairwise!.inconsistent.length)
        notes.push(
          `winner changed with the order (or no usable answer): ${list(j.pairwise!.inconsistent.map((x) => x.itemId))}`,
        );
      if (j.missing.length) notes.push(`not judged: ${list(j.missing)}`);
      if (j.calls) notes.push(callsText(j));
      if (notes.length) out.push(`${j.judge}:\n${notes.map((n) => `  ${n}`).join("\n")}`);
    }
    return `${out.join("\n")}\n`;
  }
  const graded = r.labels === "graded";
  const head = [
    "judge",
    "n",
    "accuracy",
    "κ",
    ...(graded ? ["quadratic κ"] : []),
    graded ? "α (interval)" : "α (nominal)",
  ];
  if (r.judges.some((j) => j.pointwise?.binary)) head.push(`κ at ≥ ${o.cut}`);
  head.push("missing", "no gold");
  out.push(
    table([
      head,
      ...r.judges.map((j) =>
        pointwiseRows(j.judge, j.pointwise!, [String(j.missing.length), String(j.noGold.length)]),
      ),
    ]),
  );
  for (const j of r.judges) {
    out.push(`${j.judge}: confusion (rows gold, columns judge)`);
    out.push(confusionText(j.pointwise!.confusion, !graded));
    if (j.missing.length) out.push(`  missing from its file (not guessed): ${list(j.missing)}`);
    if (j.noGold.length) out.push(`  not in the gold file: ${list(j.noGold)}`);
    const d = j.pointwise!.disagreements;
    if (d.length)
      out.push(
        `  disagreements: ${list(
          d.map((x) => `${x.itemId} (${catName(x.gold, !graded)}→${catName(x.judge, !graded)})`),
          12,
        )}`,
      );
  }
  return `${out.join("\n")}\n`;
}

function callsText(j: JudgeReport): string {
  const c = j.calls!;
  return `${c.count} calls · ${c.inputTokens} input + ${c.outputTokens} output tokens · cost ${c.costUsd === null ? "unknown (no price)" : `$${c.costUsd.toFixed(4)}`}`;
}

function criterionText(runId: string, c: CriterionAgreement): string {
  const out = [
    `${c.criterionId} (scale ${c.scale[0]}–${c.scale[1]}, pass ≥ ${c.threshold}): ${c.labelled} of ${c.cells} cells labelled, ${c.scored} with a score`,
  ];
  if (c.labelled === 0) return `${out[0]}\n`;
  out.push(
    table([
      ["judge", "n", "accuracy (pass/fail)", "κ", "α (nominal)", "no answer"],
      ...c.judges.map((j) => pointwiseRows(j.judge, j.passFail, [String(j.noAnswer.length)])),
    ]),
  );
  if (c.judges.some((j) => j.scores))
    out.push(
      `scores:\n${table([
        ["judge", "n", "exact", "κ", "quadratic κ", "α (interval)"],
        ...c.judges.filter((j) => j.scores).map((j) => pointwiseRows(j.judge, j.scores!)),
      ])}`,
    );
  for (const j of c.judges) {
    const d = j.passFail.disagreements;
    if (d.length)
      out.push(
        `${j.judge} disagrees on: ${list(
          d.map(
            (x) =>
              `${x.itemId} (person ${catName(x.gold, true)}, judge ${catName(x.judge, true)}${x.judgeRaw !== undefined ? ` ${Number(x.judgeRaw.toFixed(2))}` : ""})`,
          ),
          12,
        )}`,
      );
    if (j.noAnswer.length) out.push(`${j.judge} gave no answer on: ${list(j.noAnswer)}`);
  }
  out.push(`samples: /runs/${runId}?case=<case>&criterion=${c.criterionId}`);
  return `${out.join("\n")}\n`;
}

export function runText(r: RunAgreement): string {
  return [
    `run ${r.runId}: ${r.labelled} of ${r.cells} case × criterion cells labelled by a person`,
    "",
    ...r.criteria.map((c) => criterionText(r.runId, c)),
  ].join("\n");
}

// ─── command ─────────────────────────────────────────────────────────────────

/** Runs `work` with a signal that Ctrl-C aborts (the job is cancelled: nothing is stored). */
async function withInterrupt<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const stop = () => controller.abort(new JuryError("usage", "Interrupted: nothing stored"));
  process.once("SIGINT", stop);
  try {
    return await work(controller.signal);
  } catch (err) {
    if (controller.signal.aborted) throw controller.signal.reason;
    throw err;
  } finally {
    process.off("SIGINT", stop);
    if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
  }
}

const progressLine = (what: string) =>
  process.stderr.isTTY
    ? (done: number, total: number) => process.stderr.write(`\r${what}: ${done} of ${total}`)
    : undefined;

/** The first disagreements --json lists per judge (all of them with --all-disagreements). */
export const JSON_DISAGREEMENTS = 20;

type Disagreement = { gold: number; judge: number };

/** A list of disagreements as --json gives it: counts per (gold, judge) pair, and the first N. */
function summarise<T extends Disagreement>(d: readonly T[], all: boolean) {
  const byPair = new Map<string, { gold: number; judge: number; count: number }>();
  for (const x of d) {
    const k = `${x.gold} ${x.judge}`;
    const e = byPair.get(k);
    if (e) e.count++;
    else byPair.set(k, { gold: x.gold, judge: x.judge, count: 1 });
  }
  return {
    count: d.length,
    by_labels: [...byPair.values()].sort((a, b) => a.gold - b.gold || a.judge - b.judge),
    shown: all ? d.length : Math.min(d.length, JSON_DISAGREEMENTS),
    items: all ? d : d.slice(0, JSON_DISAGREEMENTS),
  };
}

function summarisePointwise(p: PointwiseReport | null | undefined, all: boolean) {
  return p ? { ...p, disagreements: summarise(p.disagreements, all) } : p;
}

/** A report as --json prints it: every figure, the disagreements summarised (see summarise). */
export function forJson(shown: AgreementShown, all: boolean): object {
  if (shown.kind === "set")
    return {
      ...shown.report,
      judges: shown.report.judges.map((j) => ({ ...j, pointwise: summarisePointwise(j.pointwise, all) })),
    };
  return {
    ...shown.report,
    criteria: shown.report.criteria.map((c) => ({
      ...c,
      judges: c.judges.map((j) => ({
        ...j,
        passFail: summarisePointwise(j.passFail, all),
        scores: summarisePointwise(j.scores, all),
      })),
    })),
  };
}

/**
 * `jury agreement _job import <spec.json>` / `_job report <id>`: the process the dashboard starts to
 * work an import or a report off its request thread (not listed in the help).
 */
async function jobCommand(db: Db, p: string[]): Promise<number> {
  const jobs = await import("../agreement/jobs");
  if (p[0] === "import" && p[1]) {
    const { readImportSpec } = await import("../agreement/job-spec");
    const spec = readImportSpec(p[1]);
    try {
      await jobs.runImportJob(db, spec);
    } finally {
      if (spec.cleanup) (await import("node:fs")).rmSync(spec.cleanup, { recursive: true, force: true });
    }
    return 0;
  }
  if (p[0] === "report" && p[1]) {
    await jobs.currentReport(db, p[1]);
    return 0;
  }
  throw usage("jury agreement _job import <spec.json> | report <id>");
}

export async function agreementCommand(argv: string[]): Promise<number> {
  let [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    process.stdout.write(AGREEMENT_HELP);
    return 0;
  }
  if (sub === "import") {
    const format = rest[0];
    if (format === undefined || format === "--help" || format === "-h") {
      process.stdout.write(AGREEMENT_HELP);
      return 0;
    }
    sub = `import ${format}`;
    rest = rest.slice(1);
    if (!Object.hasOwn(AGREEMENT_COMMANDS, sub))
      throw usage(`Unknown import format "${format}": use trec, llmbar or jsonl (see jury agreement --help)`);
  }
  if (sub === "_job") {
    const { getDb } = await import("@/db/client");
    return jobCommand(getDb(), rest);
  }
  if (!Object.hasOwn(AGREEMENT_COMMANDS, sub))
    throw usage(
      sub.startsWith("-")
        ? `Unknown option ${sub}: give a command first (see jury agreement --help)`
        : `Unknown agreement command "${sub}": use import, pairwise, show, list, label or undo (see jury agreement --help)`,
    );
  const spec = AGREEMENT_COMMANDS[sub as keyof typeof AGREEMENT_COMMANDS] as CommandSpec;
  const { values: v, positionals, help } = parseCommand(spec, rest);
  if (help) {
    const { JSONL_FORMAT } = await import("../agreement/imports");
    process.stdout.write(formatHelp(sub === "import jsonl" ? { ...spec, notes: JSONL_FORMAT } : spec));
    return 0;
  }
  const values = v as Record<string, unknown>;
  const { getDb } = await import("@/db/client");
  const db = getDb();
  const asJson = Boolean(values.json);
  const print = (x: unknown) => process.stdout.write(`${JSON.stringify(x, null, 2)}\n`);

  const all = Boolean(values["all-disagreements"]);
  const importAs = async (spec: Omit<ImportSpec, "setId">) => {
    const { newSetId, runImportJob } = await import("../agreement/jobs");
    const r = await withInterrupt((signal) =>
      runImportJob(
        db,
        { ...spec, setId: newSetId(spec.format), createdBy: cliActor() },
        { signal, onProgress: progressLine("import") },
      ),
    );
    if (asJson) print({ set_id: r.setId, report: forJson({ kind: "set", report: r.report }, all) });
    else process.stdout.write(`Imported ${r.setId}.\n\n${setText(r.report)}`);
    return 0;
  };
  const ref = (p: string) => ({ name: p, path: p });
  switch (sub) {
    case "import trec":
      return importAs({
        format: "trec",
        gold: ref(positionals[0]),
        judges: positionals.slice(1).map(ref),
        options: {
          cut: values.cut as number | undefined,
          scale: values.scale as [number, number] | undefined,
          names: values.names as string[] | undefined,
          name: values.name as string | undefined,
        },
      });
    case "import llmbar":
      return importAs({
        format: "llmbar",
        gold: values.dataset ? ref(values.dataset as string) : null,
        judges: positionals.map(ref),
        options: { names: values.names as string[] | undefined, name: values.name as string | undefined },
      });
    case "import jsonl":
      return importAs({
        format: "jsonl",
        gold: null,
        judges: [ref(positionals[0])],
        options: {
          scale: values.scale as [number, number] | undefined,
          cut: values.cut as number | undefined,
          name: values.name as string | undefined,
        },
      });
    case "pairwise":
      return pairwise(db, positionals[0], values, asJson);
    case "show": {
      const { currentReport } = await import("../agreement/jobs");
      const shown = await withInterrupt((signal) =>
        currentReport(db, positionals[0], { signal, onProgress: progressLine("report") }),
      );
      if (!shown)
        throw new JuryError(
          "not_found",
          `No import or run with id "${positionals[0]}" (jury agreement list shows the imports and the labelled runs)`,
        );
      const out = forJson(shown, all);
      if (asJson) print(shown.kind === "set" ? { kind: "import", ...out } : { kind: "run", ...out });
      else process.stdout.write(shown.kind === "set" ? setText(shown.report) : runText(shown.report));
      return 0;
    }
    case "list":
      return listCommand(db, asJson);
    case "shuffles":
      return shufflesCommand(db, positionals[0], positionals[1], asJson);
    case "label":
      return labelCommand(db, positionals, values);
    default: {
      const { undoLastVerdictLabel } = await import("@/db/queries/labels");
      const { getRunById } = await import("@/db/queries/runs");
      if (!(await getRunById(db, { id: positionals[0] })))
        throw new JuryError("not_found", `No run with id "${positionals[0]}"`);
      const { cliActor } = await import("./users");
      const undone = await undoLastVerdictLabel(db, positionals[0], { labeller: null, author: cliActor() });
      process.stdout.write(
        undone
          ? `Undone: ${undone.caseId} × ${undone.criterionId} is back to ${undone.previousPassed === null ? "no label" : `${undone.previousPassed ? "pass" : "fail"}${undone.previousScore === null ? "" : ` (score ${undone.previousScore})`}`}.\n`
          : "Nothing to undo.\n",
      );
      return 0;
    }
  }
}

async function pairwise(
  db: Db,
  dir: string,
  values: Record<string, unknown>,
  asJson: boolean,
): Promise<number> {
  if (!values.judges)
    throw usage(
      "Give the judges: --judges provider:model[,provider:model…] (see jury agreement pairwise --help)",
    );
  const { loadPairwiseSuite, runPairwise } = await import("../agreement/pairwise-runner");
  const { readSettings } = await import("../settings/store");
  const suite = loadPairwiseSuite(dir);
  const controller = new AbortController();
  const stop = () => controller.abort(new JuryError("usage", "Interrupted: nothing stored"));
  process.once("SIGINT", stop);
  try {
    const tty = process.stderr.isTTY;
    const r = await runPairwise(db, await readSettings(db), suite, {
      judges: values.judges as string[],
      bothOrders: values["one-order"] ? false : undefined,
      noCache: Boolean(values["no-cache"]),
      name: values.name as string | undefined,
      signal: controller.signal,
      onProgress: tty ? (d, t) => process.stderr.write(`\r${d} of ${t} calls`) : undefined,
      createdBy: cliActor(),
    });
    if (tty) process.stderr.write("\n");
    if (asJson) print({ set_id: r.setId, report: r.report });
    else process.stdout.write(`Stored ${r.setId}.\n\n${setText(r.report)}`);
    return 0;
  } finally {
    process.off("SIGINT", stop);
  }
}

const print = (x: unknown) => process.stdout.write(`${JSON.stringify(x, null, 2)}\n`);

async function listCommand(db: Db, asJson: boolean): Promise<number> {
  const { listAgreementSets } = await import("@/db/queries/agreement");
  const { listLabelledRuns } = await import("@/db/queries/labels");
  const sets = (await listAgreementSets(db)).map((x) => ({
    id: x.id,
    kind: x.kind,
    name: x.name,
    items: x.items,
    judges: x.judges,
    created_at: x.createdAt.toISOString(),
  }));
  const runs = (await listLabelledRuns(db)).map((r) => ({
    run_id: r.runId,
    suite: r.suiteName,
    status: r.status,
    labels: r.labels,
    cells: r.cells,
    last_labelled_at: r.lastLabelledAt.toISOString(),
  }));
  if (asJson) {
    print({ imports: sets, runs });
    return 0;
  }
  const out: string[] = [];
  if (sets.length)
    out.push(
      table([
        ["import", "kind", "name", "items", "judges", "created"],
        ...sets.map((x) => [
          x.id,
          x.kind,
          x.name,
          String(x.items),
          list(x.judges, 4),
          x.created_at.replace("T", " ").slice(0, 19),
        ]),
      ]),
    );
  else out.push("No imports yet: jury agreement import trec|llmbar|jsonl … (jury agreement --help)\n");
  if (runs.length)
    out.push(
      table([
        ["run", "suite", "status", "labelled cells", "last labelled"],
        ...runs.map((r) => [
          r.run_id,
          r.suite,
          r.status,
          `${r.labels} of ${r.cells}`,
          r.last_labelled_at.replace("T", " ").slice(0, 19),
        ]),
      ]),
    );
  else out.push("No run has labels yet: label verdicts on a run page, or jury agreement label …\n");
  process.stdout.write(out.join("\n"));
  return 0;
}

async function labelCommand(db: Db, p: string[], values: Record<string, unknown>): Promise<number> {
  const [runId, caseId, criterionId, verdict] = p;
  if (!["pass", "fail", "clear"].includes(verdict))
    throw usage(`The label must be pass, fail or clear, got "${verdict}" (see jury agreement label --help)`);
  const { checkLabelTarget } = await import("../agreement/label-target");
  const { removeVerdictLabel, setVerdictLabel } = await import("@/db/queries/labels");
  const score = (values.score as number | undefined) ?? null;
  const labeller = (values.by as string | undefined) ?? null;
  const { cliActor } = await import("./users");
  const who = { labeller, author: cliActor() };
  if (verdict === "clear" && score !== null) throw usage("--score goes with pass or fail, not clear");
  await checkLabelTarget(db, { runId, caseId, criterionId }, score);
  const k = { runId, caseId, criterionId };
  const r =
    verdict === "clear"
      ? await removeVerdictLabel(db, k, who)
      : await setVerdictLabel(db, k, { passed: verdict === "pass", score }, who);
  process.stdout.write(
    `${caseId} × ${criterionId}: ${verdict === "clear" ? "label removed" : `${verdict}${score === null ? "" : ` (score ${score})`}`}${r.changed ? "" : " (unchanged)"}.\n`,
  );
  return 0;
}

async function shufflesCommand(db: Db, a: string, b: string, asJson: boolean): Promise<number> {
  const { getExperiment, getExperimentResults } = await import("@/db/queries/experiments");
  const { shuffleConsistency } = await import("../agreement/shuffle");
  for (const id of [a, b])
    if (!(await getExperiment(db, id)))
      throw new JuryError(
        "not_found",
        `No experiment with id "${id}" (jury memory experiments <collection> lists them)`,
      );
  const r = shuffleConsistency(await getExperimentResults(db, a), await getExperimentResults(db, b));
  if (asJson) {
    print({ a, b, ...r });
    return 0;
  }
  process.stdout.write(
    [
      `${a} vs ${b}: ${r.n} queries judged in both`,
      `mean Jaccard of the kept sets: ${f2(r.meanJaccard)} (n ${r.meanJaccard.n})`,
      `kept identically: ${pct(r.identical)}`,
      ...(r.leftOut.length ? [`left out (failed or in one experiment only): ${list(r.leftOut)}`] : []),
      "",
      table([
        ["query", "Jaccard", "kept only in A", "kept only in B"],
        ...r.perQuery.map((q) => [q.queryId, q.jaccard.toFixed(2), list(q.onlyA, 5), list(q.onlyB, 5)]),
      ]),
    ].join("\n"),
  );
  return 0;
}
