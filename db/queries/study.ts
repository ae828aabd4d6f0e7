import { and, asc, count, desc, eq, inArray, isNull, lt, ne, sql } from "drizzle-orm";
import type { SqliteDb } from "../client";
import { all, type Op, type OpDb, one, query, rows, tx, write } from "../op";
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
 *
 * Every function runs on either store (db/op.ts): on SQLite synchronously, through the prepared
 * statements it always used (imports write thousands of labels); on PostgreSQL with drizzle's
 * builders, an import's labels written in batches.
 */
export type StudyQuery = { queryId: string; text: string; labelled?: boolean };
export type AnnotationSource = "qrels" | "human" | "example";
export type Annotation = {
  queryId: string;
  memoryId: string;
  relevance: number;
  source: AnnotationSource;
};
/** `author`: who gave the label now held; null for an imported or example label, or one from before authors were kept */
export type AnnotationRow = Annotation & { author: string | null; updatedAt: Date };
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
  /** who made the change; null: an import, an example, or before authors were kept */
  author: string | null;
  at: Date;
};

/** The SQLite store behind a body's `db`, for the prepared statements of the SQLite path. */
const lite = (db: OpDb) => db as unknown as SqliteDb;

/** Rows per multi-row insert on PostgreSQL (its bind parameters are limited to 65535). */
const BATCH = 1000;

function chunks<T>(xs: T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

// ─── Queries ─────────────────────────────────────────────────────────────────

/** Inserts or updates queries. `labelled` defaults to true; an update keeps the text and sets it. */
export const upsertStudyQueries = query(function* (db, collection: string, qs: StudyQuery[]) {
  if (db.engine === "sqlite") {
    const s = stmt(
      lite(db),
      `insert into study_queries (collection, query_id, text, labelled) values (?, ?, ?, ?)
     on conflict(collection, query_id) do update set text = excluded.text, labelled = excluded.labelled`,
    );
    lite(db)
      .$client.transaction(() => {
        for (const q of qs) s.run(collection, q.queryId, q.text, q.labelled === false ? 0 : 1);
      })
      .immediate();
    return;
  }
  const { studyQueries } = db.tables;
  // one statement may not update a row twice: the last of a query id wins, as one upsert after another
  const last = new Map<string, StudyQuery>();
  for (const q of qs) last.set(q.queryId, q);
  yield* tx(db, function* (t) {
    for (const batch of chunks([...last.values()]))
      yield* write(
        t
          .insert(studyQueries)
          .values(
            batch.map((q) => ({
              collection,
              queryId: q.queryId,
              text: q.text,
              labelled: q.labelled !== false,
            })),
          )
          .onConflictDoUpdate({
            target: [studyQueries.collection, studyQueries.queryId],
            set: { text: sql`excluded."text"`, labelled: sql`excluded.labelled` },
          }),
      );
  });
});

export const listStudyQueries = query(function* (
  db,
  collection: string,
): Op<(StudyQuery & { labelled: boolean })[]> {
  if (db.engine === "sqlite")
    return (
      stmt(
        lite(db),
        "select query_id as queryId, text, labelled from study_queries where collection = ? order by query_id",
      ).all(collection) as { queryId: string; text: string; labelled: number }[]
    ).map((q) => ({ ...q, labelled: q.labelled !== 0 }));
  const { studyQueries: q } = db.tables;
  return yield* all(
    db
      .select({ queryId: q.queryId, text: q.text, labelled: q.labelled })
      .from(q)
      .where(eq(q.collection, collection))
      .orderBy(asc(q.queryId)),
  );
});

export const setQueryLabelled = query(function* (
  db,
  collection: string,
  queryId: string,
  labelled: boolean,
): Op<void> {
  if (db.engine === "sqlite") {
    stmt(lite(db), "update study_queries set labelled = ? where collection = ? and query_id = ?").run(
      labelled ? 1 : 0,
      collection,
      queryId,
    );
    return;
  }
  const { studyQueries: q } = db.tables;
  yield* write(
    db
      .update(q)
      .set({ labelled })
      .where(and(eq(q.collection, collection), eq(q.queryId, queryId))),
  );
});

// ─── What the labels mean ────────────────────────────────────────────────────

export const getStudyMeta = query(function* (db, collection: string): Op<StudyMeta | undefined> {
  if (db.engine === "sqlite") {
    const r = stmt(
      lite(db),
      "select collection, label_convention as labelConvention, origin, created_at as createdAt from study_meta where collection = ?",
    ).get(collection) as (Omit<StudyMeta, "createdAt"> & { createdAt: number }) | undefined;
    return r ? { ...r, createdAt: new Date(r.createdAt) } : undefined;
  }
  const { studyMeta: m } = db.tables;
  return yield* one(
    db
      .select({
        collection: m.collection,
        labelConvention: m.labelConvention,
        origin: m.origin,
        createdAt: m.createdAt,
      })
      .from(m)
      .where(eq(m.collection, collection)),
  );
});

export const setStudyMeta = query(function* (
  db,
  collection: string,
  meta: { labelConvention: LabelConvention; origin: string },
): Op<void> {
  if (db.engine === "sqlite") {
    stmt(
      lite(db),
      `insert into study_meta (collection, label_convention, origin, created_at) values (?, ?, ?, ?)
     on conflict(collection) do update set label_convention = excluded.label_convention, origin = excluded.origin`,
    ).run(collection, meta.labelConvention, meta.origin, Date.now());
    return;
  }
  const { studyMeta: m } = db.tables;
  yield* write(
    db
      .insert(m)
      .values({
        collection,
        labelConvention: meta.labelConvention,
        origin: meta.origin,
        createdAt: new Date(),
      })
      .onConflictDoUpdate({
        target: m.collection,
        set: { labelConvention: meta.labelConvention, origin: meta.origin },
      }),
  );
});

// ─── Labels and their history ────────────────────────────────────────────────

type LabelChange = { changed: boolean; previous: number | null };

/** The label a memory holds and who gave it (null: none). */
function currentLabelSqlite(
  db: SqliteDb,
  collection: string,
  queryId: string,
  memoryId: string,
): { relevance: number; author: string | null } | undefined {
  return stmt(
    db,
    "select relevance, author from annotations where collection = ? and query_id = ? and memory_id = ?",
  ).get(collection, queryId, memoryId) as { relevance: number; author: string | null } | undefined;
}

/**
 * Whether a label set to the grade it has is still a history entry: when a person other than the one
 * who gave it gives it, it is their own judgement (agreement between people counts it).
 */
const secondJudgement = (author: string | null, before: { author: string | null } | undefined) =>
  author !== null && before !== undefined && before.author !== author;

function writeLabelSqlite(
  db: SqliteDb,
  collection: string,
  a: { queryId: string; memoryId: string; relevance: number | null },
  source: AnnotationSource | "undo",
  at: number,
  rowSource: AnnotationSource,
  author: string | null,
  rowAuthor: string | null,
): LabelChange {
  const before = currentLabelSqlite(db, collection, a.queryId, a.memoryId);
  const previous = before?.relevance ?? null;
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
      `insert into annotations (collection, query_id, memory_id, relevance, source, author, updated_at)
       values (?, ?, ?, ?, ?, ?, ?)
       on conflict(collection, query_id, memory_id) do update set relevance = excluded.relevance,
         source = excluded.source, author = excluded.author, updated_at = excluded.updated_at`,
    ).run(collection, a.queryId, a.memoryId, a.relevance, rowSource, rowAuthor, at);
    if (previous === a.relevance) {
      // same grade: the row's provenance is refreshed; history records it only as a second person's judgement
      if (!secondJudgement(author, before)) return { changed: false, previous };
      stmt(
        db,
        `insert into annotation_history (collection, query_id, memory_id, relevance, previous, source, author, at)
         values (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(collection, a.queryId, a.memoryId, a.relevance, previous, source, author, at);
      return { changed: false, previous };
    }
  }
  stmt(
    db,
    `insert into annotation_history (collection, query_id, memory_id, relevance, previous, source, author, at)
     values (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(collection, a.queryId, a.memoryId, a.relevance, previous, source, author, at);
  return { changed: true, previous };
}

/** Inserts or updates label rows on PostgreSQL, in batches (the last of a memory wins). */
function* putLabelsPg(
  db: OpDb,
  collection: string,
  labels: {
    queryId: string;
    memoryId: string;
    relevance: number;
    source: AnnotationSource;
    author?: string | null;
  }[],
  at: number,
): Op<void> {
  const { annotations: an } = db.tables;
  const last = new Map<string, (typeof labels)[number]>();
  for (const l of labels) last.set(JSON.stringify([l.queryId, l.memoryId]), l);
  for (const batch of chunks([...last.values()]))
    yield* write(
      db
        .insert(an)
        .values(
          batch.map((l) => ({
            collection,
            queryId: l.queryId,
            memoryId: l.memoryId,
            relevance: l.relevance,
            source: l.source,
            author: l.author ?? null,
            updatedAt: new Date(at),
          })),
        )
        .onConflictDoUpdate({
          target: [an.collection, an.queryId, an.memoryId],
          set: {
            relevance: sql`excluded.relevance`,
            source: sql`excluded.source`,
            author: sql`excluded.author`,
            updatedAt: sql`excluded.updated_at`,
          },
        }),
    );
}

function* writeLabel(
  db: OpDb,
  collection: string,
  a: { queryId: string; memoryId: string; relevance: number | null },
  source: AnnotationSource | "undo",
  at: number,
  /** the source the label row keeps (an undo restores the source of the label it brings back) */
  rowSource: AnnotationSource = source === "undo" ? "human" : source,
  /** who made the change (the history entry's author) */
  author: string | null = null,
  /** who the label row names (an undo restores the author of the label it brings back) */
  rowAuthor: string | null = author,
): Op<LabelChange> {
  if (db.engine === "sqlite")
    return writeLabelSqlite(lite(db), collection, a, source, at, rowSource, author, rowAuthor);
  const { annotations: an, annotationHistory } = db.tables;
  const key = and(eq(an.collection, collection), eq(an.queryId, a.queryId), eq(an.memoryId, a.memoryId));
  const before = yield* one(db.select({ relevance: an.relevance, author: an.author }).from(an).where(key));
  const previous = before?.relevance ?? null;
  let changed = true;
  if (a.relevance === null) {
    if (previous === null) return { changed: false, previous };
    yield* write(db.delete(an).where(key));
  } else {
    yield* putLabelsPg(
      db,
      collection,
      [{ ...a, relevance: a.relevance, source: rowSource, author: rowAuthor }],
      at,
    );
    if (previous === a.relevance) {
      if (!secondJudgement(author, before)) return { changed: false, previous };
      changed = false;
    }
  }
  yield* write(
    db.insert(annotationHistory).values({
      collection,
      queryId: a.queryId,
      memoryId: a.memoryId,
      relevance: a.relevance,
      previous,
      source,
      author,
      at: new Date(at),
    }),
  );
  return { changed, previous };
}

/**
 * Many labels on PostgreSQL as writeLabel writes them one after another (each compared with the label
 * before it, a later one with an earlier one of the same memory), in a few statements: the current
 * labels of the queries read once, the rows and the history entries written in batches.
 */
function* setAnnotationsPg(db: OpDb, collection: string, items: Annotation[], at: number): Op<void> {
  const { annotations: an, annotationHistory } = db.tables;
  const key = (queryId: string, memoryId: string) => JSON.stringify([queryId, memoryId]);
  const current = new Map<string, number>();
  for (const ids of chunks([...new Set(items.map((a) => a.queryId))]))
    for (const r of yield* all(
      db
        .select({ queryId: an.queryId, memoryId: an.memoryId, relevance: an.relevance })
        .from(an)
        .where(and(eq(an.collection, collection), inArray(an.queryId, ids))),
    ))
      current.set(key(r.queryId, r.memoryId), r.relevance);
  const history: (typeof annotationHistory.$inferInsert)[] = [];
  for (const a of items) {
    const k = key(a.queryId, a.memoryId);
    const previous = current.get(k) ?? null;
    current.set(k, a.relevance);
    if (previous !== a.relevance)
      history.push({
        collection,
        queryId: a.queryId,
        memoryId: a.memoryId,
        relevance: a.relevance,
        previous,
        source: a.source,
        at: new Date(at),
      });
  }
  yield* putLabelsPg(db, collection, items, at);
  for (const batch of chunks(history)) yield* write(db.insert(annotationHistory).values(batch));
}

/**
 * Sets labels (imports, examples, a person's click), each change recorded in the history with its
 * source and time. A label set again to the grade it has is not a change.
 */
export const setAnnotations = query(function* (db, collection: string, items: Annotation[]): Op<void> {
  const at = Date.now();
  yield* tx(db, function* (t) {
    if (t.engine === "sqlite") for (const a of items) yield* writeLabel(t, collection, a, a.source, at);
    else yield* setAnnotationsPg(t, collection, items, at);
  });
});

/**
 * A person labels one memory for one query: the label, its history entry, and the query counts as
 * labelled from now on (it enters the metrics). Returns the label it replaced (null if none).
 */
export const annotateOne = query(function* (
  db,
  collection: string,
  a: { queryId: string; memoryId: string; relevance: number },
  author: string | null = null,
): Op<{ previous: number | null; changed: boolean }> {
  return yield* tx(db, function* (t) {
    const r = yield* writeLabel(t, collection, a, "human", Date.now(), "human", author);
    yield* setQueryLabelled.body(t, collection, a.queryId, true);
    return r;
  });
});

export const listAnnotations = query(function* (
  db,
  collection: string,
  queryId?: string,
): Op<AnnotationRow[]> {
  if (db.engine === "sqlite") {
    const rows = (
      queryId
        ? stmt(
            lite(db),
            `select query_id as queryId, memory_id as memoryId, relevance, source, author, updated_at as updatedAt
           from annotations where collection = ? and query_id = ?`,
          ).all(collection, queryId)
        : stmt(
            lite(db),
            `select query_id as queryId, memory_id as memoryId, relevance, source, author, updated_at as updatedAt
           from annotations where collection = ?`,
          ).all(collection)
    ) as (Annotation & { author: string | null; updatedAt: number })[];
    return rows.map((r) => ({ ...r, updatedAt: new Date(r.updatedAt) }));
  }
  const { annotations: an } = db.tables;
  // SQLite reads them along its (collection, query, memory) index: the same order, said here
  return yield* all(
    db
      .select({
        queryId: an.queryId,
        memoryId: an.memoryId,
        relevance: an.relevance,
        source: an.source,
        author: an.author,
        updatedAt: an.updatedAt,
      })
      .from(an)
      .where(
        queryId ? and(eq(an.collection, collection), eq(an.queryId, queryId)) : eq(an.collection, collection),
      )
      .orderBy(asc(an.queryId), asc(an.memoryId)),
  );
});

type RawHistory = Omit<HistoryEntry, "at" | "cleared"> & { at: number | Date; cleared: string | null };
const toHistory = (h: RawHistory): HistoryEntry => ({
  ...h,
  cleared: h.cleared === null ? null : parseCleared(h.cleared),
  at: new Date(h.at),
});

/** A query's label history, newest first. */
export const listAnnotationHistory = query(function* (
  db,
  collection: string,
  queryId: string,
  limit: number = 500,
): Op<HistoryEntry[]> {
  if (db.engine === "sqlite")
    return (
      stmt(
        lite(db),
        `select id, query_id as queryId, memory_id as memoryId, relevance, previous, source, cleared, author, at
       from annotation_history where collection = ? and query_id = ? order by id desc limit ?`,
      ).all(collection, queryId, limit) as RawHistory[]
    ).map(toHistory);
  const { annotationHistory: h } = db.tables;
  return (yield* all(
    db
      .select({
        id: h.id,
        queryId: h.queryId,
        memoryId: h.memoryId,
        relevance: h.relevance,
        previous: h.previous,
        source: h.source,
        // the text as stored: parsed below, as on SQLite (a malformed one reads as null)
        cleared: sql<string | null>`${h.cleared}`,
        author: h.author,
        at: h.at,
      })
      .from(h)
      .where(and(eq(h.collection, collection), eq(h.queryId, queryId)))
      .orderBy(desc(h.id))
      .limit(limit),
  )).map(toHistory);
});

function parseCleared(json: string): ClearedLabels | null {
  try {
    const v = JSON.parse(json) as ClearedLabels;
    return Array.isArray(v?.labels) ? v : null;
  } catch {
    return null;
  }
}

export const countAnnotationHistory = query(function* (db, collection: string, queryId: string): Op<number> {
  if (db.engine === "sqlite")
    return stmt(lite(db), "select count(*) from annotation_history where collection = ? and query_id = ?")
      .pluck()
      .get(collection, queryId) as number;
  const { annotationHistory: h } = db.tables;
  const r = yield* one(
    db
      .select({ n: count() })
      .from(h)
      .where(and(eq(h.collection, collection), eq(h.queryId, queryId))),
  );
  return r?.n ?? 0;
});

/**
 * The change an undo of this query would revert: the newest change not already undone (each undo
 * entry cancels the newest earlier change not yet cancelled, so undo can be repeated step by step).
 */
export const undoableChange = query(function* (
  db,
  collection: string,
  queryId: string,
): Op<HistoryEntry | undefined> {
  let pending = 0;
  for (const h of yield* listAnnotationHistory.body(db, collection, queryId, 1_000_000)) {
    if (h.source === "undo") pending++;
    else if (pending > 0) pending--;
    else return h;
  }
  return undefined;
});

type Earlier = { source: AnnotationSource; author: string | null };

/** The source and author of the newest earlier change that set a memory's label to `relevance` (not an undo). */
function* earlierSource(
  db: OpDb,
  collection: string,
  queryId: string,
  target: HistoryEntry & { memoryId: string },
): Op<Earlier | undefined> {
  if (db.engine === "sqlite")
    return stmt(
      lite(db),
      `select source, author from annotation_history where collection = ? and query_id = ? and memory_id = ?
       and id < ? and source != 'undo' and relevance is ? order by id desc limit 1`,
    ).get(collection, queryId, target.memoryId, target.id, target.previous) as Earlier | undefined;
  const { annotationHistory: h } = db.tables;
  const r = yield* one(
    db
      .select({ source: h.source, author: h.author })
      .from(h)
      .where(
        and(
          eq(h.collection, collection),
          eq(h.queryId, queryId),
          eq(h.memoryId, target.memoryId),
          lt(h.id, target.id),
          ne(h.source, "undo"),
          target.previous === null ? isNull(h.relevance) : eq(h.relevance, target.previous),
        ),
      )
      .orderBy(desc(h.id))
      .limit(1),
  );
  return r as Earlier | undefined;
}

/**
 * Undoes the newest change of a query's labels: the memory's label goes back to what it was before
 * (removed if it had none), and the undo is itself a history entry. Returns the change undone.
 */
export const undoLastAnnotation = query(function* (
  db,
  collection: string,
  queryId: string,
  author: string | null = null,
): Op<HistoryEntry | undefined> {
  return yield* tx(db, function* (t) {
    const target = yield* undoableChange.body(t, collection, queryId);
    if (!target) return undefined;
    if (target.memoryId === null) {
      yield* undoFreshStart(t, collection, queryId, target, author);
      return target;
    }
    // the restored label keeps the source it had: the newest earlier change that set it
    const earlier = yield* earlierSource(t, collection, queryId, { ...target, memoryId: target.memoryId });
    yield* writeLabel(
      t,
      collection,
      { queryId, memoryId: target.memoryId, relevance: target.previous },
      "undo",
      Date.now(),
      earlier?.source ?? "human",
      author,
      earlier?.author ?? null,
    );
    return target;
  });
});

/** History rows for changes to whole queries: a fresh start ("fresh") or its undo ("undo"). */
function* writeQueryChanges(
  db: OpDb,
  collection: string,
  changes: { queryId: string; cleared: ClearedLabels }[],
  source: "fresh" | "undo",
  at: number,
  author: string | null,
): Op<void> {
  if (db.engine === "sqlite") {
    for (const c of changes)
      stmt(
        lite(db),
        `insert into annotation_history (collection, query_id, memory_id, relevance, previous, source, cleared, author, at)
     values (?, ?, null, null, null, ?, ?, ?, ?)`,
      ).run(collection, c.queryId, source, JSON.stringify(c.cleared), author, at);
    return;
  }
  const { annotationHistory } = db.tables;
  for (const batch of chunks(changes))
    yield* write(
      db.insert(annotationHistory).values(
        batch.map((c) => ({
          collection,
          queryId: c.queryId,
          memoryId: null,
          relevance: null,
          previous: null,
          source,
          cleared: c.cleared,
          author,
          at: new Date(at),
        })),
      ),
    );
}

/** Brings back what a fresh start cleared from one query: its labels, with their sources, and its state. */
function* undoFreshStart(
  db: OpDb,
  collection: string,
  queryId: string,
  target: HistoryEntry,
  author: string | null,
): Op<void> {
  const cleared = target.cleared ?? { labels: [], labelled: false };
  const at = Date.now();
  if (db.engine === "sqlite") {
    const put = stmt(
      lite(db),
      `insert into annotations (collection, query_id, memory_id, relevance, source, author, updated_at)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict(collection, query_id, memory_id) do update set relevance = excluded.relevance,
       source = excluded.source, author = excluded.author, updated_at = excluded.updated_at`,
    );
    for (const l of cleared.labels)
      put.run(collection, queryId, l.memoryId, l.relevance, l.source, l.author ?? null, at);
  } else {
    yield* putLabelsPg(
      db,
      collection,
      cleared.labels.map((l) => ({ ...l, queryId })),
      at,
    );
  }
  yield* setQueryLabelled.body(db, collection, queryId, cleared.labelled);
  yield* writeQueryChanges(db, collection, [{ queryId, cleared }], "undo", at, author);
}

/**
 * Starts a fresh annotation of the same queries: every label is removed, and each query that had a
 * label or counted as labelled gets one history entry holding what was cleared (undo brings it back);
 * the history before is kept. Every query needs annotation again, and the collection's labels are
 * from now on a person's (`origin` "human", convention "annotated").
 */
export const startFreshAnnotation = query(function* (
  db,
  collection: string,
  author: string | null = null,
): Op<{ cleared: number; queries: number }> {
  return yield* tx(db, function* (t) {
    const at = Date.now();
    const byQuery = new Map<string, ClearedLabels["labels"]>();
    const labels = yield* listAnnotations.body(t, collection);
    for (const a of labels) {
      const list = byQuery.get(a.queryId) ?? [];
      list.push({ memoryId: a.memoryId, relevance: a.relevance, source: a.source, author: a.author });
      byQuery.set(a.queryId, list);
    }
    const queries = yield* listStudyQueries.body(t, collection);
    const changes: { queryId: string; cleared: ClearedLabels }[] = [];
    for (const q of queries) {
      const cleared = byQuery.get(q.queryId) ?? [];
      if (cleared.length === 0 && !q.labelled) continue;
      changes.push({ queryId: q.queryId, cleared: { labels: cleared, labelled: q.labelled } });
    }
    yield* writeQueryChanges(t, collection, changes, "fresh", at, author);
    if (t.engine === "sqlite") {
      stmt(lite(t), "delete from annotations where collection = ?").run(collection);
      stmt(lite(t), "update study_queries set labelled = 0 where collection = ?").run(collection);
    } else {
      const { annotations: an, studyQueries: q } = t.tables;
      yield* write(t.delete(an).where(eq(an.collection, collection)));
      yield* write(t.update(q).set({ labelled: false }).where(eq(q.collection, collection)));
    }
    yield* setStudyMeta.body(t, collection, { labelConvention: "annotated", origin: "human" });
    return { cleared: labels.length, queries: queries.length };
  });
});

/**
 * Ground truth as qrels (query → memory → relevance grade), for the labelled queries only: a query
 * that needs annotation is in no metric. Pass `{ includeUnlabelled: true }` to export everything.
 */
export const getQrels = query(function* (
  db,
  collection: string,
  opts: { includeUnlabelled?: boolean } = {},
): Op<Map<string, Map<string, number>>> {
  const labelled = new Set(
    (yield* listStudyQueries.body(db, collection))
      .filter((q) => opts.includeUnlabelled || q.labelled)
      .map((q) => q.queryId),
  );
  const out = new Map<string, Map<string, number>>();
  for (const a of yield* listAnnotations.body(db, collection)) {
    if (!labelled.has(a.queryId)) continue;
    let m = out.get(a.queryId);
    if (!m) {
      m = new Map();
      out.set(a.queryId, m);
    }
    m.set(a.memoryId, a.relevance);
  }
  return out;
});

export type CollectionSummary = {
  collection: string;
  memories: number;
  queries: number;
  needsAnnotation: number;
  experiments: number;
  labelConvention: LabelConvention | null;
  origin: string | null;
};

export const listStudies = query(function* (db): Op<CollectionSummary[]> {
  if (db.engine === "sqlite")
    return lite(db)
      .$client.prepare(
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
  // count(*) is a bigint, read as a number (db/pg/client.ts); the names quoted, or PostgreSQL folds them
  return yield* rows<CollectionSummary>(
    db,
    sql`select m.collection as "collection", m.n as "memories",
              (select count(*) from study_queries q where q.collection = m.collection) as "queries",
              (select count(*) from study_queries q where q.collection = m.collection and q.labelled = 0) as "needsAnnotation",
              (select count(*) from experiments e where e.collection = m.collection) as "experiments",
              s.label_convention as "labelConvention", s.origin as "origin"
       from (select collection, count(*) as n from memories group by collection) m
       left join study_meta s on s.collection = m.collection
       order by m.collection`,
  );
});
