import type { Db } from "../client";
import type { ClearedLabels } from "../schema";
import { stmt } from "./statements";

/**
 * A study's queries, its ground truth and where each label came from.
 *
 * - `study_queries.labelled`: false for a query that "needs annotation" (imported without labels,
 *   or after a fresh annotation started). Such a query stays out of every metric until a person
 *   labels one of its memories.
 * - Every label change (an import, an example, a person's click, an undo) writes one
 *   `annotation_history` row: the label after, the label before, the source, the time. A fresh
 *   annotation's start is one row per query (no memory, source "fresh") holding the labels it cleared.
 *   Undo walks that history back, one change at a time per query.
 */
export type StudyQuery = { queryId: string; text: string; labelled?: boolean };
export type AnnotationSource = "qrels" | "human" | "example";
export type Annotation = {
  queryId: string;
  memoryId: string;
  relevance: number;
  source: AnnotationSource;
};
export type AnnotationRow = Annotation & { updatedAt: Date };
export type LabelConvention = "qrels" | "annotated";
export type StudyMeta = {
  collection: string;
  labelConvention: LabelConvention;
  origin: string;
  createdAt: Date;
};
export type HistoryEntry = {
  id: number;
  queryId: string;
  /** null: a change to the whole query (a fresh start, or its undo) */
  memoryId: string | null;
  relevance: number | null;
  previous: number | null;
  source: AnnotationSource | "undo" | "fresh";
  /** a change to the whole query: the labels it cleared or brought back */
  cleared: ClearedLabels | null;
  at: Date;
};

// ─── Queries ─────────────────────────────────────────────────────────────────

/** Inserts or updates queries. `labelled` defaults to true; an update keeps the text and sets it. */
export function upsertStudyQueries(db: Db, collection: string, qs: StudyQuery[]): void {
  const s = stmt(
    db,
    `insert into study_queries (collection, query_id, text, labelled) values (?, ?, ?, ?)
     on conflict(collection, query_id) do update set text = excluded.text, labelled = excluded.labelled`,
  );
  db.$client
    .transaction(() => {
      for (const q of qs) s.run(collection, q.queryId, q.text, q.labelled === false ? 0 : 1);
    })
    .immediate();
}

export function listStudyQueries(db: Db, collection: string): (StudyQuery & { labelled: boolean })[] {
  return (
    stmt(
      db,
      "select query_id as queryId, text, labelled from study_queries where collection = ? order by query_id",
    ).all(collection) as { queryId: string; text: string; labelled: number }[]
  ).map((q) => ({ ...q, labelled: q.labelled !== 0 }));
}

export function setQueryLabelled(db: Db, collection: string, queryId: string, labelled: boolean): void {
  stmt(db, "update study_queries set labelled = ? where collection = ? and query_id = ?").run(
    labelled ? 1 : 0,
    collection,
    queryId,
  );
}

// ─── What the labels mean ────────────────────────────────────────────────────

export function getStudyMeta(db: Db, collection: string): StudyMeta | undefined {
  const r = stmt(
    db,
    "select collection, label_convention as labelConvention, origin, created_at as createdAt from study_meta where collection = ?",
  ).get(collection) as (Omit<StudyMeta, "createdAt"> & { createdAt: number }) | undefined;
  return r ? { ...r, createdAt: new Date(r.createdAt) } : undefined;
}

export function setStudyMeta(
  db: Db,
  collection: string,
  meta: { labelConvention: LabelConvention; origin: string },
): void {
  stmt(
    db,
    `insert into study_meta (collection, label_convention, origin, created_at) values (?, ?, ?, ?)
     on conflict(collection) do update set label_convention = excluded.label_convention, origin = excluded.origin`,
  ).run(collection, meta.labelConvention, meta.origin, Date.now());
}

// ─── Labels and their history ────────────────────────────────────────────────

function currentRelevance(db: Db, collection: string, queryId: string, memoryId: string): number | null {
  const v = stmt(
    db,
    "select relevance from annotations where collection = ? and query_id = ? and memory_id = ?",
  )
    .pluck()
    .get(collection, queryId, memoryId) as number | undefined;
  return v ?? null;
}

function writeLabel(
  db: Db,
  collection: string,
  a: { queryId: string; memoryId: string; relevance: number | null },
  source: AnnotationSource | "undo",
  at: number,
  /** the source the label row keeps (an undo restores the source of the label it brings back) */
  rowSource: AnnotationSource = source === "undo" ? "human" : source,
): { changed: boolean; previous: number | null } {
  const previous = currentRelevance(db, collection, a.queryId, a.memoryId);
  if (a.relevance === null) {
    if (previous === null) return { changed: false, previous };
    stmt(db, "delete from annotations where collection = ? and query_id = ? and memory_id = ?").run(
      collection,
      a.queryId,
      a.memoryId,
    );
  } else {
    stmt(
      db,
      `insert into annotations (collection, query_id, memory_id, relevance, source, updated_at) values (?, ?, ?, ?, ?, ?)
       on conflict(collection, query_id, memory_id) do update set relevance = excluded.relevance,
         source = excluded.source, updated_at = excluded.updated_at`,
    ).run(collection, a.queryId, a.memoryId, a.relevance, rowSource, at);
    if (previous === a.relevance) {
      // same grade: the row's provenance is refreshed, but nothing changed that history must record
      return { changed: false, previous };
    }
  }
  stmt(
    db,
    `insert into annotation_history (collection, query_id, memory_id, relevance, previous, source, at)
     values (?, ?, ?, ?, ?, ?, ?)`,
  ).run(collection, a.queryId, a.memoryId, a.relevance, previous, source, at);
  return { changed: true, previous };
}

/**
 * Sets labels (imports, examples, a person's click), each change recorded in the history with its
 * source and time. A label set again to the grade it has is not a change.
 */
export function setAnnotations(db: Db, collection: string, items: Annotation[]): void {
  const at = Date.now();
  db.$client
    .transaction(() => {
      for (const a of items) writeLabel(db, collection, a, a.source, at);
    })
    .immediate();
}

/**
 * A person labels one memory for one query: the label, its history entry, and the query counts as
 * labelled from now on (it enters the metrics). Returns the label it replaced (null if none).
 */
export function annotateOne(
  db: Db,
  collection: string,
  a: { queryId: string; memoryId: string; relevance: number },
): { previous: number | null; changed: boolean } {
  return db.$client
    .transaction(() => {
      const r = writeLabel(db, collection, a, "human", Date.now());
      setQueryLabelled(db, collection, a.queryId, true);
      return r;
    })
    .immediate();
}

export function listAnnotations(db: Db, collection: string, queryId?: string): AnnotationRow[] {
  const rows = (
    queryId
      ? stmt(
          db,
          `select query_id as queryId, memory_id as memoryId, relevance, source, updated_at as updatedAt
           from annotations where collection = ? and query_id = ?`,
        ).all(collection, queryId)
      : stmt(
          db,
          `select query_id as queryId, memory_id as memoryId, relevance, source, updated_at as updatedAt
           from annotations where collection = ?`,
        ).all(collection)
  ) as (Annotation & { updatedAt: number })[];
  return rows.map((r) => ({ ...r, updatedAt: new Date(r.updatedAt) }));
}

/** A query's label history, newest first. */
export function listAnnotationHistory(
  db: Db,
  collection: string,
  queryId: string,
  limit = 500,
): HistoryEntry[] {
  return (
    stmt(
      db,
      `select id, query_id as queryId, memory_id as memoryId, relevance, previous, source, cleared, at
       from annotation_history where collection = ? and query_id = ? order by id desc limit ?`,
    ).all(collection, queryId, limit) as (Omit<HistoryEntry, "at" | "cleared"> & {
      at: number;
      cleared: string | null;
    })[]
  ).map((h) => ({ ...h, cleared: h.cleared === null ? null : parseCleared(h.cleared), at: new Date(h.at) }));
}

function parseCleared(json: string): ClearedLabels | null {
  try {
    const v = JSON.parse(json) as ClearedLabels;
    return Array.isArray(v?.labels) ? v : null;
  } catch {
    return null;
  }
}

export function countAnnotationHistory(db: Db, collection: string, queryId: string): number {
  return stmt(db, "select count(*) from annotation_history where collection = ? and query_id = ?")
    .pluck()
    .get(collection, queryId) as number;
}

/**
 * The change an undo of this query would revert: the newest change not already undone (each undo
 * entry cancels the newest earlier change not yet cancelled, so undo can be repeated step by step).
 */
export function undoableChange(db: Db, collection: string, queryId: string): HistoryEntry | undefined {
  let pending = 0;
  for (const h of listAnnotationHistory(db, collection, queryId, 1_000_000)) {
    if (h.source === "undo") pending++;
    else if (pending > 0) pending--;
    else return h;
  }
  return undefined;
}

/**
 * Undoes the newest change of a query's labels: the memory's label goes back to what it was before
 * (removed if it had none), and the undo is itself a history entry. Returns the change undone.
 */
export function undoLastAnnotation(db: Db, collection: string, queryId: string): HistoryEntry | undefined {
  return db.$client
    .transaction(() => {
      const target = undoableChange(db, collection, queryId);
      if (!target) return undefined;
      if (target.memoryId === null) {
        undoFreshStart(db, collection, queryId, target);
        return target;
      }
      // the restored label keeps the source it had: the newest earlier change that set it
      const earlier = stmt(
        db,
        `select source from annotation_history where collection = ? and query_id = ? and memory_id = ?
       and id < ? and source != 'undo' and relevance is ? order by id desc limit 1`,
      )
        .pluck()
        .get(collection, queryId, target.memoryId, target.id, target.previous) as
        | AnnotationSource
        | undefined;
      writeLabel(
        db,
        collection,
        { queryId, memoryId: target.memoryId, relevance: target.previous },
        "undo",
        Date.now(),
        earlier ?? "human",
      );
      return target;
    })
    .immediate();
}

/** One history row for a change to a whole query: a fresh start ("fresh") or its undo ("undo"). */
function writeQueryChange(
  db: Db,
  collection: string,
  queryId: string,
  source: "fresh" | "undo",
  cleared: ClearedLabels,
  at: number,
): void {
  stmt(
    db,
    `insert into annotation_history (collection, query_id, memory_id, relevance, previous, source, cleared, at)
     values (?, ?, null, null, null, ?, ?, ?)`,
  ).run(collection, queryId, source, JSON.stringify(cleared), at);
}

/** Brings back what a fresh start cleared from one query: its labels, with their sources, and its state. */
function undoFreshStart(db: Db, collection: string, queryId: string, target: HistoryEntry): void {
  const cleared = target.cleared ?? { labels: [], labelled: false };
  const at = Date.now();
  const put = stmt(
    db,
    `insert into annotations (collection, query_id, memory_id, relevance, source, updated_at) values (?, ?, ?, ?, ?, ?)
     on conflict(collection, query_id, memory_id) do update set relevance = excluded.relevance,
       source = excluded.source, updated_at = excluded.updated_at`,
  );
  for (const l of cleared.labels) put.run(collection, queryId, l.memoryId, l.relevance, l.source, at);
  setQueryLabelled(db, collection, queryId, cleared.labelled);
  writeQueryChange(db, collection, queryId, "undo", cleared, at);
}

/**
 * Starts a fresh annotation of the same queries: every label is removed, and each query that had a
 * label or counted as labelled gets one history entry holding what was cleared (undo brings it back);
 * the history before is kept. Every query needs annotation again, and the collection's labels are
 * from now on a person's (`origin` "human", convention "annotated").
 */
export function startFreshAnnotation(db: Db, collection: string): { cleared: number; queries: number } {
  return db.$client
    .transaction(() => {
      const at = Date.now();
      const byQuery = new Map<string, ClearedLabels["labels"]>();
      const labels = listAnnotations(db, collection);
      for (const a of labels) {
        const list = byQuery.get(a.queryId) ?? [];
        list.push({ memoryId: a.memoryId, relevance: a.relevance, source: a.source });
        byQuery.set(a.queryId, list);
      }
      const queries = listStudyQueries(db, collection);
      for (const q of queries) {
        const cleared = byQuery.get(q.queryId) ?? [];
        if (cleared.length === 0 && !q.labelled) continue;
        writeQueryChange(db, collection, q.queryId, "fresh", { labels: cleared, labelled: q.labelled }, at);
      }
      stmt(db, "delete from annotations where collection = ?").run(collection);
      stmt(db, "update study_queries set labelled = 0 where collection = ?").run(collection);
      setStudyMeta(db, collection, { labelConvention: "annotated", origin: "human" });
      return { cleared: labels.length, queries: queries.length };
    })
    .immediate();
}

/**
 * Ground truth as qrels (query → memory → relevance grade), for the labelled queries only: a query
 * that needs annotation is in no metric. Pass `{ includeUnlabelled: true }` to export everything.
 */
export function getQrels(
  db: Db,
  collection: string,
  opts: { includeUnlabelled?: boolean } = {},
): Map<string, Map<string, number>> {
  const labelled = new Set(
    listStudyQueries(db, collection)
      .filter((q) => opts.includeUnlabelled || q.labelled)
      .map((q) => q.queryId),
  );
  const out = new Map<string, Map<string, number>>();
  for (const a of listAnnotations(db, collection)) {
    if (!labelled.has(a.queryId)) continue;
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
  needsAnnotation: number;
  experiments: number;
  labelConvention: LabelConvention | null;
  origin: string | null;
};

export function listStudies(db: Db): CollectionSummary[] {
  return db.$client
    .prepare(
      `select m.collection as collection, m.n as memories,
              (select count(*) from study_queries q where q.collection = m.collection) as queries,
              (select count(*) from study_queries q where q.collection = m.collection and q.labelled = 0) as needsAnnotation,
              (select count(*) from experiments e where e.collection = m.collection) as experiments,
              s.label_convention as labelConvention, s.origin as origin
       from (select collection, count(*) as n from memories group by collection) m
       left join study_meta s on s.collection = m.collection
       order by m.collection`,
    )
    .all() as CollectionSummary[];
}
