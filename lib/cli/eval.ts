import path from "node:path";
import { parseArgs } from "node:util";
import { getDb } from "@/db/client";
import { getRunById, getRunCases, getRunProgress, getRunResults, setRunStatus } from "@/db/queries/runs";
import type { RunOptions } from "@/db/schema";
import { loadProjectCriteria } from "../criteria/load";
import { JuryError } from "../errors";
import { budgetWarningText } from "../judging/prompt";
import { executeRun } from "../runs/execute-run";
import { createRun } from "../runs/plan-run";
import { enabledJudges } from "../settings/schema";
import { readSettings } from "../settings/store";
import { loadSuite } from "../suites/load-suite";
import { createProgressBar } from "./progress-bar";

export const EVAL_HELP = `Usage: jury eval <suite-dir> [options]
       jury eval --resume <run-id>

Runs a suite: every case × criterion × judge × N samples. Exits 1 when any case fails its threshold.

Options:
  --judges a:x,b:y     judges (default: those enabled in Settings)
  --n <1-10>           samples per judge (default: Settings, 3)
  --temperature <t>    sampling temperature (default: Settings, 0.8)
  --concurrency <c>    calls in flight (default: Settings)
  --no-cache           call the models even when a cached response exists
  --resume <run-id>    finish an interrupted run without redoing finished samples
  --json               print the run id and per case and criterion the aggregator's fields
`;

/** After SIGINT/SIGTERM the run has this long to wind down before the process leaves anyway. */
const STOP_DEADLINE_MS = 700;

/** The shell's convention, 128 + the signal's number: 130 for Ctrl-C (SIGINT), 143 for SIGTERM. */
const signalExitCode = (signal: NodeJS.Signals) => (signal === "SIGTERM" ? 143 : 130);

function num(name: string, v: string | undefined, min: number, max: number, int = false): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max || (int && !Number.isInteger(n))) {
    throw new JuryError(
      "usage",
      `--${name} must be ${int ? "a whole number" : "a number"} from ${min} to ${max}, got "${v}"`,
    );
  }
  return n;
}

export async function evalCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      judges: { type: "string" },
      n: { type: "string" },
      temperature: { type: "string" },
      concurrency: { type: "string" },
      "no-cache": { type: "boolean" },
      resume: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(EVAL_HELP);
    return 0;
  }
  const db = getDb();
  const settings = readSettings(db);
  const registry = loadProjectCriteria();
  for (const e of registry.errors)
    process.stderr.write(`warning: criteria/${e.folder}: ${e.field}: ${e.message}\n`);

  let runId: string;
  if (values.resume) {
    const run = getRunById(db, { id: values.resume });
    if (!run) throw new JuryError("usage", `No run with id "${values.resume}"`);
    runId = run.id;
  } else {
    const dir = positionals[0];
    if (!dir)
      throw new JuryError("usage", `Give a suite folder, e.g. jury eval examples/suites/qa\n\n${EVAL_HELP}`);
    const options: RunOptions = {
      judges: values.judges
        ? values.judges
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
        : enabledJudges(settings),
      n: num("n", values.n, 1, 10, true) ?? settings.judging.samples,
      temperature: num("temperature", values.temperature, 0, 2) ?? settings.judging.temperature,
      concurrency: num("concurrency", values.concurrency, 1, 256, true) ?? settings.judging.concurrency,
      noCache: Boolean(values["no-cache"]),
    };
    runId = await createRun(db, loadSuite(path.resolve(dir)), registry, options, (warnings) => {
      for (const w of warnings) process.stderr.write(`warning: ${budgetWarningText(w)}\n`);
    });
  }

  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  let reported = false;
  // Ctrl-C or SIGTERM: calls in flight are aborted and the criteria worker is terminated, so the run
  // normally winds down (interrupted, resumable) in milliseconds. If something still holds it, or
  // the signal comes twice, it is marked interrupted and the process leaves at once.
  const leaveNow = (signal: NodeJS.Signals) => {
    if (getRunById(db, { id: runId })?.status === "running")
      setRunStatus(db, {
        id: runId,
        status: "interrupted",
        error: "Stopped before it finished; resume it.",
        ownerPid: null,
      });
    if (!reported) process.stderr.write(`\nInterrupted. Resume with: jury eval --resume ${runId}\n`);
    process.exit(signalExitCode(signal));
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stoppedBy) leaveNow(signal);
    stoppedBy = signal;
    controller.abort(new Error(`interrupted by ${signal}`));
    setTimeout(() => leaveNow(signal), STOP_DEADLINE_MS).unref();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const before = getRunProgress(db, { runId });
  process.stderr.write(`run ${runId}: ${before.pending} of ${before.total} tasks to do\n`);
  const bar = createProgressBar(before.pending);
  const status = await executeRun(db, runId, {
    settings,
    registry,
    signal: controller.signal,
    onProgress: (p) => bar.update(p),
  });
  bar.done();
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);

  const results = getRunResults(db, { runId });
  const cases = getRunCases(db, { runId });
  if (values.json) {
    const out = {
      run_id: runId,
      status,
      cases: cases.map((c) => ({
        case_id: c.caseId,
        name: c.name,
        criteria: results.filter((r) => r.caseId === c.caseId).map((r) => r.data),
      })),
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    printSummary(runId, status, cases, results);
  }
  if (status === "interrupted") {
    reported = true;
    process.stderr.write(`Interrupted. Resume with: jury eval --resume ${runId}\n`);
    return signalExitCode(stoppedBy ?? "SIGINT");
  }
  if (status !== "done") return 1;
  return results.every((r) => r.passed) ? 0 : 1;
}

function printSummary(
  runId: string,
  status: string,
  cases: { caseId: string }[],
  results: ReturnType<typeof getRunResults>,
): void {
  const rows = [["case", "criterion", "score", "threshold", "result", "consensus", "review"]];
  for (const c of cases) {
    for (const r of results.filter((x) => x.caseId === c.caseId)) {
      const d = r.data as { threshold: number; error?: string; straddles_threshold?: boolean };
      rows.push([
        c.caseId,
        r.criterionId,
        r.finalScore === null ? "—" : r.finalScore.toFixed(2),
        String(d.threshold),
        d.error ? `FAIL (${d.error})` : r.passed ? "pass" : "FAIL",
        r.consensusLevel ?? "—",
        [r.flagForReview ? "flag" : "", d.straddles_threshold ? "straddles" : ""].filter(Boolean).join(",") ||
          "",
      ]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]))
      .join("  ")
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  const passed = results.filter((r) => r.passed).length;
  process.stdout.write(
    `${lines.join("\n")}\n\nrun ${runId} ${status}: ${passed} of ${results.length} case × criterion verdicts passed\n`,
  );
}
