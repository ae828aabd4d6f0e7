import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import type { Db } from "@/db/client";
import { insertRun, type NewRunPlan } from "@/db/queries/runs";
import type { RunOptions } from "@/db/schema";
import type { Criterion } from "../criteria/definition";
import type { CriteriaRegistry } from "../criteria/registry";
import { JuryError } from "../errors";
import type { PanelOptions } from "../judging/aggregate";
import { type BudgetWarning, JUDGE_SYSTEM_PROMPT, maxFieldChars, oversizeFields } from "../judging/prompt";
import { resolvePrice } from "../pricing";
import { parseJudgeId } from "../providers/get-model";
import { assertJudgesReady } from "../providers/preflight";
import type { Settings } from "../settings/schema";
import { effectiveCriteria, resolveOutput, type Suite } from "../suites/load-suite";
import type { CriterionRef } from "../suites/schema";

export const DETERMINISTIC_JUDGE = "deterministic";

export type CaseCriterion = {
  id: string;
  type: "llm" | "deterministic";
  scale: [number, number];
  threshold: number;
  params: Record<string, unknown>;
  /** this criterion's own panel options (suite.json or the case), over the run's */
  panel?: Partial<PanelOptions>;
  /** the criterion's definition version when the run was planned (runs planned before it have none) */
  version?: string;
  /**
   * What the judges are sent, hashed when the run was planned: the system prompt, an LLM criterion's
   * prompt template and response schema, or a deterministic one's function name (criterionHash).
   * Compare shows it; the call inspector says when it changed since.
   */
  definitionHash?: string;
};

/**
 * A short hash of what a criterion sends or runs: the judges' system prompt with its prompt template
 * and response schema, or its function's name.
 */
export function criterionHash(def: Criterion): string {
  const what =
    def.type === "llm"
      ? JSON.stringify(["llm", JUDGE_SYSTEM_PROMPT, def.prompt_template, def.response_schema])
      : JSON.stringify(["deterministic", def.function]);
  return createHash("sha256").update(what).digest("hex").slice(0, 12);
}

/** The panel options as Settings hold them. */
export function panelOptionsOf(judging: Settings["judging"]): PanelOptions {
  return {
    consensus_threshold: judging.consensusThreshold,
    flag_low_consensus: judging.flagLowConsensus,
    report_uncertainty: judging.reportUncertainty,
  };
}

/** Judges with no price in the table (mock answers cost nothing): their cost is "unpriced", never $0. */
export function unpricedJudges(judges: readonly string[], prices: Settings["prices"]): string[] {
  return judges.filter((j) => !resolvePrice(prices, j) && !j.startsWith("mock:"));
}

/** The panel options a criterion reference sets (suite.json's, then the case's), without the unset ones. */
function refPanel(...refs: (CriterionRef | undefined)[]): Partial<PanelOptions> | undefined {
  const out: Partial<PanelOptions> = {};
  for (const r of refs) {
    if (!r) continue;
    if (r.consensus_threshold !== undefined) out.consensus_threshold = r.consensus_threshold;
    if (r.flag_low_consensus !== undefined) out.flag_low_consensus = r.flag_low_consensus;
    if (r.report_uncertainty !== undefined) out.report_uncertainty = r.report_uncertainty;
  }
  return Object.keys(out).length ? out : undefined;
}

export function newRunId(): string {
  const d = new Date();
  const stamp = d.toISOString().slice(0, 10).replaceAll("-", "");
  return `run_${stamp}_${randomBytes(4).toString("hex")}`;
}

export function taskKey(caseId: string, criterionId: string, judge: string, sampleIndex: number): string {
  return `${caseId}|${criterionId}|${judge}|${sampleIndex}`;
}

/** A run plan, with the case fields that will reach the judges cut to their budget. */
export type PlannedRun = NewRunPlan & { warnings: BudgetWarning[] };

/**
 * Turns a suite into a run plan: one task per case × LLM criterion × judge × sample, and one per
 * case × deterministic criterion. Unknown or broken criteria stop the plan with their names.
 */
export async function planRun(
  suite: Suite,
  registry: CriteriaRegistry,
  options: RunOptions,
): Promise<PlannedRun> {
  if (options.judges.length === 0)
    throw new JuryError(
      "invalid:judges",
      "No judges: enable one in Settings or pass --judges provider:model",
    );
  for (const j of options.judges) parseJudgeId(j);
  const missing = suite.criteria.filter((r) => !registry.criteria.has(r.id));
  if (missing.length) {
    const broken = missing.map((m) => {
      const errs = registry.errors.filter((e) => e.folder === m.id);
      return errs.length
        ? `${m.id} (${errs.map((e) => `${e.field}: ${e.message}`).join("; ")})`
        : `${m.id} (no such criterion)`;
    });
    throw new JuryError(
      "invalid:criteria",
      `${path.join(suite.dir, "suite.json")}: criteria that cannot run: ${broken.join(", ")}`,
    );
  }
  const budget = maxFieldChars();
  const plan: PlannedRun = {
    id: newRunId(),
    suitePath: suite.dir,
    suiteName: suite.name,
    options,
    cases: [],
    tasks: [],
    warnings: [],
  };
  for (const c of suite.cases) {
    const output = await resolveOutput(suite.dir, c);
    const refs = effectiveCriteria(suite, c);
    const criteria: CaseCriterion[] = refs.map((r) => {
      const def = registry.criteria.get(r.id)!;
      const threshold = r.threshold ?? def.scoring.default_threshold;
      if (threshold < def.scoring.scale[0] || threshold > def.scoring.scale[1]) {
        throw new JuryError(
          "invalid:suite",
          `${c.criteria?.some((o) => o.id === r.id && o.threshold !== undefined) ? suite.caseFiles.get(c.id) : path.join(suite.dir, "suite.json")}: case "${c.id}": threshold ${threshold} for ${r.id} is outside its scale ${def.scoring.scale.join("–")}`,
        );
      }
      const panel = refPanel(
        suite.criteria.find((x) => x.id === r.id),
        c.criteria?.find((x) => x.id === r.id),
      );
      return {
        id: r.id,
        type: def.type,
        scale: def.scoring.scale,
        threshold,
        params: { ...def.parameters, ...r.params },
        ...(panel ? { panel } : {}),
        version: def.version,
        definitionHash: criterionHash(def),
      };
    });
    // a case's llm_criteria: its prompt_hint wins over llm_prompt_hint; its focus areas go to the prompt
    const hint = c.llm_criteria?.prompt_hint ?? c.llm_prompt_hint ?? suite.hint;
    const focusAreas = c.llm_criteria?.focus_areas;
    plan.cases.push({
      caseId: c.id,
      name: c.name,
      input: { ...c.input, hint, ...(focusAreas?.length ? { focusAreas } : {}) },
      output,
      criteria,
    });
    if (criteria.some((cr) => cr.type === "llm"))
      plan.warnings.push(...oversizeFields(c.id, c.input, output, hint, budget));
    for (const cr of criteria) {
      if (cr.type === "deterministic") {
        plan.tasks.push({
          key: taskKey(c.id, cr.id, DETERMINISTIC_JUDGE, 0),
          caseId: c.id,
          criterionId: cr.id,
          judge: DETERMINISTIC_JUDGE,
          sampleIndex: 0,
        });
        continue;
      }
      for (const judge of options.criterionJudges?.[cr.id] ?? options.judges) {
        for (let i = 0; i < (options.criterionN?.[cr.id] ?? options.n); i++) {
          plan.tasks.push({
            key: taskKey(c.id, cr.id, judge, i),
            caseId: c.id,
            criterionId: cr.id,
            judge,
            sampleIndex: i,
          });
        }
      }
    }
  }
  return plan;
}

/**
 * Plans and stores a run; `onWarnings` hears of case fields over their budget before it is stored.
 * With `preflight`, every judge the plan calls must be callable (enabled, with its key or base URL),
 * or it throws `invalid:judges` naming each one and nothing is stored. `createdBy`: who starts it (a
 * user's name, "local", "<os user> (cli)"), shown on the run's page.
 */
export async function createRun(
  db: Db,
  suite: Suite,
  registry: CriteriaRegistry,
  options: RunOptions,
  onWarnings?: (warnings: BudgetWarning[]) => void,
  preflight?: {
    settings: Pick<Settings, "providers" | "endpoints">;
    env?: Record<string, string | undefined>;
    /** where the judges came from, for the refusal (`--judges`) */
    source?: string;
  },
  createdBy?: string,
): Promise<string> {
  // before any output is fetched or anything stored: a suite of deterministic checks calls no judge
  if (preflight && suite.criteria.some((r) => registry.criteria.get(r.id)?.type === "llm"))
    assertJudgesReady(options.judges, preflight.settings, { env: preflight.env, source: preflight.source });
  const { warnings, ...plan } = await planRun(suite, registry, options);
  if (warnings.length) onWarnings?.(warnings);
  await insertRun(db, { ...plan, createdBy: createdBy ?? null });
  return plan.id;
}
