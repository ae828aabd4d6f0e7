import type { Db } from "@/db/client";
import { JuryError } from "../errors";
import type { CriterionPanelStats } from "../judging/panel-stats";
import type { RunComparison } from "../runs/compare";
import { type CommandSpec, flag, formatHelp, int, oneOf, parseCommand, text } from "./args";
import { formatVerdictTable, statusLabel, type VerdictRow } from "./verdict-table";

/**
 * `jury runs list|show|compare`: what the dashboard's Runs, run and Compare pages show, for a
 * terminal or CI. The figures come from the functions those pages use: panelStats
 * (lib/judging/panel-stats.ts) and compareRuns (lib/runs/compare.ts).
 */
export const RUNS_COMMANDS = {
  list: {
    name: "runs list",
    summary: "Lists the newest runs: id, suite, status, cases, tasks done and failed, cost, created.",
    options: {
      limit: int("<n>", 1, 10_000, "how many runs, newest first (default 100)"),
      json: flag("print JSON"),
    },
  },
  show: {
    name: "runs show",
    args: "<run-id>",
    summary:
      "Shows a run: its verdict table (as jury eval prints it), then per criterion Krippendorff's alpha across the judges and each judge's self-consistency (alpha across its own samples) and offset from the panel.",
    options: {
      json: flag("print JSON: the run, its verdicts per case and criterion, and the panel statistics"),
    },
    positionals: { min: 1, max: 1 },
  },
  compare: {
    name: "runs compare",
    args: "<run-a> <run-b>",
    summary:
      "Compares two runs over the case × criterion cells both have: score deltas (B − A), pass/fail flips, spreads, and the paired test (mean difference, bootstrap 95% interval, sign-flip p).",
    options: { json: flag("print JSON (the compare page's figures)") },
    positionals: { min: 2, max: 2 },
  },
  export: {
    name: "runs export",
    args: "<run-id>",
    summary:
      "Exports a run's samples and verdicts: one row per sample (run, case, criterion, judge, sample index, score, passed, reasoning, tokens, cost, latency, error; retried and re-sampled ones marked), the same file the run page's Export links give. Secrets are redacted.",
    options: {
      format: oneOf(["csv", "json"] as const, "csv (default) or json"),
      out: text("<file>", "write to this file instead of standard output"),
    },
    positionals: { min: 1, max: 1 },
  },
} satisfies Record<string, CommandSpec>;

export const RUNS_HELP = `Usage: jury runs <command>

The runs the dashboard shows, from the same database.

Commands:
  list [--limit n] [--json]        the newest runs
  show <run-id> [--json]           a run's verdicts, alpha across judges, each judge's self-consistency
  compare <run-a> <run-b> [--json] deltas, pass flips and the paired test (as the compare page)
  export <run-id> [--format csv|json] [--out file]
                                   a run's samples and verdicts, one row per sample (as the run page's Export)

jury runs <command> --help for its options.
`;

const f2 = (x: number | null | undefined) =>
  x === null || x === undefined || Number.isNaN(x) ? "—" : x.toFixed(2);
const signed = (x: number | null) => (x === null ? "—" : `${x > 0 ? "+" : ""}${x.toFixed(2)}`);
const usd = (x: number) => `$${x.toFixed(x < 1 ? 4 : 2)}`;

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  return `${lines.join("\n")}\n`;
}

async function queries() {
  return import("@/db/queries/runs");
}

async function runOrFail(db: Db, id: string) {
  const run = await (await queries()).getRunById(db, { id });
  if (!run) throw new JuryError("usage", `No run with id "${id}" (jury runs list shows them)`);
  return run;
}

/** The runs list, as `jury runs list --json` prints it. */
export async function listRunsSummary(db: Db, limit = 100) {
  const q = await queries();
  const progress = await q.getProgressByRun(db);
  const out = [];
  for (const r of await q.listRuns(db, { limit })) {
    const p = progress.get(r.id) ?? { done: 0, errors: 0, costUsd: 0 };
    out.push({
      id: r.id,
      suite: r.suiteName,
      suite_path: r.suitePath,
      status: r.status,
      judges: r.options.judges,
      n: r.options.n,
      cases: (await q.getRunCases(db, { runId: r.id })).length,
      tasks: {
        total: r.totalTasks,
        done: p.done,
        failed: p.errors,
        pending: Math.max(0, r.totalTasks - p.done - p.errors),
      },
      cost_usd: p.costUsd,
      created_at: r.createdAt.toISOString(),
      finished_at: r.finishedAt ? r.finishedAt.toISOString() : null,
      error: r.error,
    });
  }
  return out;
}

/** A run with its verdicts and panel statistics, as `jury runs show --json` prints it. */
export async function showRun(db: Db, id: string) {
  const q = await queries();
  const { panelStats } = await import("../judging/panel-stats");
  const run = await runOrFail(db, id);
  const cases = await q.getRunCases(db, { runId: id });
  const results = await q.getRunResults(db, { runId: id });
  const progress = await q.getRunProgress(db, { runId: id });
  const panel: CriterionPanelStats[] = panelStats(
    await q.getRunSamples(db, { runId: id }),
    run.options.judges,
  );
  return {
    run: {
      id: run.id,
      suite: run.suiteName,
      suite_path: run.suitePath,
      status: run.status,
      options: run.options,
      created_at: run.createdAt.toISOString(),
      finished_at: run.finishedAt ? run.finishedAt.toISOString() : null,
      error: run.error,
    },
    progress: {
      total: progress.total,
      done: progress.done,
      failed: progress.errors,
      pending: progress.pending,
      cost_usd: progress.costUsd,
    },
    cases: cases.map((c) => ({
      case_id: c.caseId,
      name: c.name,
      criteria: results.filter((r) => r.caseId === c.caseId).map((r) => r.data),
    })),
    panel_stats: panel,
    /** for the text table */
    _rows: { cases, results },
  };
}

/** Two runs compared by compareRuns, the function the compare page uses. */
export async function compareTwoRuns(db: Db, a: string, b: string) {
  const q = await queries();
  const { compareRuns } = await import("../runs/compare");
  const ra = await runOrFail(db, a);
  const rb = await runOrFail(db, b);
  const out: RunComparison = compareRuns(
    await q.getRunResults(db, { runId: a }),
    await q.getRunResults(db, { runId: b }),
  );
  return {
    a: { id: ra.id, suite: ra.suiteName, status: ra.status, judges: ra.options.judges, n: ra.options.n },
    b: { id: rb.id, suite: rb.suiteName, status: rb.status, judges: rb.options.judges, n: rb.options.n },
    ...out,
  };
}

function panelText(stats: CriterionPanelStats[]): string {
  if (stats.length === 0) return "panel agreement: no judge scores yet\n";
  const rows = [["criterion", "judge", "alpha across judges", "self-consistency", "offset", "cases"]];
  for (const s of stats) {
    rows.push([s.criterionId, "(panel)", f2(s.alphaAcrossJudges), "", "", String(s.cases)]);
    for (const j of s.judges)
      rows.push(["", j.judge, "", f2(j.selfConsistency), signed(j.meanOffset), String(j.cases)]);
  }
  return `panel agreement (Krippendorff's alpha, interval; self-consistency is alpha across a judge's own samples):\n${table(rows)}`;
}

function compareText(c: Awaited<ReturnType<typeof compareTwoRuns>>): string {
  const rows = [["case", "criterion", "A", "B", "Δ", "verdict", "spread A / B"]];
  for (const x of c.cells)
    rows.push([
      x.caseId,
      x.criterionId,
      f2(x.a),
      f2(x.b),
      signed(x.delta),
      x.flipped ? `flip: ${x.passedA ? "pass→FAIL" : "FAIL→pass"}` : x.passedA ? "pass" : "FAIL",
      `${f2(x.spreadA)} / ${f2(x.spreadB)}`,
    ]);
  const p = c.paired;
  return [
    `A ${c.a.id} (${c.a.suite}, ${statusLabel(c.a.status)}) · B ${c.b.id} (${c.b.suite}, ${statusLabel(c.b.status)})`,
    `${c.cells.length} case × criterion cells in both runs · ${c.flips} pass/fail flip${c.flips === 1 ? "" : "s"} · mean |Δ| ${f2(c.meanAbsDelta)}`,
    p
      ? `paired test over ${p.n} cells scored in both: mean B − A ${signed(p.meanDiff)}, 95% interval [${f2(p.low)}, ${f2(p.high)}], sign-flip p = ${p.p.toPrecision(3)}${p.exact ? " (exact)" : ""}`
      : "paired test: no cell has a score in both runs",
    "",
    c.cells.length ? table(rows) : "",
  ].join("\n");
}

export async function runsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    process.stdout.write(RUNS_HELP);
    return 0;
  }
  if (!Object.hasOwn(RUNS_COMMANDS, sub))
    throw new JuryError(
      "usage",
      sub.startsWith("-")
        ? `Unknown option ${sub}: give a command first (list, show, compare or export; see jury runs --help)`
        : `Unknown runs command "${sub}": use list, show, compare or export (see jury runs --help)`,
    );
  const spec = RUNS_COMMANDS[sub as keyof typeof RUNS_COMMANDS] as CommandSpec;
  const { values, positionals, help } = parseCommand(spec, rest);
  if (help) {
    process.stdout.write(formatHelp(spec));
    return 0;
  }
  const { getDb } = await import("@/db/client");
  const db = getDb();
  const json = Boolean(values.json);
  const print = (v: unknown) => process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);

  if (sub === "list") {
    const runs = await listRunsSummary(db, (values.limit as number | undefined) ?? 100);
    if (json) print(runs);
    else if (runs.length === 0)
      process.stdout.write("No runs yet. Start one: jury eval examples/suites/qa\n");
    else
      process.stdout.write(
        table([
          ["run", "suite", "status", "cases", "tasks done", "failed", "cost", "created"],
          ...runs.map((r) => [
            r.id,
            r.suite,
            statusLabel(r.status),
            String(r.cases),
            `${r.tasks.done} of ${r.tasks.total}`,
            String(r.tasks.failed),
            usd(r.cost_usd),
            r.created_at.replace("T", " ").slice(0, 19),
          ]),
        ]),
      );
    return 0;
  }
  if (sub === "show") {
    const { _rows, ...shown } = await showRun(db, positionals[0]);
    if (json) {
      print(shown);
      return 0;
    }
    const r = shown.run;
    process.stdout.write(
      [
        `run ${r.id}: ${r.suite} (${statusLabel(r.status)})${r.error ? ` — ${r.error}` : ""}`,
        `judges ${r.options.judges.join(", ")} · N = ${r.options.n} · temperature ${r.options.temperature} · ${shown.cases.length} cases · tasks ${shown.progress.done} of ${shown.progress.total} done, ${shown.progress.failed} failed · cost ${usd(shown.progress.cost_usd)}`,
        "",
        formatVerdictTable(r.id, r.status, _rows.cases, _rows.results as unknown as VerdictRow[]),
        panelText(shown.panel_stats),
      ].join("\n"),
    );
    return 0;
  }
  if (sub === "export") {
    await runOrFail(db, positionals[0]);
    const { exportRun } = await import("../runs/export");
    const out = await exportRun(db, positionals[0], (values.format as "csv" | "json" | undefined) ?? "csv");
    if (values.out) {
      const fs = await import("node:fs");
      fs.writeFileSync(values.out as string, out.body);
      process.stderr.write(`wrote ${values.out}\n`);
    } else process.stdout.write(out.body);
    return 0;
  }
  const c = await compareTwoRuns(db, positionals[0], positionals[1]);
  if (json) print(c);
  else process.stdout.write(compareText(c));
  return 0;
}
