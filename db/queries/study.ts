import { and, eq } from "drizzle-orm";
import type { Db } from "../client";
import { annotations, studyQueries } from "../schema";

export type StudyQuery = { queryId: string; text: string };
export type Annotation = {
  queryId: string;
  memoryId: string;
  relevance: number;
  source: "qrels" | "human" | "example";
};

export function upsertStudyQueries(db: Db, collection: string, qs: StudyQuery[]): void {
  db.transaction((tx) => {
    for (const q of qs) {
      tx.insert(studyQueries)
        .values({ collection, queryId: q.queryId, text: q.text })
        .onConflictDoUpdate({
          target: [studyQueries.collection, studyQueries.queryId],
          set: { text: q.text },
        })
        .run();
    }
  });
}

export function listStudyQueries(db: Db, collection: string): StudyQuery[] {
  return db
    .select({ queryId: studyQueries.queryId, text: studyQueries.text })
    .from(studyQueries)
    .where(eq(studyQueries.collection, collection))
    .orderBy(studyQueries.queryId)
    .all();
}

export function setAnnotations(db: Db, collection: string, items: Annotation[]): void {
  db.transaction((tx) => {
    for (const a of items) {
      tx.insert(annotations)
        .values({ collection, ...a, updatedAt: new Date() })
        .onConflictDoUpdate({
          target: [annotations.collection, annotations.queryId, annotations.memoryId],
          set: { relevance: a.relevance, source: a.source, updatedAt: new Date() },
        })
        .run();
    }
  });
}

export function listAnnotations(db: Db, collection: string, queryId?: string): Annotation[] {
  return db
    .select({
      queryId: annotations.queryId,
      memoryId: annotations.memoryId,
      relevance: annotations.relevance,
      source: annotations.source,
    })
    .from(annotations)
    .where(
      queryId
        ? and(eq(annotations.collection, collection), eq(annotations.queryId, queryId))
        : eq(annotations.collection, collection),
    )
    .all();
}

/** Ground truth as qrels: query → memory → relevance grade. */
export function getQrels(db: Db, collection: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const a of listAnnotations(db, collection)) {
    let m = out.get(a.queryId);
    if (!m) {
      m = new Map();
      out.set(a.queryId, m);
    }
    m.set(a.memoryId, a.relevance);
  }
  return out;
}

export type CollectionSummary = {
  collection: string;
  memories: number;
  queries: number;
  experiments: number;
};

export function listStudies(db: Db): CollectionSummary[] {
  return db.$client
    .prepare(
      `select m.collection as collection, m.n as memories,
              (select count(*) from study_queries q where q.collection = m.collection) as queries,
              (select count(*) from experiments e where e.collection = m.collection) as experiments
       from (select collection, count(*) as n from memories group by collection) m order by m.collection`,
    )
    .all() as CollectionSummary[];
}
