/**
 * A run's panel optimization, read from what the run stored: its cases, samples, verdicts and the
 * labels people gave the verdicts. One report per LLM criterion with at most MAX_PANEL_JUDGES judges;
 * a criterion that cannot be optimized is named with why.
 */
import type { Db } from "@/db/client";
import { listVerdictLabels } from "@/db/queries/labels";
import { getRunById, getRunCases, getRunResults, getRunSamples } from "@/db/queries/runs";
import { JuryError } from "../errors";
import type { SampleScore } from "../judging/aggregate";
import { getOrInsert } from "../map-utils";
import type { Price } from "../pricing";
import { costPerVerdict } from "./cost";
import { MAX_PANEL_JUDGES, optimizePanel, type PanelReport, type PanelVerdict } from "./engine";

export type RunPanelOptions = {
  margin?: number;
  prices: Readonly<Record<string, Price>>;
  criterion?: string;
};

export type RunPanelReport = {
  kind: "run";
  runId: string;
  suiteName: string;
  criteria: PanelReport[];
  /** criteria not optimized, and why */
  skipped: { criterionId: string; why: string }[];
};

export async function optimizeRun(db: Db, runId: string, opts: RunPanelOptions): Promise<RunPanelReport> {
  const run = await getRunById(db, { id: runId });
  if (!run) throw new JuryError("not_found", `No run "${runId}"`);
  const cases = await getRunCases(db, { runId });
  const samples = await getRunSamples(db, { runId });
  const results = await getRunResults(db, { runId });
  const labels = await listVerdictLabels(db, runId);
  const key = (caseId: string, criterionId: string) => `${caseId}\u0000${criterionId}`;
  const labelOf = new Map(labels.map((l) => [key(l.caseId, l.criterionId), l.passed]));
  const resultOf = new Map(results.map((r) => [key(r.caseId, r.criterionId), r]));
  const criteria = [...new Map(cases.flatMap((c) => c.criteria).map((c) => [c.id, c])).values()];
  const out: PanelReport[] = [];
  const skipped: RunPanelReport["skipped"] = [];
  for (const cr of criteria) {
    if (opts.criterion && cr.id !== opts.criterion) continue;
    if (cr.type !== "llm") {
      skipped.push({ criterionId: cr.id, why: "a deterministic check: no judges to choose" });
      continue;
    }
    const judges = run.options.criterionJudges?.[cr.id] ?? run.options.judges;
    if (judges.length > MAX_PANEL_JUDGES) {
      skipped.push({
        criterionId: cr.id,
        why: `${judges.length} judges: the optimizer tries every sub-panel of at most ${MAX_PANEL_JUDGES}`,
      });
      continue;
    }
    const n = run.options.criterionN?.[cr.id] ?? run.options.n;
    const mine = samples
      .filter((s) => s.criterionId === cr.id && judges.includes(s.judge))
      .sort((a, b) => a.sampleIndex - b.sampleIndex);
    const byCase = new Map<string, Record<string, SampleScore[]>>();
    for (const s of mine) {
      const m = getOrInsert(byCase, s.caseId, () => ({}) as Record<string, SampleScore[]>);
      m[s.judge] = [...(m[s.judge] ?? []), { score: s.score, error: s.error }];
    }
    const verdicts: PanelVerdict[] = cases
      .filter((c) => c.criteria.some((x) => x.id === cr.id))
      .map((c) => {
        const r = resultOf.get(key(c.caseId, cr.id));
        return {
          caseId: c.caseId,
          label: labelOf.get(key(c.caseId, cr.id)) ?? null,
          stored: r ? { passed: r.passed, finalScore: r.finalScore } : null,
          samples: byCase.get(c.caseId) ?? {},
        };
      });
    out.push(
      optimizePanel({
        criterion: {
          id: cr.id,
          type: cr.type,
          scale: cr.scale,
          threshold: cr.threshold,
          panel: { ...run.options.panel, ...cr.panel },
        },
        judges,
        n,
        verdicts,
        costs: costPerVerdict(mine, opts.prices, judges, n, verdicts.length),
        margin: opts.margin,
      }),
    );
  }
  if (opts.criterion && out.length === 0 && !skipped.length)
    throw new JuryError("not_found", `Run ${runId} has no criterion "${opts.criterion}"`);
  return { kind: "run", runId, suiteName: run.suiteName, criteria: out, skipped };
}
