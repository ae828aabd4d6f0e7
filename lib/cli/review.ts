import { randomBytes } from "node:crypto";
import path from "node:path";
import { parseArgs } from "node:util";
import { JuryError } from "../errors";

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
  --transcript <file>        the agent's session transcript: diagnosed on a fail
  --quick                    skip the gate
  --json                     print the stored review as JSON
Environment: JUDGE_ENABLED=false disables the judge; JUDGE_MODEL picks it; JUDGE_MAX_PER_HOUR (default 20).
Skipped runs: --meta outcome=infra_failure or outcome=timeout are not judged.
`;

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
      quick: { type: "boolean" },
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
  const { parseWeights, DIMENSIONS } = await import("../review/judgment");
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
    process.stderr.write(`Not judged: the run's outcome is ${meta.outcome} (nothing to judge).\n`);
    return 0;
  }
  const weights = values.weights
    ? parseWeights(
        Object.fromEntries(
          values.weights.split(",").map((x, i) => [DIMENSIONS[i] ?? `extra${i}`, Number(x)]),
        ),
      )
    : undefined;
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
  const { tryAcquireJudgment, throttleLimit } = await import("../review/throttle");
  const { insertReview, getReview } = await import("@/db/queries/reviews");
  const db = getDb();
  const settings = readSettings(db);
  const judges =
    values.judges
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean) ?? (process.env.JUDGE_MODEL ? [process.env.JUDGE_MODEL] : enabledJudges(settings));
  if (judges.length === 0)
    throw new JuryError("usage", "No judge: pass --judges, set JUDGE_MODEL, or enable one in Settings");
  const testsFailed = (context.testResults?.failed ?? 0) > 0;
  const judgeAllowed =
    process.env.JUDGE_ENABLED === "false"
      ? ({ ok: false, reason: "JUDGE_ENABLED=false" } as const)
      : testsFailed || tryAcquireJudgment(db, "review", throttleLimit())
        ? ({ ok: true } as const)
        : ({
            ok: false,
            reason: `throttled: ${throttleLimit()} judgments in the last hour (JUDGE_MAX_PER_HOUR)`,
          } as const);

  const r = await runReview({
    context,
    judges,
    n,
    perDimension: Boolean(values["per-dimension"]),
    quick: Boolean(values.quick),
    weights,
    settings,
    mechanical,
    transcriptPath: values.transcript,
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
    },
  });
  if (values.json) {
    const stored = getReview(db, id)!;
    process.stdout.write(
      `${JSON.stringify({ review_id: id, verdict: stored.verdict, verdict_source: stored.verdictSource, score: stored.score, blended: stored.blendedScore, gate: r.gate, judgment: r.judgment, warnings: r.warnings, diagnosis: r.diagnosis }, null, 2)}\n`,
    );
  } else {
    process.stdout.write(
      `${id}: ${r.verdict.toUpperCase()} (from the ${r.verdictSource})${r.score !== null ? `, score ${r.score.toFixed(2)}` : ""}\n`,
    );
    if (r.judgment)
      for (const d of DIMENSIONS)
        process.stdout.write(
          `  ${d.padEnd(16)} ${r.judgment.dimensions[d].toFixed(2)}  ${r.judgment.consensus[d].consensus_level ?? ""}\n`,
        );
    for (const i of r.judgment?.issues ?? []) process.stdout.write(`  [${i.severity}] ${i.description}\n`);
    if (r.gate?.reasoning) process.stdout.write(`gate: ${r.gate.verdict}: ${r.gate.reasoning}\n`);
    if (r.diagnosis) process.stdout.write(`retry feedback: ${r.diagnosis}\n`);
  }
  return r.verdict === "pass" ? 0 : 1;
}
