import type { ReviewRecord } from "@/db/schema";
import { errorMessage } from "../errors";
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
  return callModel({
    model,
    system,
    prompt,
    schema,
    temperature: o.temperature ?? o.settings.judging.temperature,
    timeoutMs: o.settings.judging.timeoutMs,
    maxRetries: o.settings.judging.maxRetries,
  });
}

/**
 * Seed 002's gate and seed 003's scored judgment, as a panel: judges × N samples, consensus per
 * dimension. The gate runs only when the tests passed; an unreachable judge leaves the test-only verdict.
 */
export async function runReview(o: ReviewOptions): Promise<ReviewOutcome> {
  const warnings: string[] = [];
  const samples: ReviewSample[] = [];
  const tests = o.context.testResults;
  const testsPassed = !tests || tests.failed === 0;
  const out: ReviewOutcome = {
    verdict: testsPassed ? "pass" : "fail",
    verdictSource: "tests",
    gate: null,
    judgment: null,
    samples,
    warnings,
    score: null,
    blended: null,
    diagnosis: null,
  };
  if (!testsPassed) {
    out.gate = {
      verdict: "fail",
      reasoning: `${tests?.failed} test(s) failed`,
      skipped: "the judge runs only when the tests pass",
    };
    return out;
  }
  if (!o.judgeAllowed.ok) {
    warnings.push(`Judge skipped: ${o.judgeAllowed.reason}. The test-only verdict stands.`);
    return out;
  }
  const message = reviewMessage(o.context);

  if (!o.quick) {
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
        warnings.push("Gate answer invalid: when in doubt, pass.");
      }
    } catch (err) {
      out.gate = { verdict: "pass", reasoning: "", skipped: `no judge reachable: ${errorMessage(err)}` };
      warnings.push(`Gate skipped (no judge reachable: ${errorMessage(err)}); the test-only verdict stands.`);
      return out;
    }
  }

  // scored judgment: judges × N, each sample validated; invalid ones are warned about and skipped
  const byDim: Record<Dimension, Record<string, { score: number }[]>> = {
    correctness: {},
    scope_adherence: {},
    code_quality: {},
    completeness: {},
  };
  const valid: Judgment[] = [];
  const issues: Judgment["issues"] = [];
  const tasks: Promise<void>[] = [];
  for (const judge of o.judges) {
    for (let i = 0; i < o.n; i++) {
      if (!o.perDimension) {
        tasks.push(
          (async () => {
            const started = performance.now();
            try {
              const r = await ask(judge, JUDGMENT_SYSTEM, message, o, structuredOutputSchema(judgmentSchema));
              const p = judgmentSchema.safeParse(parseJsonLoose(r.text));
              samples.push({
                judge,
                sampleIndex: i,
                raw: r.text,
                valid: p.success,
                parsed: p.success ? p.data : undefined,
                error: p.success
                  ? undefined
                  : p.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; "),
                latencyMs: r.latencyMs,
              });
              if (!p.success) {
                warnings.push(`${judge} sample ${i + 1}: invalid judgment JSON, skipped`);
                return;
              }
              valid.push(p.data);
              issues.push(...p.data.issues);
              for (const d of DIMENSIONS)
                byDim[d][judge] = [...(byDim[d][judge] ?? []), { score: p.data.dimensions[d] }];
            } catch (err) {
              samples.push({
                judge,
                sampleIndex: i,
                raw: "",
                valid: false,
                error: errorMessage(err),
                latencyMs: performance.now() - started,
              });
            }
          })(),
        );
      } else {
        for (const d of DIMENSIONS) {
          tasks.push(
            (async () => {
              const started = performance.now();
              try {
                const r = await ask(
                  judge,
                  dimensionSystem(d),
                  message,
                  o,
                  structuredOutputSchema(dimensionAnswerSchema),
                );
                const p = dimensionAnswerSchema.safeParse(parseJsonLoose(r.text));
                samples.push({
                  judge,
                  sampleIndex: i,
                  dimension: d,
                  raw: r.text,
                  valid: p.success,
                  parsed: p.success ? p.data : undefined,
                  error: p.success ? undefined : "invalid JSON",
                  latencyMs: r.latencyMs,
                });
                if (!p.success) {
                  warnings.push(`${judge} sample ${i + 1} (${d}): invalid JSON, skipped`);
                  return;
                }
                byDim[d][judge] = [...(byDim[d][judge] ?? []), { score: p.data.score }];
                issues.push(...(p.data.issues ?? []));
              } catch (err) {
                samples.push({
                  judge,
                  sampleIndex: i,
                  dimension: d,
                  raw: "",
                  valid: false,
                  error: errorMessage(err),
                  latencyMs: performance.now() - started,
                });
              }
            })(),
          );
        }
      }
    }
  }
  await Promise.all(tasks);
  samples.sort(
    (a, b) =>
      a.judge.localeCompare(b.judge) ||
      a.sampleIndex - b.sampleIndex ||
      (a.dimension ?? "").localeCompare(b.dimension ?? ""),
  );

  if (DIMENSIONS.some((d) => Object.keys(byDim[d]).length === 0)) {
    const unreachable = samples.every((s) => !s.raw);
    warnings.push(
      unreachable
        ? "No judge reachable for the scored judgment: skipped, nothing written for it."
        : "No valid judgment for every dimension: the scored judgment is skipped.",
    );
    return out;
  }
  const weights = o.weights ?? DEFAULT_WEIGHTS;
  const consensus = Object.fromEntries(
    DIMENSIONS.map((d) => [
      d,
      aggregateAcrossModels({
        criterionId: d,
        criterionType: "llm",
        scale: [0, 1],
        threshold: 0.7,
        samplesByModel: byDim[d],
      }),
    ]),
  ) as Record<Dimension, CriterionVerdict>;
  const dims = Object.fromEntries(DIMENSIONS.map((d) => [d, consensus[d].final_score ?? 0])) as Record<
    Dimension,
    number
  >;
  const score = compositeScore(dims, weights);
  const verdict = verdictFor(dims, weights);
  const confidences = valid.map((v) => v.confidence);
  out.judgment = {
    schema_version: "1.0.0",
    verdict,
    score: Math.round(score * 1000) / 1000,
    dimensions: dims,
    issues: dedupeIssues(issues),
    summary:
      valid[0]?.summary ??
      (samples.find((s) => s.valid && s.parsed) ? "Scored per dimension; see each sample's reasoning." : ""),
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
  out.score = out.judgment.score;
  // the gate's fail stands; otherwise the scored verdict decides
  out.verdict = out.gate?.verdict === "fail" && !out.gate.skipped ? "fail" : verdict;
  out.verdictSource = "judge";
  if (o.mechanical !== undefined)
    out.blended = Math.round(blendedScore(o.mechanical, score, o.mechanicalWeight) * 1000) / 1000;
  if (out.verdict === "fail" && o.transcriptPath) out.diagnosis = await diagnose(o, out);
  return out;
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
