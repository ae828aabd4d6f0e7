import type { Db } from "@/db/client";
import { getRunById, getRunCases, getSampleById } from "@/db/queries/runs";
import type { Run, RunCase, Sample } from "@/db/schema";
import type { CaseInput, LlmCriterion } from "../criteria/definition";
import type { CriteriaRegistry } from "../criteria/registry";
import { buildJudgePrompt, type JudgeRequest } from "../judging/prompt";
import { parseJudgeId } from "../providers/get-model";
import { redactSecrets } from "../redact";
import { judgeCacheKey } from "./cache-key";
import { errorKind } from "./coverage";
import { type CaseCriterion, criterionHash, DETERMINISTIC_JUDGE } from "./plan-run";

/**
 * The call inspector: for one stored sample, the exact request its judge was sent and the raw
 * response. The request is rebuilt the way executeRun builds it (buildJudgePrompt on the run's case
 * snapshot and the criterion), then checked against the hash stored with the sample (its response
 * cache key): "verified" means the rebuild is byte for byte what was sent. Every text shown passes
 * through redactSecrets.
 */

export type ChatMessage = { role: "system" | "user"; content: string };

/** The request as an OpenAI-compatible endpoint receives it (the AI SDK's body, less what it adds per provider). */
export type InspectedRequest = {
  judge: string;
  provider: string;
  model: string;
  messages: ChatMessage[];
  temperature: number;
  /** the structured-output format the call asks for */
  responseFormat: {
    type: "json_schema";
    json_schema: { name: "response"; strict: true; schema: Record<string, unknown> };
  };
  sampleIndex: number;
  /** sha256 of judge, messages, schema, temperature and sample index: the response cache's key */
  requestKey: string;
};

/**
 * `verified`: the rebuild hashes to the key stored with the sample. `differs`: it does not (the
 * criterion or the field budget changed since): the request shown is today's, not the one sent.
 * `not recorded`: the sample was stored before keys were (or the call never reached a judge).
 */
export type RequestCheck = "verified" | "differs" | "not recorded";

export type CallInspection = {
  run: Pick<Run, "id" | "suiteName" | "status"> & { /** samples asked of each judge per prompt */ n: number };
  caseId: string;
  caseName: string;
  criterionId: string;
  sample: Pick<
    Sample,
    | "id"
    | "judge"
    | "sampleIndex"
    | "score"
    | "inputTokens"
    | "outputTokens"
    | "costUsd"
    | "latencyMs"
    | "attempts"
    | "cached"
    | "supersededAt"
    | "supersededReason"
    | "createdAt"
  > & {
    reasoning: string | null;
    rawText: string | null;
    error: string | null;
    /** the failure's kind (refusal, truncated, HTTP 429, timeout…; see errorKind), null when it answered */
    errorKind: string | null;
  };
  /** `llm`: a model call; `deterministic`: a check run in a worker (no request); `unavailable`: cannot be rebuilt */
  kind: "llm" | "deterministic" | "unavailable";
  request?: InspectedRequest;
  check: RequestCheck;
  /** why the request cannot be rebuilt, or why it differs */
  note?: string;
  deterministic?: { function: string; params: Record<string, unknown> };
  criterion: { version?: string; versionNow?: string; hash?: string; hashNow?: string };
  unpriced: boolean;
};

const clean = (t: string | null): string | null => (t === null ? null : redactSecrets(t));

/** The request executeRun sends for this case × criterion (pure: the same inputs give the same request). */
export function rebuildJudgeRequest(c: Pick<RunCase, "input" | "output">, def: LlmCriterion): JudgeRequest {
  const input = c.input as CaseInput & { hint?: string; focusAreas?: string[] };
  return buildJudgePrompt(def, input, c.output, { hint: input.hint, focusAreas: input.focusAreas });
}

/** One sample's call, or undefined when the run or the sample does not exist. */
export async function inspectSample(
  db: Db,
  runId: string,
  sampleId: number,
  registry: Pick<CriteriaRegistry, "criteria">,
): Promise<CallInspection | undefined> {
  const run = await getRunById(db, { id: runId });
  if (!run) return undefined;
  const s = await getSampleById(db, { runId, id: sampleId });
  if (!s) return undefined;
  const c = (await getRunCases(db, { runId })).find((x) => x.caseId === s.caseId);
  const cc: CaseCriterion | undefined = c?.criteria.find((x) => x.id === s.criterionId);
  const def = registry.criteria.get(s.criterionId);
  const base: CallInspection = {
    run: { id: run.id, suiteName: run.suiteName, status: run.status, n: run.options.n },
    caseId: s.caseId,
    caseName: c?.name ?? s.caseId,
    criterionId: s.criterionId,
    sample: {
      id: s.id,
      judge: s.judge,
      sampleIndex: s.sampleIndex,
      score: s.score,
      inputTokens: s.inputTokens,
      outputTokens: s.outputTokens,
      costUsd: s.costUsd,
      latencyMs: s.latencyMs,
      attempts: s.attempts,
      cached: s.cached,
      supersededAt: s.supersededAt,
      supersededReason: s.supersededReason,
      createdAt: s.createdAt,
      reasoning: clean(s.reasoning),
      rawText: clean(s.rawText),
      error: clean(s.error),
      errorKind: s.error ? errorKind(s.error) : null,
    },
    kind: "unavailable",
    check: "not recorded",
    criterion: {
      version: cc?.version,
      versionNow: def?.version,
      hash: cc?.definitionHash,
      hashNow: def ? criterionHash(def) : undefined,
    },
    unpriced: (run.options.unpriced ?? []).includes(s.judge) && !s.cached,
  };
  if (s.judge === DETERMINISTIC_JUDGE || cc?.type === "deterministic") {
    return {
      ...base,
      kind: "deterministic",
      note: "A deterministic check: no model was called. It ran the criterion's function on the output.",
      ...(def?.type === "deterministic"
        ? { deterministic: { function: def.function, params: cc?.params ?? {} } }
        : {}),
    };
  }
  if (!c || !cc) return { ...base, note: "The run holds no snapshot of this case and criterion." };
  if (def?.type !== "llm")
    return {
      ...base,
      note: `The criterion ${s.criterionId} is no longer available: its request cannot be rebuilt.`,
    };
  const req = rebuildJudgeRequest(c, def);
  const requestKey = judgeCacheKey(s.judge, req, run.options.temperature, s.sampleIndex);
  const check: RequestCheck =
    s.requestKey === null ? "not recorded" : s.requestKey === requestKey ? "verified" : "differs";
  const { provider, model } = parseJudgeId(s.judge);
  return {
    ...base,
    kind: "llm",
    check,
    note:
      check === "differs"
        ? base.criterion.hash && base.criterion.hash !== base.criterion.hashNow
          ? `The criterion changed since the run (version ${base.criterion.version ?? "?"} then, ${base.criterion.versionNow} now): this is today's request, not the one sent.`
          : "This rebuild does not hash to the key stored with the sample (the field budget, JURY_MAX_FIELD_CHARS, may have changed): it is today's request, not the one sent."
        : check === "not recorded"
          ? "This sample was stored without its request's hash: the rebuild cannot be checked against it."
          : undefined,
    request: {
      judge: s.judge,
      provider,
      model,
      messages: [
        { role: "system", content: redactSecrets(req.system) },
        { role: "user", content: redactSecrets(req.prompt) },
      ],
      temperature: run.options.temperature,
      responseFormat: {
        type: "json_schema",
        json_schema: { name: "response", strict: true, schema: req.schema },
      },
      sampleIndex: s.sampleIndex,
      requestKey,
    },
  };
}
