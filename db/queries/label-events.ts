import { asc, eq } from "drizzle-orm";
import { all, type Op, query } from "../op";

/**
 * Label histories read whole, oldest first, for agreement between people (lib/agreement/people.ts
 * reads each person's own labels back from them): a study's every query, a run's every cell. Only
 * what that needs: which item, the label after, the source, who.
 */
export type StudyLabelEvent = {
  queryId: string;
  /** null: a change to the whole query (a fresh start, or its undo) */
  memoryId: string | null;
  relevance: number | null;
  source: string;
  author: string | null;
};

export const listStudyLabelEvents = query(function* (db, collection: string): Op<StudyLabelEvent[]> {
  const { annotationHistory: h } = db.tables;
  return yield* all(
    db
      .select({
        queryId: h.queryId,
        memoryId: h.memoryId,
        relevance: h.relevance,
        source: h.source,
        author: h.author,
      })
      .from(h)
      .where(eq(h.collection, collection))
      .orderBy(asc(h.id)),
  );
});

export type VerdictLabelEvent = {
  caseId: string;
  criterionId: string;
  /** null: the label was removed */
  passed: boolean | null;
  source: string;
  author: string | null;
};

export const listVerdictLabelEvents = query(function* (db, runId: string): Op<VerdictLabelEvent[]> {
  const { verdictLabelHistory: h } = db.tables;
  return yield* all(
    db
      .select({
        caseId: h.caseId,
        criterionId: h.criterionId,
        passed: h.passed,
        source: h.source,
        author: h.author,
      })
      .from(h)
      .where(eq(h.runId, runId))
      .orderBy(asc(h.id)),
  );
});
