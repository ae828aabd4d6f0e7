import type { Db } from "@/db/client";
import { pooledMemoryIds } from "@/db/queries/experiments";
import { listAnnotations, listStudyQueries } from "@/db/queries/study";

export type QueryProgress = {
  queryId: string;
  text: string;
  /** false: the query needs annotation and is in no metric until a person labels one of its memories */
  labelled: boolean;
  pooled: number;
  annotated: number;
  complete: boolean;
};

/** A query is complete when every memory in its pool (what any configuration surfaced) has a judgment. */
export async function annotationProgress(
  db: Db,
  collection: string,
): Promise<{ queries: QueryProgress[]; complete: number; annotations: number; needsAnnotation: number }> {
  const all = await listAnnotations(db, collection);
  const byQuery = new Map<string, Set<string>>();
  for (const a of all) {
    const s = byQuery.get(a.queryId) ?? new Set<string>();
    s.add(a.memoryId);
    byQuery.set(a.queryId, s);
  }
  const queries: QueryProgress[] = [];
  for (const q of await listStudyQueries(db, collection)) {
    const pool = await pooledMemoryIds(db, collection, q.queryId);
    const judged = byQuery.get(q.queryId) ?? new Set<string>();
    const annotated = pool.filter((m) => judged.has(m)).length;
    queries.push({
      queryId: q.queryId,
      text: q.text,
      labelled: q.labelled,
      pooled: pool.length,
      annotated,
      complete: q.labelled && (pool.length > 0 ? annotated === pool.length : judged.size > 0),
    });
  }
  return {
    queries,
    complete: queries.filter((q) => q.complete).length,
    annotations: all.length,
    needsAnnotation: queries.filter((q) => !q.labelled).length,
  };
}
