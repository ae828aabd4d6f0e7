// Writes of lib/memory that go in one transaction: a study's import, an experiment with its job.

import { query, tx } from "../op";
import type { RetrievalConfig } from "../schema";
import { insertExperiment } from "./experiments";
import { ensureJob } from "./jobs";
import { type MemoryInput, upsertMemories } from "./memories";
import {
  type Annotation,
  type LabelConvention,
  type StudyQuery,
  setAnnotations,
  setStudyMeta,
  upsertStudyQueries,
} from "./study";

/**
 * Writes a whole study (memories, queries, labels and what the labels are) in one transaction: all of
 * it, or nothing. On SQLite, BEGIN IMMEDIATE: the write lock is taken up front, so a concurrent writer
 * makes this wait (busy_timeout), not fail.
 */
export const writeStudy = query(function* (
  db,
  collection: string,
  d: { memories: MemoryInput[]; queries: StudyQuery[]; qrels: Annotation[] },
  meta: { labelConvention: LabelConvention; origin: string },
) {
  yield* tx(db, function* (t) {
    yield* upsertMemories.body(t, collection, d.memories);
    yield* upsertStudyQueries.body(t, collection, d.queries);
    yield* setAnnotations.body(t, collection, d.qrels);
    yield* setStudyMeta.body(t, collection, meta);
  });
});

/** Inserts an experiment and its job (queued, `total` queries) together. */
export const insertExperimentWithJob = query(function* (
  db,
  e: { id: string; collection: string; label: string; config: RetrievalConfig; createdBy?: string | null },
  total: number,
) {
  yield* tx(db, function* (t) {
    yield* insertExperiment.body(t, e);
    yield* ensureJob.body(t, { id: e.id, kind: "experiment", total });
  });
});
