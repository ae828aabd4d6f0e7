import type { ResultRow } from "../domain";
import type { LiveProgress } from "../jobs/live";
import type { Coverage, CriterionVerdict } from "../judging/aggregate";
import type { RunCoverage } from "./coverage";

/**
 * A live run's verdicts: the rule that makes a finished run's verdicts (computeVerdicts, in
 * finalize-run.ts) applied to the samples stored so far. Nothing here aggregates: a partial verdict
 * is a final verdict's computation on fewer samples, and is only ever shown marked as partial.
 */

/** Verdicts as the results table holds them (one mapping, for a finished run and a live one). */
export function verdictRows(
  runId: string,
  verdicts: { caseId: string; verdict: CriterionVerdict }[],
): ResultRow[] {
  return verdicts.map(({ caseId, verdict: v }) => ({
    runId,
    caseId,
    criterionId: v.criterion_id,
    finalScore: v.final_score,
    passed: v.passed,
    consensusLevel: v.consensus_level,
    flagForReview: v.flag_for_review,
    data: v,
  }));
}

/** Samples of a verdict neither answered nor failed yet. */
export function pendingSamples(
  c: Pick<Coverage, "samples_asked" | "samples_answered" | "samples_failed">,
): number {
  return Math.max(0, c.samples_asked - c.samples_answered - c.samples_failed);
}

/**
 * A verdict is partial while its run is live and some of its samples are still pending: it may
 * still change, so it is never shown as a pass or a FAIL, and nobody is asked to label it. Once the
 * run stops, a verdict with samples missing is final, with its coverage saying what it rests on.
 */
export function isPartialVerdict(live: boolean, coverage: Coverage | undefined): boolean {
  return live && (coverage === undefined || pendingSamples(coverage) > 0);
}

/**
 * What a run rests on, from its live snapshot (/api/progress): the run header and the progress bar
 * both show this, so they always show the same count.
 */
export function liveCoverage(p: LiveProgress): RunCoverage {
  return {
    judges_asked: p.judgesAsked ?? 0,
    judges_answered: p.judgesAnswered ?? 0,
    samples_asked: p.total,
    samples_answered: p.done,
    samples_failed: p.errors,
    samples_pending: Math.max(0, p.total - p.done - p.errors),
  };
}
