import { randomBytes } from "node:crypto";
import path from "node:path";
import { parseArgs } from "node:util";
import { readEnv } from "../env/registry";
import { JuryError } from "../errors";
import { describeJudge } from "../review/judge-status";
import { DIMENSIONS, parseWeights, type Weights } from "../review/judgment";

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
  --judges a:x,b:y           judges (default: JUDGE_MODEL, else the judges enabled in Settings)
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

export async function reviewCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
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
  if (values.help) {
    process.stdout.write(REVIEW_HELP);
    return 0;
  }
  if (!values.criteria) throw new JuryError("usage", `--criteria is required\n\n${REVIEW_HELP}`);
  const fs = await import("node:fs");
  const { gatherContext } = await import("../review/context");
  const { DIMENSIONS } = await import("../review/judgment");
  const count = (name: string, v?: string) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0)
      throw new JuryError("usage", `--${name} must be a whole number ≥ 0, got "${v}"`);
    return n;
  };
  const meta: Record<string, string | number> = {};
  for (const kv of values.meta ?? []) {
    const i = kv.indexOf("=");
    if (i <= 0) throw new JuryError("usage", `--meta takes key=value, got "${kv}"`);
    meta[kv.slice(0, i)] = kv.slice(i + 1);
  }
  if (meta.outcome === "infra_failure" || meta.outcome === "timeout") {
    const reason = `the run's outcome is ${meta.outcome} (nothing to judge)`;
    if (values.json)
      process.stdout.write(
        `${JSON.stringify({ review_id: null, outcome: meta.outcome, judged: false, verdict: null, verdict_source: null, reason }, null, 2)}\n`,
      );
    process.stderr.write(`Not judged: ${reason}.\n`);
    return 0;
  }
  const weights = values.weights === undefined ? undefined : weightsOption(values.weights);
  const mechanical = values.mechanical === undefined ? undefined : Number(values.mechanical);
  if (mechanical !== undefined && !(mechanical >= 0 && mechanical <= 1))
    throw new JuryError("usage", `--mechanical must be between 0 and 1, got "${values.mechanical}"`);
  const n = values.n === undefined ? 1 : Number(values.n);
  if (!Number.isInteger(n) || n < 1 || n > 10)
    throw new JuryError("usage", `--n must be a whole number from 1 to 10, got "${values.n}"`);

  const criteriaIsFile = fs.existsSync(values.criteria);
  if (
    !criteriaIsFile &&
    !/\s/.test(values.criteria) &&
    (/[\\/]/.test(values.criteria) || /\.(md|txt)$/i.test(values.criteria))
  ) {
    throw new JuryError(
      "invalid:review",
      `criteria file ${values.criteria} not found (to pass the criteria as text, write them out)`,
    );
  }
  const context = gatherContext({
    criteria: values.criteria,
    criteriaIsFile,
    prompt: values.prompt,
    repo: values.repo ? path.resolve(values.repo) : undefined,
    base: values.base,
    head: values.head,
    diffFile: values.diff,
    testFiles: values.tests,
    testOutputFile: values["test-output"],
    passed: count("passed", values.passed),
    failed: count("failed", values.failed),
    lintFile: values.lint,
    meta,
  });

  const { getDb } = await import("@/db/client");
  const { readSettings } = await import("../settings/store");
  const { enabledJudges } = await import("../settings/schema");
  const { runReview } = await import("../review/run-review");
  const { assertJudgesReady } = await import("../providers/preflight");
  const { tryAcquireJudgment, throttleLimit } = await import("../review/throttle");
  const { insertReview, getReview } = await import("@/db/queries/reviews");
  const db = getDb();
  const settings = readSettings(db);
  // seed 003: the judge is off unless enabled; naming judges on the command line asks for it
  const enabledByEnv = judgeEnabledEnv();
  const judgeOn = enabledByEnv ?? values.judges !== undefined;
  const judges = judgeOn
    ? (values.judges
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean) ??
      (readEnv("JUDGE_MODEL") ? [readEnv("JUDGE_MODEL") as string] : enabledJudges(settings)))
    : [];
  if (judgeOn && judges.length === 0)
    throw new JuryError(
      "usage",
      "JUDGE_ENABLED is true but no judge is named: pass --judges, set JUDGE_MODEL, or enable one in Settings",
    );
  // refuse before anything is spent or written (the throttle's slot included)
  if (judgeOn)
    assertJudgesReady(judges, settings, {
      what: "Not reviewed",
      source: values.judges
        ? "--judges"
        : readEnv("JUDGE_MODEL")
          ? "JUDGE_MODEL"
          : "the judges enabled in Settings",
    });
  const testsFailed = (context.testResults?.failed ?? 0) > 0;
  const judgeAllowed = !judgeOn
    ? ({
        ok: false,
        status: "not enabled",
        reason:
          enabledByEnv === false
            ? "JUDGE_ENABLED=false"
            : "JUDGE_ENABLED is not set (set JUDGE_ENABLED=true or pass --judges)",
      } as const)
    : testsFailed || tryAcquireJudgment(db, "review", throttleLimit())
      ? ({ ok: true } as const)
      : ({
          ok: false,
          status: "throttled",
          reason: `throttled: ${throttleLimit()} judgments in the last hour (JUDGE_MAX_PER_HOUR)`,
        } as const);

  // the session to diagnose: given, or the newest of this project's Claude Code sessions
  const { claudeProjectsDir, findLatestTranscript } = await import("../review/transcript");
  const transcript = values["no-transcript"]
    ? undefined
    : values.transcript
      ? { path: path.resolve(values.transcript), source: "given" as const }
      : judgeOn
        ? (() => {
            const found = findLatestTranscript(
              values.repo ? path.resolve(values.repo) : process.cwd(),
              claudeProjectsDir(values["claude-projects"]),
            );
            return found ? { path: found, source: "found" as const } : undefined;
          })()
        : undefined;

  const r = await runReview({
    context,
    judges,
    n,
    perDimension: Boolean(values["per-dimension"]),
    quick: Boolean(values.quick),
    weights,
    settings,
    mechanical,
    transcriptPath: transcript?.path,
    transcriptSource: transcript?.source,
    judgeAllowed,
  });
  for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
  const id = `rev_${randomBytes(5).toString("hex")}`;
  const title =
    values.title ??
    (values.repo
      ? `${path.basename(path.resolve(values.repo))} ${values.base}...${values.head ?? "HEAD"}`
      : path.basename(values.diff ?? "review"));
  insertReview(db, {
    id,
    title,
    verdict: r.verdict,
    verdictSource: r.verdictSource,
    score: r.score,
    mechanicalScore: mechanical ?? null,
    blendedScore: r.blended,
    diff: context.diff,
    record: {
      context: { ...context, diff: undefined },
      gate: r.gate,
      judgment: r.judgment as unknown as Record<string, unknown> | null,
      samples: r.samples,
      warnings: r.warnings,
      diagnosis: r.diagnosis,
      calls: r.calls,
      judge: r.judge,
      coverage: r.coverage,
      transcript: r.transcript,
      costUsd: r.costUsd,
    },
  });
  const judgeLine = describeJudge(r);
  if (values.json) {
    const stored = getReview(db, id)!;
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
          judge: { ...r.judge, judges, summary: judgeLine },
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
  } else {
    process.stdout.write(
      `${id}: ${r.verdict.toUpperCase()} (from the ${r.verdictSource === "tests" ? "tests: mechanical verdict" : r.verdictSource})${r.score !== null ? `, score ${r.score.toFixed(2)}` : ""}\n`,
    );
    process.stdout.write(`judge: ${judgeLine}\n`);
    if (r.judgment)
      for (const d of DIMENSIONS)
        process.stdout.write(
          `  ${d.padEnd(16)} ${r.judgment.dimensions[d].toFixed(2)}  ${r.judgment.consensus[d].agreement ?? r.judgment.consensus[d].consensus_level ?? ""}\n`,
        );
    for (const i of r.judgment?.issues ?? []) process.stdout.write(`  [${i.severity}] ${i.description}\n`);
    if (r.gate?.reasoning) process.stdout.write(`gate: ${r.gate.verdict}: ${r.gate.reasoning}\n`);
    if (r.calls.length)
      process.stdout.write(
        `cost: ${r.costUsd === null ? "unpriced" : `$${r.costUsd.toFixed(4)}`} over ${r.calls.length} call${r.calls.length === 1 ? "" : "s"}\n`,
      );
    if (r.transcript)
      process.stdout.write(
        `transcript: ${r.transcript.path}${r.transcript.source === "found" ? " (the newest session of this project)" : ""}\n`,
      );
    if (r.diagnosis) process.stdout.write(`retry feedback: ${r.diagnosis}\n`);
  }
  const judgeCallFailed = r.judge.status === "failed" || r.calls.some((c) => c.error !== undefined);
  if (values.strict && judgeCallFailed) return 3;
  return r.verdict === "pass" ? 0 : 1;
}
