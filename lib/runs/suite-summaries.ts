import type { Db } from "@/db/client";
import { getCachedResponse } from "@/db/queries/runs";
import type { CriteriaRegistry } from "../criteria/registry";
import { type BudgetWarning, buildJudgePrompt, maxFieldChars, oversizeFields } from "../judging/prompt";
import { discoverSuites, loadSuite, outputFile, readOutputFile } from "../suites/load-suite";
import type { TestCase } from "../suites/schema";
import { judgeCacheKey } from "./cache-key";
import type { SuiteSummary } from "./estimate";

const isHttp = (c: TestCase) =>
  typeof c.output === "object" && c.output !== null && !Array.isArray(c.output) && "http" in c.output;

/** Where to count cached calls: the database, the judges and the temperature a run would use. */
export type CacheProbe = { db: Db; judges: readonly string[]; temperature: number };

/** Samples are cached in order: counting stops at a judge's first miss for a prompt (never over-counts). */
const MAX_SAMPLES = 10;

/**
 * What the start form needs to estimate a run, per discovered suite: sizes, prompt length, budget
 * warnings and, given a cache probe, how many calls each judge would take from the response cache.
 * Outputs from HTTP are not fetched here (their calls count as not cached).
 */
export async function suiteSummaries(
  registry: CriteriaRegistry,
  probe?: CacheProbe,
): Promise<SuiteSummary[]> {
  const out: SuiteSummary[] = [];
  for (const { dir, name } of discoverSuites()) out.push(await summaryOf(registry, dir, name, probe));
  return out;
}

async function summaryOf(
  registry: CriteriaRegistry,
  dir: string,
  name: string,
  probe: CacheProbe | undefined,
): Promise<SuiteSummary> {
  try {
    const suite = loadSuite(dir);
    const llm = suite.criteria.filter((r) => registry.criteria.get(r.id)?.type === "llm");
    const det = suite.criteria.filter((r) => registry.criteria.get(r.id)?.type === "deterministic");
    let chars = 0;
    let count = 0;
    const budget = maxFieldChars();
    const warnings: BudgetWarning[] = [];
    const cached: Record<string, number[]> = Object.fromEntries(
      (probe?.judges ?? []).map((j) => [j, Array<number>(MAX_SAMPLES).fill(0)]),
    );
    for (const c of suite.cases) {
      const output =
        typeof c.output === "string"
          ? c.output
          : outputFile(c) !== undefined
            ? readOutputFile(dir, c)
            : JSON.stringify(c.output, null, 2);
      const hint = c.llm_criteria?.prompt_hint ?? c.llm_prompt_hint ?? suite.hint;
      warnings.push(...oversizeFields(c.id, c.input, output, hint, budget));
      for (const r of llm) {
        const def = registry.criteria.get(r.id);
        if (def?.type !== "llm") continue;
        const req = buildJudgePrompt(def, c.input, output, {
          hint,
          focusAreas: c.llm_criteria?.focus_areas,
        });
        chars += req.system.length + req.prompt.length;
        count++;
        if (probe && !isHttp(c))
          for (const j of probe.judges)
            for (let i = 0; i < MAX_SAMPLES; i++) {
              if (!(await getCachedResponse(probe.db, judgeCacheKey(j, req, probe.temperature, i)))) break;
              cached[j][i]++;
            }
      }
    }
    return {
      dir,
      name: suite.name,
      cases: suite.cases.length,
      llmCriteria: llm.length,
      deterministicCriteria: det.length,
      meanPromptChars: count ? chars / count : 0,
      warnings,
      ...(probe ? { cached, cachedTemperature: probe.temperature } : {}),
    };
  } catch (err) {
    return {
      dir,
      name,
      cases: 0,
      llmCriteria: 0,
      deterministicCriteria: 0,
      meanPromptChars: 0,
      error: (err as Error).message,
    };
  }
}
