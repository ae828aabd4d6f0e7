import { and, count, desc, eq, isNull, lt, max, ne, sql } from "drizzle-orm";
import type { SqliteDb } from "../client";
import { all, type Op, type OpDb, one, query, tx, write } from "../op";
import { stmt } from "./statements";

/**
 * A person's labels on a run's verdicts (case × criterion): pass/fail, and a score on the
 * criterion's scale where they gave one. Every change (a click, an import, a removal, an undo)
 * writes one `verdict_label_history` row: the label after, the label before, the source, who, when.
 * Undo walks a run's history back one change at a time, as the memory study's annotations do.
 *
 * Every function runs on either store (db/op.ts). A click is a hot path: on SQLite each function runs
 * its prepared statements exactly as before (the `*Sqlite` functions below), synchronously; on
 * PostgreSQL the same steps are written with drizzle's builders.
 */
export type VerdictLabelSource = "human" | "import";
export type VerdictLabelKey = { runId: string; caseId: string; criterionId: string };
export type VerdictLabelValue = { passed: boolean; score: number | null };
export type VerdictLabelRow = VerdictLabelKey &
  VerdictLabelValue & {
    source: VerdictLabelSource;
    labeller: string | null;
    /** who gave the label now held (the signed-in person, "local", the CLI's OS user); null: not kept */
    author: string | null;
    note: string | null;
    updatedAt: Date;
  };
export type VerdictLabelHistoryEntry = VerdictLabelKey & {
  id: number;
  passed: boolean | null;
  score: number | null;
  previousPassed: boolean | null;
  previousScore: number | null;
  source: VerdictLabelSource | "undo";
  labeller: string | null;
  /** who made the change; null: not kept */
  author: string | null;
  at: Date;
};

const bool = (v: number | null): boolean | null => (v === null ? null : v !== 0);

/** The SQLite store behind a body's `db`, for the prepared statements of the SQLite path. */
const lite = (db: OpDb) => db as unknown as SqliteDb;

type LabelChange = { changed: boolean; previous: VerdictLabelValue | null };

/**
 * Who makes a change: `labeller` as they gave their name (an import's file, the CLI's --by), `author`
 * the person signed in (the history entry's), and `rowAuthor` the author the label row keeps where it
 * differs (an undo brings back the author of the label it restores).
 */
type Who = { labeller: string | null; author: string | null; rowAuthor?: string | null };

const sameLabel = (a: VerdictLabelValue | null, b: VerdictLabelValue) =>
  a !== null && a.passed === b.passed && a.score === b.score;

/**
 * Whether the same label set again is still a history entry: when a person other than the one who
 * gave it gives it, it is their own judgement (agreement between people counts it).
 */
const secondJudgement = (author: string | null, before: { author: string | null } | undefined) =>
  author !== null && before !== undefined && before.author !== author;

// ─── SQLite: prepared statements ─────────────────────────────────────────────

type RawLabel = Omit<VerdictLabelRow, "passed" | "updatedAt"> & { passed: number; updatedAt: number };
const toLabel = (r: RawLabel): VerdictLabelRow => ({
  ...r,
  passed: r.passed !== 0,
  updatedAt: new Date(r.updatedAt),
});

const LABEL_COLUMNS = `run_id as runId, case_id as caseId, criterion_id as criterionId, passed, score, source,
  labeller, author, note, updated_at as updatedAt`;

function getVerdictLabelSqlite(db: SqliteDb, k: VerdictLabelKey): VerdictLabelRow | undefined {
  const r = stmt(
    db,
    `select ${LABEL_COLUMNS} from verdict_labels where run_id = ? and case_id = ? and criterion_id = ?`,
  ).get(k.runId, k.caseId, k.criterionId) as RawLabel | undefined;
  return r ? toLabel(r) : undefined;
}

function writeSqlite(
  db: SqliteDb,
  k: VerdictLabelKey,
  value: VerdictLabelValue | null,
  source: VerdictLabelSource | "undo",
  who: Who,
  at: number,
  /** the source the label row keeps (an undo restores the source of the label it brings back) */
  rowSource: VerdictLabelSource = source === "undo" ? "human" : source,
  note: string | null = null,
): LabelChange {
  const { labeller, author } = who;
  const rowAuthor = who.rowAuthor === undefined ? author : who.rowAuthor;
  const before = getVerdictLabelSqlite(db, k);
  const previous = before ? { passed: before.passed, score: before.score } : null;
  if (value === null) {
    if (!before) return { changed: false, previous };
    stmt(db, "delete from verdict_labels where run_id = ? and case_id = ? and criterion_id = ?").run(
      k.runId,
      k.caseId,
      k.criterionId,
    );
  } else {
    stmt(
      db,
      `insert into verdict_labels (run_id, case_id, criterion_id, passed, score, source, labeller, author, note,
         updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict(run_id, case_id, criterion_id) do update set passed = excluded.passed, score = excluded.score,
         source = excluded.source, labeller = excluded.labeller, author = excluded.author,
         note = coalesce(excluded.note, verdict_labels.note), updated_at = excluded.updated_at`,
    ).run(
      k.runId,
      k.caseId,
      k.criterionId,
      value.passed ? 1 : 0,
      value.score,
      rowSource,
      labeller,
      rowAuthor,
      note,
      at,
    );
    // the same label again: its provenance is refreshed; history keeps it only as a second person's judgement
    if (sameLabel(previous, value) && !secondJudgement(author, before)) return { changed: false, previous };
  }
  stmt(
    db,
    `insert into verdict_label_history (run_id, case_id, criterion_id, passed, score, previous_passed,
       previous_score, source, labeller, author, at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    k.runId,
    k.caseId,
    k.criterionId,
    value === null ? null : value.passed ? 1 : 0,
    value?.score ?? null,
    previous === null ? null : previous.passed ? 1 : 0,
    previous?.score ?? null,
    source,
    labeller,
    author,
    at,
  );
  return { changed: value === null || !sameLabel(previous, value), previous };
}

type RawHistory = Omit<VerdictLabelHistoryEntry, "passed" | "previousPassed" | "at"> & {
  passed: number | null;
  previousPassed: number | null;
  at: number;
};

function listHistorySqlite(
  db: SqliteDb,
  runId: string,
  opts: { caseId?: string; criterionId?: string; limit?: number },
): VerdictLabelHistoryEntry[] {
  const cols = `id, run_id as runId, case_id as caseId, criterion_id as criterionId, passed, score,
    previous_passed as previousPassed, previous_score as previousScore, source, labeller, author, at`;
  const limit = opts.limit ?? 500;
  const rows = (
    opts.caseId !== undefined && opts.criterionId !== undefined
      ? stmt(
          db,
          `select ${cols} from verdict_label_history where run_id = ? and case_id = ? and criterion_id = ?
           order by id desc limit ?`,
        ).all(runId, opts.caseId, opts.criterionId, limit)
      : stmt(db, `select ${cols} from verdict_label_history where run_id = ? order by id desc limit ?`).all(
          runId,
          limit,
        )
  ) as RawHistory[];
  return rows.map((h) => ({
    ...h,
    passed: bool(h.passed),
    previousPassed: bool(h.previousPassed),
    at: new Date(h.at),
  }));
}

type Earlier = { source: VerdictLabelSource; author: string | null };

function earlierSourceSqlite(
  db: SqliteDb,
  target: VerdictLabelHistoryEntry,
  restored: VerdictLabelValue | null,
): Earlier | undefined {
  return stmt(
    db,
    `select source, author from verdict_label_history where run_id = ? and case_id = ? and criterion_id = ?
       and id < ? and source != 'undo' and passed is ? and score is ? order by id desc limit 1`,
  ).get(
    target.runId,
    target.caseId,
    target.criterionId,
    target.id,
    restored === null ? null : restored.passed ? 1 : 0,
    restored?.score ?? null,
  ) as Earlier | undefined;
}

// ─── PostgreSQL: the same steps with builders ────────────────────────────────

const labelFields = (l: OpDb["tables"]["verdictLabels"]) => ({
  runId: l.runId,
  caseId: l.caseId,
  criterionId: l.criterionId,
  passed: l.passed,
  score: l.score,
  source: l.source,
  labeller: l.labeller,
  author: l.author,
  note: l.note,
  updatedAt: l.updatedAt,
});

const isKey = (
  l: OpDb["tables"]["verdictLabels"] | OpDb["tables"]["verdictLabelHistory"],
  k: VerdictLabelKey,
) => and(eq(l.runId, k.runId), eq(l.caseId, k.caseId), eq(l.criterionId, k.criterionId));

function* writePg(
  db: OpDb,
  k: VerdictLabelKey,
  value: VerdictLabelValue | null,
  source: VerdictLabelSource | "undo",
  who: Who,
  at: number,
  rowSource: VerdictLabelSource = source === "undo" ? "human" : source,
  note: string | null = null,
): Op<LabelChange> {
  const { labeller, author } = who;
  const rowAuthor = who.rowAuthor === undefined ? author : who.rowAuthor;
  const { verdictLabels: l, verdictLabelHistory } = db.tables;
  const before = yield* one(
    db.select({ passed: l.passed, score: l.score, author: l.author }).from(l).where(isKey(l, k)),
  );
  const previous = before ? { passed: before.passed, score: before.score } : null;
  if (value === null) {
    if (!before) return { changed: false, previous };
    yield* write(db.delete(l).where(isKey(l, k)));
  } else {
    const row = {
      passed: value.passed,
      score: value.score,
      source: rowSource,
      labeller,
      author: rowAuthor,
      updatedAt: new Date(at),
    };
    yield* write(
      db
        .insert(l)
        .values({ runId: k.runId, caseId: k.caseId, criterionId: k.criterionId, ...row, note })
        .onConflictDoUpdate({
          target: [l.runId, l.caseId, l.criterionId],
          set: { ...row, note: sql`coalesce(excluded.note, ${l.note})` },
        }),
    );
    if (sameLabel(previous, value) && !secondJudgement(author, before)) return { changed: false, previous };
  }
  yield* write(
    db.insert(verdictLabelHistory).values({
      runId: k.runId,
      caseId: k.caseId,
      criterionId: k.criterionId,
      passed: value === null ? null : value.passed,
      score: value?.score ?? null,
      previousPassed: previous === null ? null : previous.passed,
      previousScore: previous?.score ?? null,
      source,
      labeller,
      author,
      at: new Date(at),
    }),
  );
  return { changed: value === null || !sameLabel(previous, value), previous };
}

// ─── The queries ─────────────────────────────────────────────────────────────

export const getVerdictLabel = query(function* (db, k: VerdictLabelKey): Op<VerdictLabelRow | undefined> {
  if (db.engine === "sqlite") return getVerdictLabelSqlite(lite(db), k);
  const { verdictLabels: l } = db.tables;
  return yield* one(db.select(labelFields(l)).from(l).where(isKey(l, k)));
});

export const listVerdictLabels = query(function* (db, runId: string): Op<VerdictLabelRow[]> {
  if (db.engine === "sqlite")
    return (
      stmt(
        lite(db),
        `select ${LABEL_COLUMNS} from verdict_labels where run_id = ? order by case_id, criterion_id`,
      ).all(runId) as RawLabel[]
    ).map(toLabel);
  const { verdictLabels: l } = db.tables;
  return yield* all(
    db.select(labelFields(l)).from(l).where(eq(l.runId, runId)).orderBy(l.caseId, l.criterionId),
  );
});

/**
 * Sets one label (a person's click, or an import), recording the change in the history. Setting
 * the label it already has is not a change. Returns the label it replaced (null if none).
 */
export const setVerdictLabel = query(function* (
  db,
  k: VerdictLabelKey,
  value: VerdictLabelValue,
  opts: {
    source?: VerdictLabelSource;
    labeller?: string | null;
    author?: string | null;
    note?: string | null;
  } = {},
): Op<LabelChange> {
  const source = opts.source ?? "human";
  const who = whoOf(opts);
  if (db.engine === "sqlite") {
    const s = lite(db);
    return s.$client.transaction(() =>
      writeSqlite(s, k, value, source, who, Date.now(), source, opts.note ?? null),
    )();
  }
  return yield* tx(db, (t) => writePg(t, k, value, source, who, Date.now(), source, opts.note ?? null));
});

const whoOf = (opts: { labeller?: string | null; author?: string | null }): Who => ({
  labeller: opts.labeller ?? null,
  author: opts.author ?? null,
});

/** Sets many labels in one transaction (an import): all or none. */
export const setVerdictLabels = query(function* (
  db,
  labels: (VerdictLabelKey & VerdictLabelValue)[],
  opts: { source?: VerdictLabelSource; labeller?: string | null; author?: string | null } = {},
): Op<number> {
  const source = opts.source ?? "import";
  const who = whoOf(opts);
  const at = Date.now();
  if (db.engine === "sqlite") {
    const s = lite(db);
    return s.$client.transaction(() => {
      let changed = 0;
      for (const l of labels)
        if (writeSqlite(s, l, { passed: l.passed, score: l.score }, source, who, at).changed) changed++;
      return changed;
    })();
  }
  return yield* tx(db, function* (t) {
    let changed = 0;
    for (const l of labels)
      if ((yield* writePg(t, l, { passed: l.passed, score: l.score }, source, who, at)).changed) changed++;
    return changed;
  });
});

/** Removes a label (the history keeps it). */
export const removeVerdictLabel = query(function* (
  db,
  k: VerdictLabelKey,
  opts: { labeller?: string | null; author?: string | null } = {},
): Op<LabelChange> {
  const who = whoOf(opts);
  if (db.engine === "sqlite") {
    const s = lite(db);
    return s.$client.transaction(() => writeSqlite(s, k, null, "human", who, Date.now()))();
  }
  return yield* tx(db, (t) => writePg(t, k, null, "human", who, Date.now()));
});

/** A run's label history, newest first (optionally one case × criterion's). */
export const listVerdictLabelHistory = query(function* (
  db,
  runId: string,
  opts: { caseId?: string; criterionId?: string; limit?: number } = {},
): Op<VerdictLabelHistoryEntry[]> {
  if (db.engine === "sqlite") return listHistorySqlite(lite(db), runId, opts);
  const { verdictLabelHistory: h } = db.tables;
  const where =
    opts.caseId !== undefined && opts.criterionId !== undefined
      ? isKey(h, { runId, caseId: opts.caseId, criterionId: opts.criterionId })
      : eq(h.runId, runId);
  return yield* all(
    db
      .select({
        id: h.id,
        runId: h.runId,
        caseId: h.caseId,
        criterionId: h.criterionId,
        passed: h.passed,
        score: h.score,
        previousPassed: h.previousPassed,
        previousScore: h.previousScore,
        source: h.source,
        labeller: h.labeller,
        author: h.author,
        at: h.at,
      })
      .from(h)
      .where(where)
      .orderBy(desc(h.id))
      .limit(opts.limit ?? 500),
  );
});

/**
 * The change an undo of this run's labels would revert: the newest change not already undone (each
 * undo entry cancels the newest earlier change not yet cancelled, so undo repeats step by step).
 */
export const undoableVerdictLabelChange = query(function* (
  db,
  runId: string,
): Op<VerdictLabelHistoryEntry | undefined> {
  let pending = 0;
  for (const h of yield* listVerdictLabelHistory.body(db, runId, { limit: 1_000_000 })) {
    if (h.source === "undo") pending++;
    else if (pending > 0) pending--;
    else return h;
  }
  return undefined;
});

const restoredOf = (target: VerdictLabelHistoryEntry): VerdictLabelValue | null =>
  target.previousPassed === null ? null : { passed: target.previousPassed, score: target.previousScore };

/**
 * Undoes the newest label change of a run: that case × criterion goes back to the label it had
 * (removed if it had none), and the undo is itself a history entry. Returns the change undone.
 */
export const undoLastVerdictLabel = query(function* (
  db,
  runId: string,
  opts: { labeller?: string | null; author?: string | null } = {},
): Op<VerdictLabelHistoryEntry | undefined> {
  const who = whoOf(opts);
  if (db.engine === "sqlite") {
    const s = lite(db);
    return s.$client.transaction(() => {
      const target = undoableVerdictLabelChange(s, runId);
      if (!target) return undefined;
      const restored = restoredOf(target);
      // the restored label keeps the source it had: the newest earlier change that set it
      const earlier = earlierSourceSqlite(s, target, restored);
      writeSqlite(
        s,
        target,
        restored,
        "undo",
        { ...who, rowAuthor: earlier?.author ?? null },
        Date.now(),
        earlier?.source ?? "human",
      );
      return target;
    })();
  }
  return yield* tx(db, function* (t) {
    const target = yield* undoableVerdictLabelChange.body(t, runId);
    if (!target) return undefined;
    const restored = restoredOf(target);
    const { verdictLabelHistory: h } = t.tables;
    const earlier = yield* one(
      t
        .select({ source: h.source, author: h.author })
        .from(h)
        .where(
          and(
            isKey(h, target),
            lt(h.id, target.id),
            ne(h.source, "undo"),
            restored === null ? isNull(h.passed) : eq(h.passed, restored.passed),
            restored?.score == null ? isNull(h.score) : eq(h.score, restored.score),
          ),
        )
        .orderBy(desc(h.id))
        .limit(1),
    );
    yield* writePg(
      t,
      target,
      restored,
      "undo",
      { ...who, rowAuthor: earlier?.author ?? null },
      Date.now(),
      (earlier?.source as VerdictLabelSource | undefined) ?? "human",
    );
    return target;
  });
});

export type LabelledRun = {
  runId: string;
  suiteName: string;
  status: string;
  createdAt: Date;
  labels: number;
  cells: number;
  lastLabelledAt: Date;
};

/** The runs that hold at least one label, newest label first, with how many of their cells are labelled. */
export const listLabelledRuns = query(function* (db): Op<LabelledRun[]> {
  if (db.engine === "sqlite")
    return (
      stmt(
        lite(db),
        `select r.id as runId, r.suite_name as suiteName, r.status as status, r.created_at as createdAt,
              count(*) as labels, (select count(*) from results x where x.run_id = r.id) as cells,
              max(l.updated_at) as lastLabelledAt
       from verdict_labels l join runs r on r.id = l.run_id
       group by r.id order by lastLabelledAt desc`,
      ).all() as (Omit<LabelledRun, "createdAt" | "lastLabelledAt"> & {
        createdAt: number;
        lastLabelledAt: number;
      })[]
    ).map((r) => ({ ...r, createdAt: new Date(r.createdAt), lastLabelledAt: new Date(r.lastLabelledAt) }));
  const { verdictLabels: l, runs: r, results } = db.tables;
  const lastLabelledAt = max(l.updatedAt);
  const found = yield* all(
    db
      .select({
        runId: r.id,
        suiteName: r.suiteName,
        status: r.status,
        createdAt: r.createdAt,
        labels: count(),
        // count(*) is a bigint, read as a number (db/pg/client.ts)
        cells: sql<number>`(select count(*) from ${results} x where x.run_id = ${r.id})`.mapWith(Number),
        lastLabelledAt,
      })
      .from(l)
      .innerJoin(r, eq(r.id, l.runId))
      .groupBy(r.id)
      .orderBy(desc(lastLabelledAt)),
  );
  // an inner join: every group has a label, so a newest one
  return found.map((x) => ({ ...x, lastLabelledAt: x.lastLabelledAt as Date }));
});
