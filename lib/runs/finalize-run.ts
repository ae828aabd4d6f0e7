import type { Db } from "@/db/client";
import { getRunCases, getRunSamples, replaceResults } from "@/db/queries/runs";
import type { RunOptions, Sample } from "@/db/schema";
import {
  aggregateAcrossModels,
  type CriterionVerdict,
  type PanelOptions,
  type SampleScore,
} from "../judging/aggregate";
import { getOrInsert } from "../map-utils";
import { verdictRows } from "./live-verdicts";
import type { CaseCriterion } from "./plan-run";

/**
 * Aggregates stored samples into one verdict per case × criterion (pure: no database). Each
 * verdict's coverage counts the panel's judges and `n` samples each as asked; the panel options
 * come from the run, and a criterion's own override them.
 */
export function computeVerdicts(
  cases: readonly {
    caseId: string;
    criteria: readonly Pick<CaseCriterion, "id" | "type" | "scale" | "threshold" | "panel">[];
  }[],
  samples: Pick<Sample, "caseId" | "criterionId" | "judge" | "sampleIndex" | "score" | "error">[],
  judges: string[],
  opts: {
    n?: number;
    panel?: Partial<PanelOptions>;
    criterionJudges?: Record<string, string[]>;
    criterionN?: Record<string, number>;
  } = {},
): { caseId: string; verdict: CriterionVerdict }[] {
  const grouped = new Map<string, Map<string, SampleScore[]>>();
  for (const s of samples) {
    const k = `${s.caseId}\u0000${s.criterionId}`;
    const byJudge = getOrInsert(grouped, k, () => new Map<string, SampleScore[]>());
    getOrInsert(byJudge, s.judge, () => []).push({ score: s.score, error: s.error });
  }
  const out: { caseId: string; verdict: CriterionVerdict }[] = [];
  for (const c of cases) {
    for (const cr of c.criteria) {
      const byJudge = grouped.get(`${c.caseId}\u0000${cr.id}`) ?? new Map<string, SampleScore[]>();
      const samplesByModel: Record<string, SampleScore[]> = {};
      const panel =
        cr.type === "deterministic" ? ["deterministic"] : (opts.criterionJudges?.[cr.id] ?? judges);
      for (const j of panel) {
        const list = byJudge.get(j);
        if (list) samplesByModel[j] = list;
      }
      if (Object.keys(samplesByModel).length === 0) continue; // nothing finished yet
      out.push({
        caseId: c.caseId,
        verdict: aggregateAcrossModels({
          criterionId: cr.id,
          criterionType: cr.type,
          scale: cr.scale,
          threshold: cr.threshold,
          samplesByModel,
          asked: {
            judges: panel,
            samplesPerJudge: cr.type === "deterministic" ? 1 : (opts.criterionN?.[cr.id] ?? opts.n ?? 1),
          },
          panel: { ...opts.panel, ...cr.panel },
        }),
      });
    }
  }
  return out;
}

/** Recomputes and stores the results of a run from its samples. */
export async function finalizeRun(
  db: Db,
  runId: string,
  options: Pick<RunOptions, "judges" | "n" | "panel" | "criterionJudges" | "criterionN">,
): Promise<void> {
  const cases = await getRunCases(db, { runId });
  const samples = await getRunSamples(db, { runId });
  const verdicts = computeVerdicts(cases, samples, options.judges, {
    n: options.n,
    panel: options.panel,
    criterionJudges: options.criterionJudges,
    criterionN: options.criterionN,
  });
  await replaceResults(db, runId, verdictRows(runId, verdicts));
}
