import type { CriteriaRegistry } from "../criteria/registry";
import { type BudgetWarning, buildJudgePrompt, maxFieldChars, oversizeFields } from "../judging/prompt";
import { discoverSuites, loadSuite, outputFile, readOutputFile } from "../suites/load-suite";
import type { SuiteSummary } from "./estimate";

/** What the start form needs to estimate a run, per discovered suite. Outputs from HTTP are not fetched here. */
export function suiteSummaries(registry: CriteriaRegistry): SuiteSummary[] {
  return discoverSuites().map(({ dir, name }) => {
    try {
      const suite = loadSuite(dir);
      const llm = suite.criteria.filter((r) => registry.criteria.get(r.id)?.type === "llm");
      const det = suite.criteria.filter((r) => registry.criteria.get(r.id)?.type === "deterministic");
      let chars = 0;
      let count = 0;
      const budget = maxFieldChars();
      const warnings: BudgetWarning[] = [];
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
  });
}
