import { and, asc, eq, notInArray } from "drizzle-orm";
import type { Db } from "../client";
import { type BatchStatus, type RunBatch, runBatches } from "../schema";

/** Stored the moment the provider returned its id: a restart polls it, never submits its calls again. */
export function insertRunBatch(
  db: Db,
  b: { id: string; runId: string; judge: string; taskIds: number[]; inputFileId?: string | null },
): void {
  db.insert(runBatches)
    .values({ ...b, inputFileId: b.inputFileId ?? null, status: "submitted", updatedAt: new Date() })
    .run();
}

/** A run's batches still to collect (submitted, in progress, ended but not read), oldest first. */
export function getOpenRunBatches(db: Db, { runId }: { runId: string }): RunBatch[] {
  return db
    .select()
    .from(runBatches)
    .where(
      and(
        eq(runBatches.runId, runId),
        notInArray(runBatches.status, ["collected", "cancelled", "failed", "expired"]),
      ),
    )
    .orderBy(asc(runBatches.createdAt))
    .all();
}

/** Every batch of a run, oldest first (the run page's batch line). */
export function getRunBatches(db: Db, { runId }: { runId: string }): RunBatch[] {
  return db
    .select()
    .from(runBatches)
    .where(eq(runBatches.runId, runId))
    .orderBy(asc(runBatches.createdAt))
    .all();
}

export function updateRunBatch(
  db: Db,
  id: string,
  patch: { status?: BatchStatus; succeeded?: number; failed?: number; error?: string | null },
): void {
  db.update(runBatches)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(runBatches.id, id))
    .run();
}
