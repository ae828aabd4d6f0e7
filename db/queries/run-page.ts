import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { FailureMessage, JudgeSampleCounts } from "@/lib/runs/coverage";
import type { CaseCriterion } from "@/lib/runs/plan-run";
import type { CellJudgeStats, VerdictSummary } from "@/lib/runs/triage";
import type { Db } from "../client";
import { results, runCases, samples } from "../schema";
import { perConnection } from "./statements";

/**
 * The run page's queries at any size: what it shows of the whole run comes from SQL aggregates
 * (counts and sums per cell and judge, failures per judge and message, a few fields of each
 * verdict), and rows only for the cases of the page it draws. None of them loads every sample.
 */

/** A sample answered: a score and no error (lib/runs/coverage.ts and triage.ts say the same in JS). */
const OK = "(score is not null and coalesce(error, '') = '')";

function statements(db: Db) {
  const c = db.$client;
  return {
    caseIndex: c.prepare(
      `select case_id as caseId, name, criteria from run_cases where run_id = ? order by case_id`,
    ),
    cellJudgeStats: c.prepare(
      `select case_id as caseId, criterion_id as criterionId, judge,
              sum(${OK}) as answered,
              count(*) - sum(${OK}) as failed,
              sum(iif(${OK}, score, null)) as sum,
              sum(iif(${OK}, score * score, null)) as sumSq,
              min(iif(${OK}, score, null)) as min,
              max(iif(${OK}, score, null)) as max
       from samples where run_id = ? and superseded_at is null
       group by case_id, criterion_id, judge`,
    ),
    failureMessages: c.prepare(
      `select judge, coalesce(error, 'no score') as message, count(*) as count, min(id) as firstId
       from samples where run_id = ? and superseded_at is null and not ${OK}
       group by judge, coalesce(error, 'no score')`,
    ),
    verdicts: c.prepare(
      `select case_id as caseId, criterion_id as criterionId, final_score as finalScore,
              passed, flag_for_review as flagForReview,
              data ->> '$.threshold' as threshold,
              json_type(data, '$.coverage') as coverageType,
              data ->> '$.coverage.samples_answered' as samplesAnswered,
              data ->> '$.coverage.samples_asked' as samplesAsked,
              data ->> '$.straddles_threshold' as straddles,
              data ->> '$.cross_model_std' as crossModelStd
       from results where run_id = ?`,
    ),
  };
}
const stmts = perConnection(statements);

export type CaseIndexEntry = {
  caseId: string;
  name: string;
  criteria: Pick<CaseCriterion, "id" | "type" | "threshold" | "scale" | "panel">[];
};

/** Every case of a run, in case id order: its id, name and criteria with their scales (no input or output). */
export function getRunCaseIndex(db: Db, { runId }: { runId: string }): CaseIndexEntry[] {
  const rows = stmts(db).caseIndex.all(runId) as { caseId: string; name: string; criteria: string }[];
  return rows.map((r) => ({
    caseId: r.caseId,
    name: r.name,
    criteria: (JSON.parse(r.criteria) as CaseCriterion[]).map((c) => ({
      id: c.id,
      type: c.type,
      threshold: c.threshold,
      scale: c.scale,
      ...(c.panel ? { panel: c.panel } : {}),
    })),
  }));
}

/** One case of a run, whole (its output and criteria with their scales). */
export function getRunCase(db: Db, { runId, caseId }: { runId: string; caseId: string }) {
  return db
    .select()
    .from(runCases)
    .where(and(eq(runCases.runId, runId), eq(runCases.caseId, caseId)))
    .get();
}

/**
 * Counts and sums of a run's current samples per case × criterion × judge: answered and failed,
 * and the sum, sum of squares, min and max of the answered scores.
 */
export function getCellJudgeStats(db: Db, { runId }: { runId: string }): CellJudgeStats[] {
  return stmts(db).cellJudgeStats.all(runId) as CellJudgeStats[];
}

/** Per judge answered and failed current samples, summed from per cell counts. */
export function judgeCountsOf(cells: readonly CellJudgeStats[]): JudgeSampleCounts[] {
  const by = new Map<string, JudgeSampleCounts>();
  for (const g of cells) {
    let c = by.get(g.judge);
    if (!c) {
      c = { judge: g.judge, answered: 0, failed: 0 };
      by.set(g.judge, c);
    }
    c.answered += g.answered;
    c.failed += g.failed;
  }
  return [...by.values()];
}

/** A run's failed current samples per judge and message (the error, else "no score"), with the first one's id. */
export function getFailureMessages(db: Db, { runId }: { runId: string }): FailureMessage[] {
  return stmts(db).failureMessages.all(runId) as FailureMessage[];
}

/** What triage reads of each stored verdict of a run, without parsing the verdicts. */
export function getVerdictSummaries(db: Db, { runId }: { runId: string }): VerdictSummary[] {
  const rows = stmts(db).verdicts.all(runId) as {
    caseId: string;
    criterionId: string;
    finalScore: number | null;
    passed: number;
    flagForReview: number;
    threshold: number | null;
    coverageType: string | null;
    samplesAnswered: number | null;
    samplesAsked: number | null;
    straddles: number | null;
    crossModelStd: number | null;
  }[];
  return rows.map((r) => ({
    caseId: r.caseId,
    criterionId: r.criterionId,
    finalScore: r.finalScore,
    passed: Boolean(r.passed),
    flagForReview: Boolean(r.flagForReview),
    threshold: r.threshold,
    coverage:
      r.coverageType === "object"
        ? { samplesAnswered: r.samplesAnswered ?? 0, samplesAsked: r.samplesAsked ?? 0 }
        : null,
    straddlesThreshold: Boolean(r.straddles),
    crossModelStd: r.crossModelStd,
  }));
}

const CHUNK = 500;

/** The stored verdicts of some cases of a run (the page's), whole. */
export function getRunResultsForCases(db: Db, { runId, caseIds }: { runId: string; caseIds: string[] }) {
  const out: (typeof results.$inferSelect)[] = [];
  for (let i = 0; i < caseIds.length; i += CHUNK)
    out.push(
      ...db
        .select()
        .from(results)
        .where(and(eq(results.runId, runId), inArray(results.caseId, caseIds.slice(i, i + CHUNK))))
        .all(),
    );
  return out;
}

/**
 * The current samples of some cases of a run (optionally of one criterion), in id order: the rows
 * of what a page shows, never the whole run's.
 */
export function getRunSamplesForCases(
  db: Db,
  { runId, caseIds, criterionId }: { runId: string; caseIds: string[]; criterionId?: string },
) {
  const out: (typeof samples.$inferSelect)[] = [];
  for (let i = 0; i < caseIds.length; i += CHUNK)
    out.push(
      ...db
        .select()
        .from(samples)
        .where(
          and(
            eq(samples.runId, runId),
            inArray(samples.caseId, caseIds.slice(i, i + CHUNK)),
            criterionId === undefined ? undefined : eq(samples.criterionId, criterionId),
            isNull(samples.supersededAt),
          ),
        )
        .orderBy(asc(samples.id))
        .all(),
    );
  return caseIds.length > CHUNK ? out.sort((a, b) => a.id - b.id) : out;
}
