import { and, asc, eq, notInArray } from "drizzle-orm";
import { all, query, write } from "../op";
import type { BatchStatus, RunBatch } from "../schema";

/** Stored the moment the provider returned its id: a restart polls it, never submits its calls again. */
export const insertRunBatch = query(function* (
  db,
  b: { id: string; runId: string; judge: string; taskIds: number[]; inputFileId?: string | null },
) {
  yield* write(
    db
      .insert(db.tables.runBatches)
      .values({ ...b, inputFileId: b.inputFileId ?? null, status: "submitted", updatedAt: new Date() }),
  );
});

/** A run's batches still to collect (submitted, in progress, ended but not read), oldest first. */
export const getOpenRunBatches = query(function* (db, { runId }: { runId: string }) {
  const { runBatches } = db.tables;
  return (yield* all(
    db
      .select()
      .from(runBatches)
      .where(
        and(
          eq(runBatches.runId, runId),
          notInArray(runBatches.status, ["collected", "cancelled", "failed", "expired"]),
        ),
      )
      .orderBy(asc(runBatches.createdAt), asc(runBatches.id)),
  )) as RunBatch[];
});

/** Every batch of a run, oldest first (the run page's batch line). */
export const getRunBatches = query(function* (db, { runId }: { runId: string }) {
  const { runBatches } = db.tables;
  return (yield* all(
    db
      .select()
      .from(runBatches)
      .where(eq(runBatches.runId, runId))
      .orderBy(asc(runBatches.createdAt), asc(runBatches.id)),
  )) as RunBatch[];
});

export const updateRunBatch = query(function* (
  db,
  id: string,
  patch: { status?: BatchStatus; succeeded?: number; failed?: number; error?: string | null },
) {
  const { runBatches } = db.tables;
  yield* write(
    db
      .update(runBatches)
      .set({ ...patch, updatedAt: new Date() })
      .where(eq(runBatches.id, id)),
  );
});
