import type { ReviewRecord } from "@/db/schema";
import { errorMessage } from "../errors";
import { type CallScheduler, createCallScheduler } from "../jobs/scheduler";
import { aggregateAcrossModels, type CriterionVerdict } from "../judging/aggregate";
import { callModel } from "../judging/call-model";
import { parseJsonLoose } from "../judging/parse-json";
import { extractRecentContext } from "../memory/transcript";
import { getModel } from "../providers/get-model";
import { structuredOutputSchema } from "../schemas/structured-output";
import type { Settings } from "../settings/schema";
import type { ReviewContext } from "./context";
import {
  blendedScore,
  compositeScore,
  DEFAULT_WEIGHTS,
  DIMENSIONS,
  type Dimension,
  dimensionAnswerSchema,
  gateAnswerSchema,
  type Judgment,
  judgmentSchema,
  verdictFor,
  type Weights,
} from "./judgment";
import { DIAGNOSIS_SYSTEM, dimensionSystem, GATE_SYSTEM, JUDGMENT_SYSTEM, reviewMessage } from "./prompts";

/** One judge call of a review, as stored in the review's record. */
export type ReviewSample = ReviewRecord["samples"][number];

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
  /** false when the judge is disabled or throttled: the test-only verdict stands */
  judgeAllowed: { ok: true } | { ok: false; reason: string };
  /** the call scheduler to share limits with other work; a review's own, from settings, by default */
  scheduler?: CallScheduler;
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
};

async function ask(
  judge: string,
  system: string,
  prompt: string,
  o: ReviewOptions,
  schema?: Record<string, unknown>,
) {
  const model = getModel(judge, { settings: o.settings });
  const call = () =>
    callModel({
      model,
      system,
      prompt,
      schema,
      temperature: o.temperature ?? o.settings.judging.temperature,
      timeoutMs: o.settings.judging.timeoutMs,
      maxRetries: o.settings.judging.maxRetries,
    });
  return o.scheduler ? o.scheduler.schedule(judge, call) : call();
}

/**
 * Seed 002's gate and seed 003's scored judgment, as a panel: judges × N samples, consensus per
 * dimension. The gate runs only when the tests passed; an unreachable judge leaves the test-only verdict.
 */
export async function runReview(o: ReviewOptions): Promise<ReviewOutcome> {
  const opts = {
    ...o,
    scheduler: o.scheduler ?? createCallScheduler(o.settings.judging),
  };
  const out = testOnlyOutcome(opts);
  if (out.verdict === "fail") return out;
  if (!opts.judgeAllowed.ok) {
    out.warnings.push(`Judge skipped: ${opts.judgeAllowed.reason}. The test-only verdict stands.`);
    return out;
  }
  const message = reviewMessage(opts.context);
  if (!opts.quick && !(await runGate(opts, message, out))) return out;

  const collected = await collectSamples(opts, message);
  out.samples.push(...collected.samples);
  out.warnings.push(...collected.warnings);
  if (DIMENSIONS.some((d) => Object.keys(collected.byDim[d]).length === 0)) {
    const unreachable = collected.samples.every((s) => !s.raw);
    out.warnings.push(
      unreachable
        ? "No judge reachable for the scored judgment: skipped, nothing written for it."
        : "No valid judgment for every dimension: the scored judgment is skipped.",
    );
    return out;
  }
  out.judgment = buildJudgment(opts, collected);
  out.score = out.judgment.score;
  // the gate's fail stands; otherwise the scored verdict decides
  out.verdict = out.gate?.verdict === "fail" && !out.gate.skipped ? "fail" : out.judgment.verdict;
  out.verdictSource = "judge";
  if (opts.mechanical !== undefined)
    out.blended =
      Math.round(blendedScore(opts.mechanical, out.judgment.score, opts.mechanicalWeight) * 1000) / 1000;
  if (out.verdict === "fail" && opts.transcriptPath) out.diagnosis = await diagnose(opts, out);
  return out;
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
  };
}

/** Seed 002's gate ("when in doubt, pass"). False when no judge could be reached: stop there. */
async function runGate(o: ReviewOptions, message: string, out: ReviewOutcome): Promise<boolean> {
  try {
    const r = await ask(o.judges[0], GATE_SYSTEM, message, o, structuredOutputSchema(gateAnswerSchema));
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
async function collectSamples(o: ReviewOptions, message: string): Promise<Collected> {
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
        );
        const p = dimensionAnswerSchema.safeParse(parseJsonLoose(r.text));
        c.samples.push({
          ...base,
          raw: r.text,
          valid: p.success,
          parsed: p.success ? p.data : undefined,
          error: p.success ? undefined : "invalid JSON",
          latencyMs: r.latencyMs,
        });
        if (!p.success) return void c.warnings.push(`${judge} sample ${i + 1} (${d}): invalid JSON, skipped`);
        addScore(d, judge, p.data.score);
        c.issues.push(...(p.data.issues ?? []));
        return;
      }
      const r = await ask(judge, JUDGMENT_SYSTEM, message, o, structuredOutputSchema(judgmentSchema));
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
  const calls: Promise<void>[] = [];
  for (const judge of o.judges)
    for (let i = 0; i < o.n; i++) {
      if (o.perDimension) for (const d of DIMENSIONS) calls.push(one(judge, i, d));
      else calls.push(one(judge, i));
    }
  await Promise.all(calls);
  c.samples.sort(
    (a, b) =>
      a.judge.localeCompare(b.judge) ||
      a.sampleIndex - b.sampleIndex ||
      (a.dimension ?? "").localeCompare(b.dimension ?? ""),
  );
  return c;
}

/** Seed 003's judgment from the samples: consensus per dimension, composite, verdict, merged issues. */
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

/** Seed 002's follow-up: on a fail, read the session transcript and return retry feedback. */
async function diagnose(o: ReviewOptions, out: ReviewOutcome): Promise<string | null> {
  const transcript = extractRecentContext(o.transcriptPath, 60);
  if (!transcript) return null;
  const why = [
    out.gate?.reasoning,
    out.judgment?.summary,
    ...(out.judgment?.issues ?? []).map((i) => `${i.severity}: ${i.description}`),
  ]
    .filter(Boolean)
    .join("\n");
  try {
    const r = await ask(
      o.judges[0],
      DIAGNOSIS_SYSTEM,
      `Rejection:\n${why}\n\nTranscript (last messages):\n<data name="transcript">\n${transcript}\n</data>`,
      o,
    );
    const d = parseJsonLoose(r.text) as Record<string, unknown> | undefined;
    if (!d || typeof d !== "object") return `Diagnosis (unstructured): ${r.text.slice(0, 1500)}`;
    const files = Array.isArray(d.files_consulted) ? d.files_consulted.join(", ") : "";
    return `Previous attempt tried ${d.approach ?? "?"} (files: ${files || "none recorded"}). It failed at ${d.point_of_failure ?? "?"} because ${d.root_cause ?? "?"}. Suggestion: ${d.suggestion ?? "?"}`;
  } catch (err) {
    return `Diagnosis unavailable: ${errorMessage(err)}`;
  }
}
