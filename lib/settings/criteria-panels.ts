// The judges a run uses when none are named: each criterion's promoted panel (Settings'
// criteriaPanels), else the judges Settings enable. Without zod: the run form (a client component)
// imports it too.
import { enabledJudges } from "./providers";
import type { Settings } from "./schema";

export type DefaultJudges = {
  /** every judge the run calls, in first-seen order */
  judges: string[];
  /** each LLM criterion's own panel, when some criterion has a promoted one (else undefined: one panel) */
  criterionJudges?: Record<string, string[]>;
  /** the criteria whose panel was promoted */
  promoted: string[];
  /** LLM criteria left with no judge (no promoted panel, none enabled) */
  unjudged: string[];
};

/**
 * `jury eval` without --judges: each LLM criterion of the suite is judged by its promoted panel, the
 * others by the enabled judges. A criterion left with no judge is named in `unjudged`.
 */
export function defaultEvalJudges(
  settings: Pick<Settings, "providers" | "endpoints" | "criteriaPanels">,
  llmCriteria: readonly string[],
): DefaultJudges {
  const enabled = enabledJudges(settings);
  const promoted = llmCriteria.filter((c) => (settings.criteriaPanels[c]?.length ?? 0) > 0);
  if (promoted.length === 0)
    return { judges: enabled, promoted, unjudged: enabled.length ? [] : [...llmCriteria] };
  const criterionJudges: Record<string, string[]> = {};
  const judges: string[] = [];
  const unjudged: string[] = [];
  for (const c of llmCriteria) {
    const panel = settings.criteriaPanels[c]?.length ? settings.criteriaPanels[c] : enabled;
    if (panel.length === 0) unjudged.push(c);
    criterionJudges[c] = [...panel];
    for (const j of panel) if (!judges.includes(j)) judges.push(j);
  }
  return { judges, criterionJudges, promoted, unjudged };
}

/**
 * The run form's preselected judges: those of the promoted panels that Settings enable (the form
 * offers only enabled judges), else every enabled judge.
 */
export function defaultFormJudges(
  settings: Pick<Settings, "providers" | "endpoints" | "criteriaPanels">,
): string[] {
  const enabled = enabledJudges(settings);
  const promoted = new Set(Object.values(settings.criteriaPanels ?? {}).flat());
  const picked = enabled.filter((j) => promoted.has(j));
  return picked.length ? picked : enabled;
}

/**
 * `jury eval` without --n: each LLM criterion's promoted N (Settings' criteriaSamples, set by the
 * panel optimizer), where one is promoted; undefined when none is.
 */
export function defaultEvalSamples(
  settings: Pick<Settings, "criteriaSamples">,
  llmCriteria: readonly string[],
): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  for (const c of llmCriteria) {
    const n = settings.criteriaSamples?.[c];
    if (n !== undefined) out[c] = n;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * The run form's preselected N: the promoted N (the largest, when criteria have different ones: the
 * form has one N for the whole run), else Settings' N.
 */
export function defaultFormSamples(settings: Pick<Settings, "criteriaSamples" | "judging">): number {
  const promoted = Object.values(settings.criteriaSamples ?? {});
  return promoted.length ? Math.max(...promoted) : settings.judging.samples;
}
