import path from "node:path";
import { parseArgs } from "node:util";
import { getDb } from "@/db/client";
import {
  getPendingTasks,
  getRunById,
  getRunCases,
  getRunCost,
  getRunProgress,
  getRunResults,
  getRunSamples,
  setRunStatus,
} from "@/db/queries/runs";
import type { ResultRow, RunOptions } from "@/db/schema";
import { loadProjectCriteria } from "../criteria/load";
import type { CriteriaRegistry } from "../criteria/registry";
import { JuryError } from "../errors";
import { effectiveConcurrency } from "../jobs/scheduler";
import { coverageText } from "../judging/aggregate";
import { budgetWarningText } from "../judging/prompt";
import { assertJudgesReady } from "../providers/preflight";
import { cacheText, runCost } from "../runs/cost-summary";
import { type FailureGroup, groupFailures, type RunCoverage, runCoverage } from "../runs/coverage";
import { executeRun } from "../runs/execute-run";
import { createRun, DETERMINISTIC_JUDGE, panelOptionsOf, unpricedJudges } from "../runs/plan-run";
import { defaultEvalJudges, defaultEvalSamples } from "../settings/criteria-panels";
import { readSettings } from "../settings/store";
import { effectiveCriteria, loadSuite } from "../suites/load-suite";
import { createProgressBar } from "./progress-bar";
import { cliActor } from "./users";
import { formatVerdictTable } from "./verdict-table";

export const EVAL_HELP = `Usage: jury eval <suite-dir> [options]
       jury eval --resume <run-id>

Runs a suite: every case × criterion × judge × N samples. Before anything is stored or called,
every judge must be callable: its provider enabled in Settings, its key (or base URL) set.

Exit codes: 0 every verdict passed; 1 some verdict failed; 2 usage or configuration error (a bad
option, a judge that cannot be called); 3 no judge answered for some verdict (with --strict: any
sample failed), or the run failed.

Options:
  --judges a:x,b:y     judges (default: a criterion's panel promoted in Settings, else the
                       judges enabled in Settings)
  --n <1-10>           samples per judge (default: Settings, 3)
  --temperature <t>    sampling temperature (default: Settings, 0.8)
  --concurrency <c>    calls in flight in all (default: Settings, 8)
  --provider-concurrency <c>
                       calls in flight to any one provider (default: Settings, 4); the run has
                       at most min(concurrency, providers × this) in flight, printed at the start
  --no-cache           call the models even when a cached response exists
  --no-prompt-cache    do not ask the providers to cache each prompt's stable prefix (on by
                       default: Settings, judging.promptCaching)
  --batch              send the OpenAI and Anthropic judges' calls through their batch APIs at
                       half price (results within 24 h; other judges run live); interrupt and
                       --resume later: the batch is polled again, never submitted twice
  --resume <run-id>    finish an interrupted run without redoing finished samples
  --strict             exit 3 when any sample failed, not only when a verdict has no answer
  --json               print the run id, its status and coverage, and per case and criterion the
                       aggregator's fields with their coverage
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

/** The suite's LLM criteria (suite.json's and its cases'), in first-seen order. */
function llmCriteriaOf(suite: ReturnType<typeof loadSuite>, registry: CriteriaRegistry): string[] {
  const ids = [...new Set(suite.cases.flatMap((c) => effectiveCriteria(suite, c).map((r) => r.id)))];
  return ids.filter((id) => registry.criteria.get(id)?.type === "llm");
}

export async function evalCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      judges: { type: "string" },
      n: { type: "string" },
      temperature: { type: "string" },
      concurrency: { type: "string" },
      "provider-concurrency": { type: "string" },
      "no-cache": { type: "boolean" },
      "no-prompt-cache": { type: "boolean" },
      batch: { type: "boolean" },
      resume: { type: "string" },
      json: { type: "boolean" },
      strict: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(EVAL_HELP);
    return 0;
  }
  const db = getDb();
  const settings = await readSettings(db);
  const registry = loadProjectCriteria();
  for (const e of registry.errors)
    process.stderr.write(`warning: criteria/${e.folder}: ${e.field}: ${e.message}\n`);

  let runId: string;
  if (values.resume) {
    const run = await getRunById(db, { id: values.resume });
    if (!run) throw new JuryError("usage", `No run with id "${values.resume}"`);
    // a resume calls the judges too: refuse before anything is spent
    if ((await getRunProgress(db, { runId: run.id })).pending > 0)
      assertJudgesReady(
        [...new Set((await getPendingTasks(db, { runId: run.id })).map((t) => t.judge))].filter(
          (j) => j !== DETERMINISTIC_JUDGE,
        ),
        settings,
        { what: `Run ${run.id} not resumed` },
      );
    runId = run.id;
  } else {
    const dir = positionals[0];
    if (!dir)
      throw new JuryError("usage", `Give a suite folder, e.g. jury eval examples/suites/qa\n\n${EVAL_HELP}`);
    const suite = loadSuite(path.resolve(dir));
    // without --judges: each criterion's panel promoted in Settings, else the judges enabled there
    const defaults = values.judges ? undefined : defaultEvalJudges(settings, llmCriteriaOf(suite, registry));
    if (defaults?.criterionJudges && defaults.unjudged.length)
      throw new JuryError(
        "usage",
        `No judge for ${defaults.unjudged.join(", ")}: no panel is promoted for it and no judge is enabled in Settings; pass --judges or enable a judge`,
      );
    for (const c of defaults?.promoted ?? [])
      process.stderr.write(
        `${c}: judged by its default panel from Settings (${defaults?.criterionJudges?.[c].join(", ")})\n`,
      );
    // without --n: each criterion's N promoted in Settings (the panel optimizer), else Settings' N
    const promotedN = values.n ? undefined : defaultEvalSamples(settings, llmCriteriaOf(suite, registry));
    for (const [c, n] of Object.entries(promotedN ?? {}))
      process.stderr.write(`${c}: N=${n} samples per judge, its default from Settings\n`);
    const options: RunOptions = {
      judges: values.judges
        ? values.judges
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
        : (defaults?.judges ?? []),
      ...(defaults?.criterionJudges ? { criterionJudges: defaults.criterionJudges } : {}),
      ...(promotedN ? { criterionN: promotedN } : {}),
      n: num("n", values.n, 1, 10, true) ?? settings.judging.samples,
      temperature: num("temperature", values.temperature, 0, 2) ?? settings.judging.temperature,
      concurrency: num("concurrency", values.concurrency, 1, 256, true) ?? settings.judging.concurrency,
      noCache: Boolean(values["no-cache"]),
      promptCaching: values["no-prompt-cache"] ? false : settings.judging.promptCaching,
      ...(values.batch ? { batch: true } : {}),
    };
    const perProvider = num("provider-concurrency", values["provider-concurrency"], 1, 256, true);
    if (perProvider !== undefined) options.providerConcurrency = perProvider;
    options.panel = panelOptionsOf(settings.judging);
    const unpriced = unpricedJudges(options.judges, settings.prices);
    if (unpriced.length) options.unpriced = unpriced;
    runId = await createRun(
      db,
      suite,
      registry,
      options,
      (warnings) => {
        for (const w of warnings) process.stderr.write(`warning: ${budgetWarningText(w)}\n`);
      },
      {
        settings,
        source: values.judges
          ? "--judges"
          : defaults?.promoted.length
            ? "the panels promoted in Settings and the judges enabled there"
            : "the judges enabled in Settings",
      },
      cliActor(),
    );
  }

  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  let reported = false;
  // Ctrl-C or SIGTERM: calls in flight are aborted and the criteria worker is terminated, so the run
  // normally winds down (interrupted, resumable) in milliseconds. If something still holds it, or
  // the signal comes twice, it is marked interrupted and the process leaves at once.
  const leaveNow = async (signal: NodeJS.Signals) => {
    try {
      if ((await getRunById(db, { id: runId }))?.status === "running")
        await setRunStatus(db, {
          id: runId,
          status: "interrupted",
          error: "Stopped before it finished; resume it.",
          ownerPid: null,
        });
    } finally {
      if (!reported) process.stderr.write(`\nInterrupted. Resume with: jury eval --resume ${runId}\n`);
      process.exit(signalExitCode(signal));
    }
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stoppedBy) {
      void leaveNow(signal);
      return;
    }
    stoppedBy = signal;
    controller.abort(new Error(`interrupted by ${signal}`));
    setTimeout(() => void leaveNow(signal), STOP_DEADLINE_MS).unref();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const before = await getRunProgress(db, { runId });
  process.stderr.write(`run ${runId}: ${before.pending} of ${before.total} tasks to do\n`);
  const planned = (await getRunById(db, { id: runId }))!.options;
  // said when there is more to do than one call at a time: a one-call run has nothing to limit
  if (before.pending > 1 && planned.judges.length > 0)
    process.stderr.write(`${describeConcurrency(planned, settings.judging.perProviderConcurrency)}\n`);
  const bar = createProgressBar(before.pending, process.stderr, {
    unpriced: Boolean((await getRunById(db, { id: runId }))?.options.unpriced?.length),
  });
  const lastBatchLine = new Map<string, string>();
  const status = await executeRun(db, runId, {
    settings,
    registry,
    signal: controller.signal,
    onProgress: (p) => bar.update(p),
    onBatch: (b) => {
      const line = `batch ${b.id} (${b.judge}): ${b.status}, ${b.succeeded + b.failed} of ${b.total} answered${b.failed ? `, ${b.failed} failed` : ""}`;
      if (lastBatchLine.get(b.id) !== line) process.stderr.write(`\n${line}\n`);
      lastBatchLine.set(b.id, line);
    },
  });
  bar.done();
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);

  const results = await getRunResults(db, { runId });
  const cases = await getRunCases(db, { runId });
  const run = (await getRunById(db, { id: runId }))!;
  const samples = await getRunSamples(db, { runId });
  const coverage = runCoverage(run.options.judges, run.totalTasks, samples);
  const failures = groupFailures(samples);
  if (values.json) {
    const out = {
      run_id: runId,
      status,
      coverage,
      failures,
      ...(run.options.unpriced?.length ? { unpriced_judges: run.options.unpriced } : {}),
      cost: runCost(await getRunCost(db, { runId })),
      cases: cases.map((c) => ({
        case_id: c.caseId,
        name: c.name,
        criteria: results.filter((r) => r.caseId === c.caseId).map((r) => r.data),
      })),
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    printSummary(runId, status, cases, results, coverage, failures, samples, run.options.unpriced ?? []);
    const cache = cacheText(runCost(await getRunCost(db, { runId })));
    if (cache) process.stdout.write(`prompt cache: ${cache}\n`);
  }
  if (status === "interrupted") {
    reported = true;
    process.stderr.write(`Interrupted. Resume with: jury eval --resume ${runId}\n`);
    return signalExitCode(stoppedBy ?? "SIGINT");
  }
  return evalExitCode(status, results, coverage, Boolean(values.strict));
}

/** The calls the run will really have in flight, and what limits them. */
export function describeConcurrency(options: RunOptions, settingsPerProvider: number): string {
  const perProviderConcurrency = options.providerConcurrency ?? settingsPerProvider;
  const c = effectiveConcurrency(options.judges, {
    concurrency: options.concurrency,
    perProviderConcurrency,
  });
  const providers = `${c.providers.length} provider${c.providers.length === 1 ? "" : "s"} (${c.providers.join(", ")})`;
  return c.cappedByProvider
    ? `calls in flight: at most ${c.effective}, not ${options.concurrency}: ${perProviderConcurrency} per provider × ${providers}; raise it with --provider-concurrency`
    : `calls in flight: at most ${c.effective} (--concurrency ${options.concurrency}; ${perProviderConcurrency} per provider × ${providers})`;
}

/** The command's own exit codes (error codes map to 2 and 3 in lib/exit-codes.ts). */
const EXIT = { pass: 0, fail: 1, infrastructure: 3 } as const;

/**
 * 3 when some verdict rests on no answer at all (or, strict, when any sample failed) and when the
 * run itself failed; otherwise 0 when every verdict passed, 1 when one did not.
 */
export function evalExitCode(
  status: string,
  results: { passed: boolean; data: { coverage?: { samples_answered: number } } }[],
  coverage: RunCoverage,
  strict: boolean,
): number {
  if (status === "failed") return EXIT.infrastructure;
  if (results.some((r) => r.data.coverage?.samples_answered === 0)) return EXIT.infrastructure;
  if (strict && coverage.samples_failed > 0) return EXIT.infrastructure;
  if (status !== "done" && status !== "done_with_failures") return EXIT.fail;
  if (coverage.samples_pending > 0) return EXIT.fail;
  return results.every((r) => r.passed) ? EXIT.pass : EXIT.fail;
}

function printSummary(
  runId: string,
  status: string,
  cases: { caseId: string }[],
  results: ResultRow[],
  coverage: RunCoverage,
  failures: FailureGroup[],
  samples: { costUsd: number }[],
  unpriced: string[],
): void {
  // the same table `jury runs show` prints
  const head = formatVerdictTable(runId, status, cases, results);
  const out = [`coverage: ${coverageText(coverage)}`, `cost: ${costText(samples, unpriced)}`];
  if (failures.length) {
    out.push("failures (by judge and kind):");
    for (const f of failures)
      out.push(`  ${f.judge}  ${f.kind}  ×${f.count}  e.g. ${f.example.slice(0, 160)}`);
  }
  process.stdout.write(`${head}${out.join("\n")}\n`);
}

/** "$0.0123", or with judges that have no price "$0.0123 + unpriced (local:b)": never $0 for an unknown cost. */
function costText(samples: { costUsd: number }[], unpriced: string[]): string {
  const usd = `$${samples.reduce((a, s) => a + s.costUsd, 0).toFixed(4)}`;
  return unpriced.length ? `${usd} + unpriced (${unpriced.join(", ")}: no price in Settings)` : usd;
}
