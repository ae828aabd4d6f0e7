import { asc, desc, eq, sql } from "drizzle-orm";
import { all, one, query, rows, write } from "../op";
import type { experimentResults, RetrievalConfig, RunStatus } from "../schema";

export const insertExperiment = query(function* (
  db,
  e: { id: string; collection: string; label: string; config: RetrievalConfig; createdBy?: string | null },
) {
  const { experiments } = db.tables;
  yield* write(db.insert(experiments).values({ ...e, createdBy: e.createdBy ?? null, status: "queued" }));
});

export const setExperimentStatus = query(function* (db, id: string, status: RunStatus) {
  const { experiments } = db.tables;
  yield* write(
    db.update(experiments).set({ status, error: null, finishedAt: null }).where(eq(experiments.id, id)),
  );
});

export const finishExperiment = query(function* (db, id: string, status: RunStatus, error?: string) {
  const { experiments } = db.tables;
  yield* write(
    db
      .update(experiments)
      .set({ status, error: error ?? null, finishedAt: new Date() })
      .where(eq(experiments.id, id)),
  );
});

export const insertExperimentResult = query(function* (db, r: typeof experimentResults.$inferInsert) {
  const { experimentResults } = db.tables;
  yield* write(db.insert(experimentResults).values(r).onConflictDoNothing());
});

/** A collection's experiments, newest first. */
export const listExperiments = query(function* (db, collection: string) {
  const { experiments } = db.tables;
  return yield* all(
    db
      .select()
      .from(experiments)
      .where(eq(experiments.collection, collection))
      .orderBy(desc(experiments.createdAt), desc(experiments.id)),
  );
});

export const getExperiment = query(function* (db, id: string) {
  const { experiments } = db.tables;
  return yield* one(db.select().from(experiments).where(eq(experiments.id, id)));
});

/**
 * An experiment's results in query id order (the order SQLite always gave them in: it reads them
 * through the (experiment_id, query_id) index; PostgreSQL is told).
 */
export const getExperimentResults = query(function* (db, id: string) {
  const { experimentResults } = db.tables;
  return yield* all(
    db
      .select()
      .from(experimentResults)
      .where(eq(experimentResults.experimentId, id))
      .orderBy(asc(experimentResults.queryId)),
  );
});

/**
 * Every memory any configuration retrieved (or ranked as a candidate) for a query: the TREC-style
 * pool, in the order the experiments were made (SQLite: their rowid; PostgreSQL, which has none:
 * their creation time, then id).
 */
export const pooledMemoryIds = query(function* (db, collection: string, queryId: string, depth: number = 10) {
  const order = db.engine === "pg" ? sql`e.created_at, e.id` : sql`e.rowid`;
  const found = yield* rows<{ retrieved: string; candidates: string }>(
    db,
    sql`select r.retrieved, r.candidates from experiment_results r join experiments e on e.id = r.experiment_id
        where e.collection = ${collection} and r.query_id = ${queryId} order by ${order}`,
  );
  const ids = new Set<string>();
  for (const r of found) {
    for (const id of JSON.parse(r.retrieved) as string[]) ids.add(id);
    for (const c of (JSON.parse(r.candidates) as { memoryId: string }[]).slice(0, depth)) ids.add(c.memoryId);
  }
  return [...ids];
});
