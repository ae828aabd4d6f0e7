import type { ReviewRecord } from "@/db/schema";
import { errorMessage } from "../errors";
import { type CallScheduler, createCallScheduler } from "../jobs/scheduler";
import { aggregateAcrossModels, type Coverage, type CriterionVerdict } from "../judging/aggregate";
import { type CallResult, callModel, partialReply } from "../judging/call-model";
import { maxOutputTokensFor } from "../judging/output-limit";
import { parseJsonLoose } from "../judging/parse-json";
import { promptCacheHint } from "../judging/prompt-cache";
import { costOf, resolvePrice } from "../pricing";
import { getModel } from "../providers/get-model";
import { structuredOutputSchema } from "../schemas/structured-output";
import type { Settings } from "../settings/schema";
import type { ReviewContext } from "./assemble";
import { DIAGNOSIS_UNAVAILABLE, diagnosisFeedback } from "./diagnosis";
import {
  blendedScore,
  compositeScore,
  DEFAULT_WEIGHTS,
  DIMENSIONS,
  type Dimension,
  diagnosisAnswerSchema,
  dimensionAnswerSchema,
  gateAnswerSchema,
  type Judgment,
  judgmentSchema,
  verdictFor,
  type Weights,
} from "./judgment";
import {
  DIAGNOSIS_SYSTEM,
  diagnosisMessage,
  dimensionSystem,
  GATE_SYSTEM,
  JUDGMENT_SYSTEM,
  reviewMessage,
} from "./prompts";
import { readTranscript } from "./transcript";

/** One judge call of a review, as stored in the review's record. */
export type ReviewSample = ReviewRecord["samples"][number];
/** Every call a review made (gate, judgment samples, diagnosis), with its tokens and cost. */
export type ReviewCall = NonNullable<ReviewRecord["calls"]>[number];

/**
 * What the judge did for this review. `not enabled`: off (the default; JUDGE_ENABLED), the
 * tests decide. `throttled`: over JUDGE_MAX_PER_HOUR. `failed`: asked, but no call answered: the tests
 * decide, and `error` says why. `answered`: the verdict is the judge's (gate or judgment), and at
 * least one judge answered the scored judgment. `gate only`: the gate answered and its verdict
 * stands, but no judge answered the scored judgment (coverage 0 of N; `error` says why).
 * `not asked`: the tests failed, so nothing was left to judge (a diagnosis may still have run).
 */
export type JudgeStatus = {
  status: "not enabled" | "throttled" | "failed" | "answered" | "gate only" | "not asked";
  reason?: string;
  error?: string;
};

export type ReviewOptions = {
  context: ReviewContext;
  judges: string[];
  n: number;
  /** each dimension in its own call, rather than all four in one */
  perDimension: boolean;
  quick: boolean;
  weights?: Weights;
  settings: Settings;
  temperature?: number;
  mechanical?: number;
  mechanicalWeight?: number;
  transcriptPath?: string;
  /** how the transcript was found (given with --transcript, or the newest of the project's sessions) */
  transcriptSource?: "given" | "found";
  /** false when the judge is disabled or throttled: the test-only verdict stands */
  judgeAllowed:
    | { ok: true }
    | { ok: false; reason: string; status?: Extract<JudgeStatus["status"], "not enabled" | "throttled"> };
  /** the call scheduler to share limits with other work; a review's own, from settings, by default */
  scheduler?: CallScheduler;
  /** aborts the review's in-flight and waiting calls (its job's signal: cancel, a storage failure) */
  signal?: AbortSignal;
  /** told after each call, answered or failed (the job's progress) */
  onCall?: (call: ReviewCall) => void;
};

export type ReviewOutcome = {
  verdict: "pass" | "partial" | "fail";
  verdictSource: "judge" | "gate" | "tests";
  gate: { verdict: "pass" | "fail"; reasoning: string; skipped?: string } | null;
  judgment:
    | (Judgment & {
        consensus: Record<Dimension, CriterionVerdict>;
        weights: Weights;
        judges: string[];
        n: number;
        mode: string;
      })
    | null;
  samples: ReviewSample[];
  warnings: string[];
  score: number | null;
  blended: number | null;
  diagnosis: string | null;
  judge: JudgeStatus;
  /** judges answered of asked, samples answered of asked, over the scored judgment's calls */
  coverage: Coverage;
  calls: ReviewCall[];
  /** the transcript the diagnosis read, and how it was found */
  transcript: { path: string; source: "given" | "found" } | null;
  /** USD over every call; null when a judge has no price (it is unknown, never $0) */
  costUsd: number | null;
};

async function ask(
  judge: string,
  system: string,
  prompt: string,
  o: ReviewOptions,
  schema: Record<string, unknown> | undefined,
  record: Omit<ReviewCall, "judge" | "inputTokens" | "outputTokens" | "costUsd" | "latencyMs">,
  calls: ReviewCall[],
): Promise<CallResult> {
  const started = performance.now();
  const price = resolvePrice(o.settings.prices, judge);
  try {
    const model = getModel(judge, { settings: o.settings });
    const call = () =>
      callModel({
        model,
        system,
        prompt,
        schema,
        temperature: o.temperature ?? o.settings.judging.temperature,
        maxOutputTokens: maxOutputTokensFor(judge, o.settings.judging),
        timeoutMs: o.settings.judging.timeoutMs,
        maxRetries: o.settings.judging.maxRetries,
        signal: o.signal,
        promptCache: promptCacheHint(judge, { system, prompt }, o.settings.judging.promptCaching),
      });
    const r = await (o.scheduler ? o.scheduler.schedule(judge, call) : call());
    noteCall(o, calls, {
      ...record,
      judge,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      costUsd: price ? costOf(price, r) : judge.startsWith("mock:") ? 0 : null,
      latencyMs: r.latencyMs,
    });
    return r;
  } catch (err) {
    // a refusal or a cut-off answer still cost its tokens
    const p = partialReply(err);
    const inputTokens = p.inputTokens ?? 0;
    const outputTokens = p.outputTokens ?? 0;
    noteCall(o, calls, {
      ...record,
      judge,
      inputTokens,
      outputTokens,
      costUsd: price ? costOf(price, { ...p, inputTokens, outputTokens }) : 0,
      latencyMs: performance.now() - started,
      error: errorMessage(err),
    });
    throw err;
  }
}

function noteCall(o: ReviewOptions, calls: ReviewCall[], call: ReviewCall): void {
  calls.push(call);
  o.onCall?.(call);
}

/**
 * The calls a review will make, before it starts: the gate (unless --quick) and judges × N samples
 * (× 4 dimensions when scored apart) when the judge is allowed and the tests passed. A diagnosis
 * on a fail may add one.
 */
export function plannedCalls(
  o: Pick<ReviewOptions, "context" | "judges" | "n" | "perDimension" | "quick" | "judgeAllowed">,
): number {
  const testsFailed = (o.context.testResults?.failed ?? 0) > 0;
  if (!o.judgeAllowed.ok || testsFailed) return 0;
  return (o.quick ? 0 : 1) + o.judges.length * o.n * (o.perDimension ? DIMENSIONS.length : 1);
}

/**
 * The gate and the scored judgment, as a panel: judges × N samples, consensus per
 * dimension. The gate runs only when the tests passed; an unreachable judge leaves the test-only verdict.
 */
export async function runReview(o: ReviewOptions): Promise<ReviewOutcome> {
  const opts = {
    ...o,
    scheduler: o.scheduler ?? createCallScheduler(o.settings.judging),
  };
  const out = testOnlyOutcome(opts);
  try {
    await judge(opts, out);
  } finally {
    out.costUsd = out.calls.some((c) => c.costUsd === null)
      ? null
      : out.calls.reduce((a, c) => a + (c.costUsd ?? 0), 0);
  }
  return out;
}

async function judge(opts: ReviewOptions, out: ReviewOutcome): Promise<void> {
  if (!opts.judgeAllowed.ok) {
    out.judge = { status: opts.judgeAllowed.status ?? "not enabled", reason: opts.judgeAllowed.reason };
    out.warnings.push(
      out.judge.status === "not enabled"
        ? `Judge: not enabled (${opts.judgeAllowed.reason}). The verdict is the tests' alone.`
        : `Judge skipped: ${opts.judgeAllowed.reason}. The test-only verdict stands.`,
    );
    return;
  }
  if (out.verdict === "fail") {
    // the tests failed: nothing to judge, but the session can still say why (the diagnosis)
    out.judge = { status: "not asked", reason: "the tests failed" };
    out.diagnosis = await diagnose(opts, out);
    return;
  }
  const message = reviewMessage(opts.context);
  if (!opts.quick && !(await runGate(opts, message, out))) {
    out.judge = { status: "failed", error: out.gate?.skipped };
    return;
  }

  const collected = await collectSamples(opts, message, out.calls);
  out.samples.push(...collected.samples);
  out.warnings.push(...collected.warnings);
  out.coverage = reviewCoverage(opts, collected.samples);
  if (DIMENSIONS.some((d) => Object.keys(collected.byDim[d]).length === 0)) {
    const unreachable = collected.samples.every((s) => !s.raw);
    const firstError = collected.samples.find((s) => s.error)?.error;
    out.warnings.push(
      unreachable
        ? `No judge reachable for the scored judgment: skipped, nothing written for it${firstError ? ` (${firstError})` : ""}.`
        : "No valid judgment for every dimension: the scored judgment is skipped.",
    );
    // the gate's verdict, when it answered, is still the judge's; otherwise the tests decide
    out.judge =
      out.verdictSource === "gate"
        ? { status: "gate only", error: firstError ?? "no valid answer" }
        : { status: "failed", error: firstError ?? "no valid answer" };
    if (out.gate?.verdict === "fail" && !out.gate.skipped) out.diagnosis = await diagnose(opts, out);
    return;
  }
  out.judge = { status: "answered" };
  out.judgment = buildJudgment(opts, collected);
  out.score = out.judgment.score;
  // the gate's fail stands; otherwise the scored verdict decides
  out.verdict = out.gate?.verdict === "fail" && !out.gate.skipped ? "fail" : out.judgment.verdict;
  out.verdictSource = "judge";
  if (opts.mechanical !== undefined)
    out.blended =
      Math.round(blendedScore(opts.mechanical, out.judgment.score, opts.mechanicalWeight) * 1000) / 1000;
  if (out.verdict === "fail") out.diagnosis = await diagnose(opts, out);
}

/** Judges answered of asked and samples answered of asked, over the scored judgment's calls. */
function reviewCoverage(o: ReviewOptions, samples: ReviewSample[]): Coverage {
  const perJudge = o.n * (o.perDimension ? DIMENSIONS.length : 1);
  return {
    judges_asked: o.judges.length,
    judges_answered: new Set(samples.filter((s) => s.valid).map((s) => s.judge)).size,
    samples_asked: o.judges.length * perJudge,
    samples_answered: samples.filter((s) => s.valid).length,
    samples_failed: samples.filter((s) => !s.valid).length,
  };
}

/** The verdict the tests alone give: a failed test is a fail, with no call. */
function testOnlyOutcome(o: ReviewOptions): ReviewOutcome {
  const tests = o.context.testResults;
  const testsPassed = !tests || tests.failed === 0;
  return {
    verdict: testsPassed ? "pass" : "fail",
    verdictSource: "tests",
    gate: testsPassed
      ? null
      : {
          verdict: "fail",
          reasoning: `${tests?.failed} test(s) failed`,
          skipped: "the judge runs only when the tests pass",
        },
    judgment: null,
    samples: [],
    warnings: [],
    score: null,
    blended: null,
    diagnosis: null,
    judge: { status: "not asked" },
    coverage: {
      judges_asked: 0,
      judges_answered: 0,
      samples_asked: 0,
      samples_answered: 0,
      samples_failed: 0,
    },
    calls: [],
    transcript: null,
    costUsd: 0,
  };
}

/** The gate ("when in doubt, pass"). False when no judge could be reached: stop there. */
async function runGate(o: ReviewOptions, message: string, out: ReviewOutcome): Promise<boolean> {
  try {
    const r = await ask(
      o.judges[0],
      GATE_SYSTEM,
      message,
      o,
      structuredOutputSchema(gateAnswerSchema),
      { step: "gate" },
      out.calls,
    );
    const g = gateAnswerSchema.safeParse(parseJsonLoose(r.text));
    if (g.success) {
      out.gate = g.data;
      out.verdict = g.data.verdict;
      out.verdictSource = "gate";
    } else {
      out.gate = {
        verdict: "pass",
        reasoning: "",
        skipped: `the gate's answer was not valid JSON: ${JSON.stringify(r.text.slice(0, 100))}`,
      };
      out.warnings.push("Gate answer invalid: when in doubt, pass.");
    }
    return true;
  } catch (err) {
    out.gate = { verdict: "pass", reasoning: "", skipped: `no judge reachable: ${errorMessage(err)}` };
    out.warnings.push(
      `Gate skipped (no judge reachable: ${errorMessage(err)}); the test-only verdict stands.`,
    );
    return false;
  }
}

type Collected = {
  samples: ReviewSample[];
  warnings: string[];
  byDim: Record<Dimension, Record<string, { score: number }[]>>;
  valid: Judgment[];
  issues: Judgment["issues"];
};

/** Judges × N samples (× dimensions when scored apart), each validated; invalid ones are warned about and skipped. */
async function collectSamples(o: ReviewOptions, message: string, calls: ReviewCall[]): Promise<Collected> {
  const c: Collected = {
    samples: [],
    warnings: [],
    byDim: { correctness: {}, scope_adherence: {}, code_quality: {}, completeness: {} },
    valid: [],
    issues: [],
  };
  const addScore = (d: Dimension, judge: string, score: number) => {
    c.byDim[d][judge] = [...(c.byDim[d][judge] ?? []), { score }];
  };
  const one = async (judge: string, i: number, d?: Dimension) => {
    const started = performance.now();
    const base = { judge, sampleIndex: i, ...(d ? { dimension: d } : {}) };
    try {
      if (d) {
        const r = await ask(
          judge,
          dimensionSystem(d),
          message,
          o,
          structuredOutputSchema(dimensionAnswerSchema),
          { step: "judgment", sampleIndex: i, dimension: d },
          calls,
        );
        const p = dimensionAnswerSchema.safeParse(parseJsonLoose(r.text));
        c.samples.push({
          ...base,
          raw: r.text,
          valid: p.success,
          parsed: p.success ? p.data : undefined,
          error: p.success ? undefined : "invalid JSON",
          latencyMs: r.latencyMs,
          ...tokensOf(judge, r, o),
        });
        if (!p.success) return void c.warnings.push(`${judge} sample ${i + 1} (${d}): invalid JSON, skipped`);
        addScore(d, judge, p.data.score);
        c.issues.push(...(p.data.issues ?? []));
        return;
      }
      const r = await ask(
        judge,
        JUDGMENT_SYSTEM,
        message,
        o,
        structuredOutputSchema(judgmentSchema),
        { step: "judgment", sampleIndex: i },
        calls,
      );
      const p = judgmentSchema.safeParse(parseJsonLoose(r.text));
      c.samples.push({
        ...base,
        raw: r.text,
        valid: p.success,
        parsed: p.success ? p.data : undefined,
        error: p.success
          ? undefined
          : p.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; "),
        latencyMs: r.latencyMs,
        ...tokensOf(judge, r, o),
      });
      if (!p.success) return void c.warnings.push(`${judge} sample ${i + 1}: invalid judgment JSON, skipped`);
      c.valid.push(p.data);
      c.issues.push(...p.data.issues);
      for (const dim of DIMENSIONS) addScore(dim, judge, p.data.dimensions[dim]);
    } catch (err) {
      c.samples.push({
        ...base,
        raw: "",
        valid: false,
        error: errorMessage(err),
        latencyMs: performance.now() - started,
      });
    }
  };
  const pending: Promise<void>[] = [];
  for (const judge of o.judges)
    for (let i = 0; i < o.n; i++) {
      if (o.perDimension) for (const d of DIMENSIONS) pending.push(one(judge, i, d));
      else pending.push(one(judge, i));
    }
  await Promise.all(pending);
  c.samples.sort(
    (a, b) =>
      a.judge.localeCompare(b.judge) ||
      a.sampleIndex - b.sampleIndex ||
      (a.dimension ?? "").localeCompare(b.dimension ?? ""),
  );
  return c;
}

/** A call's tokens and cost, as a sample stores them (null cost: the judge has no price). */
function tokensOf(judge: string, r: CallResult, o: ReviewOptions) {
  const price = resolvePrice(o.settings.prices, judge);
  return {
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    costUsd: price ? costOf(price, r) : judge.startsWith("mock:") ? 0 : null,
  };
}

/** The judgment from the samples: consensus per dimension, composite, verdict, merged issues. */
function buildJudgment(o: ReviewOptions, c: Collected): NonNullable<ReviewOutcome["judgment"]> {
  const weights = o.weights ?? DEFAULT_WEIGHTS;
  const consensus = Object.fromEntries(
    DIMENSIONS.map((d) => [
      d,
      aggregateAcrossModels({
        criterionId: d,
        criterionType: "llm",
        scale: [0, 1],
        threshold: 0.7,
        samplesByModel: c.byDim[d],
        asked: { judges: o.judges, samplesPerJudge: o.n },
      }),
    ]),
  ) as Record<Dimension, CriterionVerdict>;
  const dims = Object.fromEntries(DIMENSIONS.map((d) => [d, consensus[d].final_score ?? 0])) as Record<
    Dimension,
    number
  >;
  const confidences = c.valid.map((v) => v.confidence);
  return {
    schema_version: "1.0.0",
    verdict: verdictFor(dims, weights),
    score: Math.round(compositeScore(dims, weights) * 1000) / 1000,
    dimensions: dims,
    issues: dedupeIssues(c.issues),
    summary:
      c.valid[0]?.summary ??
      (c.samples.find((s) => s.valid && s.parsed)
        ? "Scored per dimension; see each sample's reasoning."
        : ""),
    confidence: confidences.includes("low")
      ? "low"
      : confidences.includes("medium") || confidences.length === 0
        ? "medium"
        : "high",
    consensus,
    weights,
    judges: o.judges,
    n: o.n,
    mode: o.perDimension ? "per-dimension" : "combined",
  };
}

function dedupeIssues(issues: Judgment["issues"]): Judgment["issues"] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.severity}:${i.description.trim().toLowerCase()}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The diagnosis: on a fail (the judge's or the tests'), read the agent's session transcript
 * (what it said, the files it read and edited, the commands it ran) and return retry feedback,
 * asked with its structured-output schema like every judge call (see diagnosisFeedback).
 */
async function diagnose(o: ReviewOptions, out: ReviewOutcome): Promise<string | null> {
  if (!o.transcriptPath) return null;
  let digest: ReturnType<typeof readTranscript>;
  try {
    digest = readTranscript(o.transcriptPath);
  } catch (err) {
    out.warnings.push(`Transcript ${o.transcriptPath} not read: ${errorMessage(err)}`);
    return null;
  }
  out.transcript = { path: o.transcriptPath, source: o.transcriptSource ?? "given" };
  const why = [
    out.gate?.reasoning,
    out.judgment?.summary,
    ...(out.judgment?.issues ?? []).map((i) => `${i.severity}: ${i.description}`),
  ]
    .filter((x, i, a) => x && a.indexOf(x) === i)
    .join("\n");
  try {
    const r = await ask(
      o.judges[0],
      DIAGNOSIS_SYSTEM,
      diagnosisMessage(why || "rejected", o.context, digest),
      o,
      structuredOutputSchema(diagnosisAnswerSchema),
      { step: "diagnosis" },
      out.calls,
    );
    return diagnosisFeedback(r.text, digest);
  } catch (err) {
    return `${DIAGNOSIS_UNAVAILABLE}: ${errorMessage(err)}`;
  }
}
