import { and, asc, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { FailureMessage, JudgeSampleCounts } from "@/lib/runs/coverage";
import type { CaseCriterion } from "@/lib/runs/plan-run";
import type { CellJudgeStats, VerdictSummary } from "@/lib/runs/triage";
import type { SqliteDb } from "../client";
import { all, type OpDb, one, query, rows } from "../op";
import { perConnection } from "./statements";

/**
 * The run page's queries at any size: what it shows of the whole run comes from SQL aggregates
 * (counts and sums per cell and judge, failures per judge and message, a few fields of each
 * verdict), and rows only for the cases of the page it draws. None of them loads every sample.
 */

/** A sample answered: a score and no error (lib/runs/coverage.ts and triage.ts say the same in JS). */
const OK = "(score is not null and coalesce(error, '') = '')";

function statements(db: SqliteDb) {
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
/** The SQLite store's statements (a body given a SQLite store is given the store itself). */
const sqliteStmts = (db: OpDb) => stmts(db as unknown as SqliteDb);

/**
 * The same queries on PostgreSQL: a boolean is not a number there (count … filter instead of
 * sum(bool)), aliases are quoted to keep their case, the groups are sorted as SQLite's group by
 * gives them (and the verdicts in their index's order), and the verdict's fields come from jsonb
 * (`->` returns them as JSON values, which node-postgres parses: numbers, booleans, null).
 */
const OK_PG = sql.raw(OK);
const pgStatements = {
  caseIndex: (runId: string) =>
    sql`select case_id as "caseId", name, criteria from run_cases where run_id = ${runId} order by case_id`,
  cellJudgeStats: (runId: string) =>
    sql`select case_id as "caseId", criterion_id as "criterionId", judge,
          count(*) filter (where ${OK_PG}) as answered,
          count(*) filter (where not ${OK_PG}) as failed,
          sum(score) filter (where ${OK_PG}) as sum,
          sum(score * score) filter (where ${OK_PG}) as "sumSq",
          min(score) filter (where ${OK_PG}) as min,
          max(score) filter (where ${OK_PG}) as max
        from samples where run_id = ${runId} and superseded_at is null
        group by case_id, criterion_id, judge
        order by case_id, criterion_id, judge`,
  failureMessages: (runId: string) =>
    sql`select judge, coalesce(error, 'no score') as message, count(*) as count, min(id) as "firstId"
        from samples where run_id = ${runId} and superseded_at is null and not ${OK_PG}
        group by judge, coalesce(error, 'no score')
        order by judge, message`,
  verdicts: (runId: string) =>
    sql`select case_id as "caseId", criterion_id as "criterionId", final_score as "finalScore",
          passed, flag_for_review as "flagForReview",
          d -> 'threshold' as threshold,
          jsonb_typeof(d -> 'coverage') as "coverageType",
          d #> '{coverage,samples_answered}' as "samplesAnswered",
          d #> '{coverage,samples_asked}' as "samplesAsked",
          d -> 'straddles_threshold' as straddles,
          d -> 'cross_model_std' as "crossModelStd"
        from (select case_id, criterion_id, final_score, passed, flag_for_review, data::jsonb as d
              from results where run_id = ${runId}) r
        order by case_id, criterion_id`,
} satisfies Record<string, (runId: string) => SQL>;

export type CaseIndexEntry = {
  caseId: string;
  name: string;
  criteria: Pick<CaseCriterion, "id" | "type" | "threshold" | "scale" | "panel">[];
};

/** Every case of a run, in case id order: its id, name and criteria with their scales (no input or output). */
export const getRunCaseIndex = query(function* (db, { runId }: { runId: string }) {
  type Row = { caseId: string; name: string; criteria: string };
  const found =
    db.engine === "sqlite"
      ? (sqliteStmts(db).caseIndex.all(runId) as Row[])
      : yield* rows<Row>(db, pgStatements.caseIndex(runId));
  return found.map(
    (r): CaseIndexEntry => ({
      caseId: r.caseId,
      name: r.name,
      criteria: (JSON.parse(r.criteria) as CaseCriterion[]).map((c) => ({
        id: c.id,
        type: c.type,
        threshold: c.threshold,
        scale: c.scale,
        ...(c.panel ? { panel: c.panel } : {}),
      })),
    }),
  );
});

/** One case of a run, whole (its output and criteria with their scales). */
export const getRunCase = query(function* (db, { runId, caseId }: { runId: string; caseId: string }) {
  const { runCases } = db.tables;
  return yield* one(
    db
      .select()
      .from(runCases)
      .where(and(eq(runCases.runId, runId), eq(runCases.caseId, caseId))),
  );
});

/**
 * Counts and sums of a run's current samples per case × criterion × judge: answered and failed,
 * and the sum, sum of squares, min and max of the answered scores.
 */
export const getCellJudgeStats = query(function* (db, { runId }: { runId: string }) {
  if (db.engine === "sqlite") return sqliteStmts(db).cellJudgeStats.all(runId) as CellJudgeStats[];
  return yield* rows<CellJudgeStats>(db, pgStatements.cellJudgeStats(runId));
});

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
export const getFailureMessages = query(function* (db, { runId }: { runId: string }) {
  if (db.engine === "sqlite") return sqliteStmts(db).failureMessages.all(runId) as FailureMessage[];
  return yield* rows<FailureMessage>(db, pgStatements.failureMessages(runId));
});

/** What triage reads of each stored verdict of a run, without parsing the verdicts. */
export const getVerdictSummaries = query(function* (db, { runId }: { runId: string }) {
  type Row = {
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
  };
  const found =
    db.engine === "sqlite"
      ? (sqliteStmts(db).verdicts.all(runId) as Row[])
      : yield* rows<Row>(db, pgStatements.verdicts(runId));
  return found.map(
    (r): VerdictSummary => ({
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
    }),
  );
});

const CHUNK = 500;

/** The stored verdicts of some cases of a run (the page's), whole. */
export const getRunResultsForCases = query(function* (
  db,
  { runId, caseIds }: { runId: string; caseIds: string[] },
) {
  const { results } = db.tables;
  const out: (typeof results.$inferSelect)[] = [];
  for (let i = 0; i < caseIds.length; i += CHUNK) {
    const q = db
      .select()
      .from(results)
      .where(and(eq(results.runId, runId), inArray(results.caseId, caseIds.slice(i, i + CHUNK))));
    // SQLite walks results' unique index (run, case, criterion); PostgreSQL is told that order
    out.push(
      ...(yield* all(db.engine === "pg" ? q.orderBy(asc(results.caseId), asc(results.criterionId)) : q)),
    );
  }
  return out;
});

/**
 * The current samples of some cases of a run (optionally of one criterion), in id order: the rows
 * of what a page shows, never the whole run's.
 */
export const getRunSamplesForCases = query(function* (
  db,
  { runId, caseIds, criterionId }: { runId: string; caseIds: string[]; criterionId?: string },
) {
  const { samples } = db.tables;
  const out: (typeof samples.$inferSelect)[] = [];
  for (let i = 0; i < caseIds.length; i += CHUNK)
    out.push(
      ...(yield* all(
        db
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
          .orderBy(asc(samples.id)),
      )),
    );
  return caseIds.length > CHUNK ? out.sort((a, b) => a.id - b.id) : out;
});
