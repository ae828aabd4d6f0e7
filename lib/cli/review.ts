import path from "node:path";
import { parseArgs } from "node:util";
import { readEnv } from "../env/registry";
import { JuryError } from "../errors";
import { isDiagnosisUnavailable } from "../review/diagnosis";
import { describeJudge } from "../review/judge-status";
import { DIMENSIONS, parseWeights, type Weights } from "../review/judgment";
import { cliActor } from "./users";

export const REVIEW_HELP = `Usage: jury review --criteria <file|text> (--repo <path> --base <rev> [--head <rev>] | --diff <file>) [options]

Judges a code change against its acceptance criteria: the gate (pass/fail, "when in doubt, pass",
only when the tests passed) and the scored judgment (verdict, dimensions, issues) from a panel.

Options:
  --tests <file>             the reviewer's test file (repeatable)
  --test-output <file>       test run output (first 2,000 lines kept)
  --passed <n> --failed <n>  test counts (a failed test means fail, no judge call)
  --lint <file>              lint output
  --prompt <text>            the original prompt given to the agent
  --meta key=value           run metadata (repeatable): agent, model, template, duration, exit_code
  --title <text>             a name for the review
  --judges a:x,b:y           judges (default: JUDGE_MODEL, else the review judges promoted in
                             Settings, else the judges enabled in Settings)
  --n <1-10>                 samples per judge (default 1)
  --per-dimension            score each dimension in its own call (default: all four in one call)
  --weights c,s,q,k          weights of correctness, scope_adherence, code_quality, completeness (sum 1)
  --mechanical <0-1>         a mechanical score to blend (0.6 × mechanical + 0.4 × judge)
  --transcript <file>        the agent's session transcript, diagnosed on a fail (default: the newest
                             session of this project under ~/.claude/projects/)
  --claude-projects <dir>    where Claude Code keeps sessions (default: JURY_CLAUDE_PROJECTS_DIR,
                             else ~/.claude/projects)
  --no-transcript            no diagnosis from a session transcript
  --quick                    skip the gate
  --strict                   exit 3 when any judge call failed (the tests' verdict stood in)
  --json                     print the stored review as one JSON object (on every outcome)

The judge is off unless JUDGE_ENABLED=true (or --judges is given): without it the verdict is the
mechanical one, from the tests ("judge: not enabled"). A judge that fails leaves the tests' verdict
too, and the output says so with the error. Every judge must be callable (provider enabled in
Settings, key or base URL set) or nothing is judged or stored (exit 2).

Exit codes: 0 pass; 1 fail or partial; 2 usage or configuration error; 3 (with --strict) a judge
call failed.
Environment: JUDGE_ENABLED (true/false, 1/0, yes/no; unset: off unless --judges); JUDGE_MODEL picks
the judge; JUDGE_MAX_PER_HOUR (default 20); JURY_CLAUDE_PROJECTS_DIR.
Skipped runs: --meta outcome=infra_failure or outcome=timeout are not judged.
`;

/** JUDGE_ENABLED, strictly (true/false, 1/0, yes/no; anything else exits 2); unset or blank is undefined. */
export function judgeEnabledEnv(env: Record<string, string | undefined> = process.env): boolean | undefined {
  return readEnv("JUDGE_ENABLED", env);
}

/** `--weights c,s,q,k`: four numbers from 0 to 1 summing to 1, else a usage error naming the flag. */
function weightsOption(raw: string): Weights {
  const parts = raw.split(",").map((x) => x.trim());
  const nums = parts.map(Number);
  if (parts.length !== DIMENSIONS.length || nums.some((x, i) => parts[i] === "" || !Number.isFinite(x)))
    throw new JuryError(
      "usage",
      `--weights takes ${DIMENSIONS.length} numbers (${DIMENSIONS.join(", ")}), like 0.4,0.2,0.2,0.2; got "${raw}"`,
    );
  try {
    return parseWeights(Object.fromEntries(DIMENSIONS.map((d, i) => [d, nums[i]])));
  } catch (err) {
    throw new JuryError("usage", `--weights "${raw}": ${(err as Error).message}`);
  }
}

/** The flags, parsed (node:util; an unknown flag is a usage error). */
function parseReviewArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      criteria: { type: "string" },
      repo: { type: "string" },
      base: { type: "string" },
      head: { type: "string" },
      diff: { type: "string" },
      tests: { type: "string", multiple: true },
      "test-output": { type: "string" },
      passed: { type: "string" },
      failed: { type: "string" },
      lint: { type: "string" },
      prompt: { type: "string" },
      meta: { type: "string", multiple: true },
      title: { type: "string" },
      judges: { type: "string" },
      n: { type: "string" },
      "per-dimension": { type: "boolean" },
      weights: { type: "string" },
      mechanical: { type: "string" },
      transcript: { type: "string" },
      "claude-projects": { type: "string" },
      "no-transcript": { type: "boolean" },
      quick: { type: "boolean" },
      strict: { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

type ReviewValues = ReturnType<typeof parseReviewArgs>["values"];
type Db = import("@/db/client").Db;
type Settings = import("../settings/schema").Settings;
type ReviewOutcome = import("../review/run-review").ReviewOutcome;
type Meta = Record<string, string | number>;

/**
 * `jury review`: read the flags, gather the change's context, choose the judges and check they can
 * be called, run the review as a job (stored when it finishes), print it, and exit with its verdict.
 */
export async function reviewCommand(argv: string[]): Promise<number> {
  const { values } = parseReviewArgs(argv);
  if (values.help) {
    process.stdout.write(REVIEW_HELP);
    return 0;
  }
  if (!values.criteria) throw new JuryError("usage", `--criteria is required\n\n${REVIEW_HELP}`);
  const meta = metaOption(values.meta ?? []);
  if (meta.outcome === "infra_failure" || meta.outcome === "timeout") return reportNotJudged(meta, values);
  const numbers = numericOptions(values);
  const context = await readContext(values, meta);

  const { getDb } = await import("@/db/client");
  const { readSettings } = await import("../settings/store");
  const db = getDb();
  const settings = await readSettings(db);
  const judging = await chooseJudges(values, settings);
  const { judgeAllowedFor, newReviewId } = await import("../review/review-job");
  const judgeAllowed = await judgeAllowedFor(db, {
    judgeOn: judging.judgeOn,
    offReason: judging.offReason,
    testsFailed: (context.testResults?.failed ?? 0) > 0,
  });
  const transcript = await findTranscript(values, judging.judgeOn);

  const id = newReviewId();
  const r = await runReviewJob(db, {
    id,
    title: reviewTitle(values),
    mechanical: numbers.mechanical,
    options: {
      context,
      judges: judging.judges,
      n: numbers.n,
      perDimension: Boolean(values["per-dimension"]),
      quick: Boolean(values.quick),
      weights: numbers.weights,
      settings,
      mechanical: numbers.mechanical,
      transcriptPath: transcript?.path,
      transcriptSource: transcript?.source,
      judgeAllowed,
    },
  });
  if (typeof r === "number") return r;
  if (values.json) await printJson(db, id, r, meta, judging.judges);
  else printText(id, r);
  const judgeCallFailed = r.judge.status === "failed" || r.calls.some((c) => c.error !== undefined);
  if (values.strict && judgeCallFailed) return 3;
  return r.verdict === "pass" ? 0 : 1;
}

/** `--meta key=value` (repeatable), as run metadata. */
function metaOption(pairs: string[]): Meta {
  const meta: Meta = {};
  for (const kv of pairs) {
    const i = kv.indexOf("=");
    if (i <= 0) throw new JuryError("usage", `--meta takes key=value, got "${kv}"`);
    meta[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return meta;
}

/** A run that ended in infra_failure or timeout is not judged; it says so and exits 0. */
function reportNotJudged(meta: Meta, values: ReviewValues): number {
  const reason = `the run's outcome is ${meta.outcome} (nothing to judge)`;
  if (values.json)
    process.stdout.write(
      `${JSON.stringify({ review_id: null, outcome: meta.outcome, judged: false, verdict: null, verdict_source: null, reason }, null, 2)}\n`,
    );
  process.stderr.write(`Not judged: ${reason}.\n`);
  return 0;
}

/** --weights, --mechanical and --n, each checked, or a usage error naming the flag. */
function numericOptions(values: ReviewValues): { weights?: Weights; mechanical?: number; n: number } {
  const weights = values.weights === undefined ? undefined : weightsOption(values.weights);
  const mechanical = values.mechanical === undefined ? undefined : Number(values.mechanical);
  if (mechanical !== undefined && !(mechanical >= 0 && mechanical <= 1))
    throw new JuryError("usage", `--mechanical must be between 0 and 1, got "${values.mechanical}"`);
  const n = values.n === undefined ? 1 : Number(values.n);
  if (!Number.isInteger(n) || n < 1 || n > 10)
    throw new JuryError("usage", `--n must be a whole number from 1 to 10, got "${values.n}"`);
  return { weights, mechanical, n };
}

/** `--passed` / `--failed`: a whole number ≥ 0, or a usage error naming the flag. */
function countOption(name: string, v?: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new JuryError("usage", `--${name} must be a whole number ≥ 0, got "${v}"`);
  return n;
}

/** The context package: criteria (a file, or the text itself), the diff, tests, lint and metadata. */
async function readContext(values: ReviewValues, meta: Meta) {
  const fs = await import("node:fs");
  const { gatherContext } = await import("../review/context");
  const criteria = values.criteria as string;
  const criteriaIsFile = fs.existsSync(criteria);
  if (!criteriaIsFile && !/\s/.test(criteria) && (/[\\/]/.test(criteria) || /\.(md|txt)$/i.test(criteria))) {
    throw new JuryError(
      "invalid:review",
      `criteria file ${criteria} not found (to pass the criteria as text, write them out)`,
    );
  }
  return gatherContext({
    criteria,
    criteriaIsFile,
    prompt: values.prompt,
    repo: values.repo ? path.resolve(values.repo) : undefined,
    base: values.base,
    head: values.head,
    diffFile: values.diff,
    testFiles: values.tests,
    testOutputFile: values["test-output"],
    passed: countOption("passed", values.passed),
    failed: countOption("failed", values.failed),
    lintFile: values.lint,
    meta,
  });
}

/**
 * The judge is off unless enabled; naming judges on the command line asks for it. When
 * it is on, every judge must be callable: refused before anything is spent or written (the
 * throttle's slot included).
 */
async function chooseJudges(
  values: ReviewValues,
  settings: Settings,
): Promise<{ judgeOn: boolean; judges: string[]; offReason: string }> {
  const { enabledJudges } = await import("../settings/schema");
  const { assertJudgesReady } = await import("../providers/preflight");
  const enabledByEnv = judgeEnabledEnv();
  const judgeOn = enabledByEnv ?? values.judges !== undefined;
  const offReason =
    enabledByEnv === false
      ? "JUDGE_ENABLED=false"
      : "JUDGE_ENABLED is not set (set JUDGE_ENABLED=true or pass --judges)";
  if (!judgeOn) return { judgeOn, judges: [], offReason };
  const model = readEnv("JUDGE_MODEL");
  const judges =
    values.judges
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean) ??
    (model ? [model] : settings.reviewJudges.length ? settings.reviewJudges : enabledJudges(settings));
  if (judges.length === 0)
    throw new JuryError(
      "usage",
      "JUDGE_ENABLED is true but no judge is named: pass --judges, set JUDGE_MODEL, or enable one in Settings",
    );
  assertJudgesReady(judges, settings, {
    what: "Not reviewed",
    source: values.judges
      ? "--judges"
      : model
        ? "JUDGE_MODEL"
        : settings.reviewJudges.length
          ? "the review judges promoted in Settings (reviewJudges)"
          : "the judges enabled in Settings",
  });
  return { judgeOn, judges, offReason };
}

/** The session to diagnose on a fail: given, or the newest of this project's Claude Code sessions. */
async function findTranscript(
  values: ReviewValues,
  judgeOn: boolean,
): Promise<{ path: string; source: "given" | "found" } | undefined> {
  if (values["no-transcript"]) return undefined;
  if (values.transcript) return { path: path.resolve(values.transcript), source: "given" };
  if (!judgeOn) return undefined;
  const { claudeProjectsDir, findLatestTranscript } = await import("../review/transcript");
  const found = findLatestTranscript(
    values.repo ? path.resolve(values.repo) : process.cwd(),
    claudeProjectsDir(values["claude-projects"]),
  );
  return found ? { path: found, source: "found" } : undefined;
}

function reviewTitle(values: ReviewValues): string {
  return (
    values.title ??
    (values.repo
      ? `${path.basename(path.resolve(values.repo))} ${values.base}...${values.head ?? "HEAD"}`
      : path.basename(values.diff ?? "review"))
  );
}

const signalExitCode = (signal: NodeJS.Signals) => (signal === "SIGTERM" ? 143 : 130);

/**
 * Runs the review as a job and stores it. Ctrl-C or SIGTERM aborts its calls and stores nothing
 * (the job says interrupted). Returns the outcome, or the exit code when the review stopped unstored (said
 * on stderr); what the review or its write threw is thrown again, as before jobs.
 */
async function runReviewJob(
  db: Db,
  input: import("../review/review-job").ReviewJobInput,
): Promise<ReviewOutcome | number> {
  const { executeReview } = await import("../review/review-job");
  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (stoppedBy) process.exit(signalExitCode(signal));
    stoppedBy = signal;
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  let r: Awaited<ReturnType<typeof executeReview>>;
  try {
    r = await executeReview(db, { createdBy: cliActor(), ...input, signal: controller.signal });
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  // a stopped review's warnings are only its aborted calls: said once, below
  if (r.stored || r.thrown !== undefined)
    for (const w of r.outcome?.warnings ?? []) process.stderr.write(`warning: ${w}\n`);
  if (r.thrown !== undefined) throw r.thrown;
  if (!r.stored || !r.outcome) {
    process.stderr.write(`Review ${input.id} ${r.status}: ${r.error ?? "nothing stored"}\n`);
    // stopped by a signal: 130 or 143, as a shell reports it; cancelled from the dashboard: 1
    return stoppedBy ? signalExitCode(stoppedBy) : 1;
  }
  return r.outcome;
}

/** `--json`: the stored review as one object. */
async function printJson(db: Db, id: string, r: ReviewOutcome, meta: Meta, judges: string[]): Promise<void> {
  const { getReview } = await import("@/db/queries/reviews");
  const stored = (await getReview(db, id))!;
  process.stdout.write(
    `${JSON.stringify(
      {
        review_id: id,
        outcome: meta.outcome ?? null,
        judged: r.verdictSource !== "tests",
        verdict: stored.verdict,
        verdict_source: stored.verdictSource,
        score: stored.score,
        blended: stored.blendedScore,
        judge: { ...r.judge, judges, summary: describeJudge(r) },
        coverage: r.coverage,
        gate: r.gate,
        judgment: r.judgment,
        calls: r.calls,
        cost_usd: r.costUsd,
        transcript: r.transcript,
        warnings: r.warnings,
        diagnosis: r.diagnosis,
      },
      null,
      2,
    )}\n`,
  );
}

/** The verdict, the judge's line, the dimensions and issues, the gate, the cost and the diagnosis. */
function printText(id: string, r: ReviewOutcome): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    `${id}: ${r.verdict.toUpperCase()} (from the ${r.verdictSource === "tests" ? "tests: mechanical verdict" : r.verdictSource})${r.score !== null ? `, score ${r.score.toFixed(2)}` : ""}`,
  );
  out(`judge: ${describeJudge(r)}`);
  if (r.judgment)
    for (const d of DIMENSIONS)
      out(
        `  ${d.padEnd(16)} ${r.judgment.dimensions[d].toFixed(2)}  ${r.judgment.consensus[d].agreement ?? r.judgment.consensus[d].consensus_level ?? ""}`,
      );
  for (const i of r.judgment?.issues ?? []) out(`  [${i.severity}] ${i.description}`);
  if (r.gate?.reasoning) out(`gate: ${r.gate.verdict}: ${r.gate.reasoning}`);
  if (r.calls.length)
    out(
      `cost: ${r.costUsd === null ? "unpriced" : `$${r.costUsd.toFixed(4)}`} over ${r.calls.length} call${r.calls.length === 1 ? "" : "s"}`,
    );
  if (r.transcript)
    out(
      `transcript: ${r.transcript.path}${r.transcript.source === "found" ? " (the newest session of this project)" : ""}`,
    );
  if (r.diagnosis)
    out(`${isDiagnosisUnavailable(r.diagnosis) ? "diagnosis" : "retry feedback"}: ${r.diagnosis}`);
}
