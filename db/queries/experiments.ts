import { desc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { experimentResults, experiments, type RetrievalConfig, type RunStatus } from "../schema";

export function insertExperiment(
  db: Db,
  e: { id: string; collection: string; label: string; config: RetrievalConfig },
): void {
  db.insert(experiments)
    .values({ ...e, status: "queued" })
    .run();
}

export function setExperimentStatus(db: Db, id: string, status: RunStatus): void {
  db.update(experiments).set({ status, error: null, finishedAt: null }).where(eq(experiments.id, id)).run();
}

export function finishExperiment(db: Db, id: string, status: RunStatus, error?: string): void {
  db.update(experiments)
    .set({ status, error: error ?? null, finishedAt: new Date() })
    .where(eq(experiments.id, id))
    .run();
}

export function insertExperimentResult(db: Db, r: typeof experimentResults.$inferInsert): void {
  db.insert(experimentResults).values(r).onConflictDoNothing().run();
}

export function listExperiments(db: Db, collection: string) {
  return db
    .select()
    .from(experiments)
    .where(eq(experiments.collection, collection))
    .orderBy(desc(experiments.createdAt))
    .all();
}

export function getExperiment(db: Db, id: string) {
  return db.select().from(experiments).where(eq(experiments.id, id)).get();
}

export function getExperimentResults(db: Db, id: string) {
  return db.select().from(experimentResults).where(eq(experimentResults.experimentId, id)).all();
}

/** Every memory any configuration retrieved (or ranked as a candidate) for a query: the TREC-style pool. */
export function pooledMemoryIds(db: Db, collection: string, queryId: string, depth = 10): string[] {
  const rows = db.$client
    .prepare(
      `select r.retrieved, r.candidates from experiment_results r join experiments e on e.id = r.experiment_id
       where e.collection = ? and r.query_id = ?`,
    )
    .all(collection, queryId) as { retrieved: string; candidates: string }[];
  const ids = new Set<string>();
  for (const r of rows) {
    for (const id of JSON.parse(r.retrieved) as string[]) ids.add(id);
    for (const c of (JSON.parse(r.candidates) as { memoryId: string }[]).slice(0, depth)) ids.add(c.memoryId);
  }
  return [...ids];
}
