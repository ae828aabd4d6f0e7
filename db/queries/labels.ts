import type { Db } from "../client";
import { stmt } from "./statements";

/**
 * A person's labels on a run's verdicts (case × criterion): pass/fail, and a score on the
 * criterion's scale where they gave one. Every change (a click, an import, a removal, an undo)
 * writes one `verdict_label_history` row: the label after, the label before, the source, who, when.
 * Undo walks a run's history back one change at a time, as the memory study's annotations do.
 */
export type VerdictLabelSource = "human" | "import";
export type VerdictLabelKey = { runId: string; caseId: string; criterionId: string };
export type VerdictLabelValue = { passed: boolean; score: number | null };
export type VerdictLabelRow = VerdictLabelKey &
  VerdictLabelValue & {
    source: VerdictLabelSource;
    labeller: string | null;
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
  at: Date;
};

const bool = (v: number | null): boolean | null => (v === null ? null : v !== 0);

type RawLabel = Omit<VerdictLabelRow, "passed" | "updatedAt"> & { passed: number; updatedAt: number };
const toLabel = (r: RawLabel): VerdictLabelRow => ({
  ...r,
  passed: r.passed !== 0,
  updatedAt: new Date(r.updatedAt),
});

const LABEL_COLUMNS = `run_id as runId, case_id as caseId, criterion_id as criterionId, passed, score, source,
  labeller, note, updated_at as updatedAt`;

export function getVerdictLabel(db: Db, k: VerdictLabelKey): VerdictLabelRow | undefined {
  const r = stmt(
    db,
    `select ${LABEL_COLUMNS} from verdict_labels where run_id = ? and case_id = ? and criterion_id = ?`,
  ).get(k.runId, k.caseId, k.criterionId) as RawLabel | undefined;
  return r ? toLabel(r) : undefined;
}

export function listVerdictLabels(db: Db, runId: string): VerdictLabelRow[] {
  return (
    stmt(
      db,
      `select ${LABEL_COLUMNS} from verdict_labels where run_id = ? order by case_id, criterion_id`,
    ).all(runId) as RawLabel[]
  ).map(toLabel);
}

function write(
  db: Db,
  k: VerdictLabelKey,
  value: VerdictLabelValue | null,
  source: VerdictLabelSource | "undo",
  labeller: string | null,
  at: number,
  /** the source the label row keeps (an undo restores the source of the label it brings back) */
  rowSource: VerdictLabelSource = source === "undo" ? "human" : source,
  note: string | null = null,
): { changed: boolean; previous: VerdictLabelValue | null } {
  const before = getVerdictLabel(db, k);
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
      `insert into verdict_labels (run_id, case_id, criterion_id, passed, score, source, labeller, note, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict(run_id, case_id, criterion_id) do update set passed = excluded.passed, score = excluded.score,
         source = excluded.source, labeller = excluded.labeller, note = coalesce(excluded.note, verdict_labels.note),
         updated_at = excluded.updated_at`,
    ).run(k.runId, k.caseId, k.criterionId, value.passed ? 1 : 0, value.score, rowSource, labeller, note, at);
    // the same label again: its provenance is refreshed, but nothing changed that history must keep
    if (previous && previous.passed === value.passed && previous.score === value.score)
      return { changed: false, previous };
  }
  stmt(
    db,
    `insert into verdict_label_history (run_id, case_id, criterion_id, passed, score, previous_passed,
       previous_score, source, labeller, at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    at,
  );
  return { changed: true, previous };
}

/**
 * Sets one label (a person's click, or an import), recording the change in the history. Setting
 * the label it already has is not a change. Returns the label it replaced (null if none).
 */
export function setVerdictLabel(
  db: Db,
  k: VerdictLabelKey,
  value: VerdictLabelValue,
  opts: { source?: VerdictLabelSource; labeller?: string | null; note?: string | null } = {},
): { changed: boolean; previous: VerdictLabelValue | null } {
  const source = opts.source ?? "human";
  return db.$client.transaction(() =>
    write(db, k, value, source, opts.labeller ?? null, Date.now(), source, opts.note ?? null),
  )();
}

/** Sets many labels in one transaction (an import): all or none. */
export function setVerdictLabels(
  db: Db,
  labels: (VerdictLabelKey & VerdictLabelValue)[],
  opts: { source?: VerdictLabelSource; labeller?: string | null } = {},
): number {
  const source = opts.source ?? "import";
  const at = Date.now();
  return db.$client.transaction(() => {
    let changed = 0;
    for (const l of labels)
      if (write(db, l, { passed: l.passed, score: l.score }, source, opts.labeller ?? null, at).changed)
        changed++;
    return changed;
  })();
}

/** Removes a label (the history keeps it). */
export function removeVerdictLabel(
  db: Db,
  k: VerdictLabelKey,
  opts: { labeller?: string | null } = {},
): { changed: boolean; previous: VerdictLabelValue | null } {
  return db.$client.transaction(() => write(db, k, null, "human", opts.labeller ?? null, Date.now()))();
}

type RawHistory = Omit<VerdictLabelHistoryEntry, "passed" | "previousPassed" | "at"> & {
  passed: number | null;
  previousPassed: number | null;
  at: number;
};

/** A run's label history, newest first (optionally one case × criterion's). */
export function listVerdictLabelHistory(
  db: Db,
  runId: string,
  opts: { caseId?: string; criterionId?: string; limit?: number } = {},
): VerdictLabelHistoryEntry[] {
  const cols = `id, run_id as runId, case_id as caseId, criterion_id as criterionId, passed, score,
    previous_passed as previousPassed, previous_score as previousScore, source, labeller, at`;
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

/**
 * The change an undo of this run's labels would revert: the newest change not already undone (each
 * undo entry cancels the newest earlier change not yet cancelled, so undo repeats step by step).
 */
export function undoableVerdictLabelChange(db: Db, runId: string): VerdictLabelHistoryEntry | undefined {
  let pending = 0;
  for (const h of listVerdictLabelHistory(db, runId, { limit: 1_000_000 })) {
    if (h.source === "undo") pending++;
    else if (pending > 0) pending--;
    else return h;
  }
  return undefined;
}

/**
 * Undoes the newest label change of a run: that case × criterion goes back to the label it had
 * (removed if it had none), and the undo is itself a history entry. Returns the change undone.
 */
export function undoLastVerdictLabel(
  db: Db,
  runId: string,
  opts: { labeller?: string | null } = {},
): VerdictLabelHistoryEntry | undefined {
  return db.$client.transaction(() => {
    const target = undoableVerdictLabelChange(db, runId);
    if (!target) return undefined;
    const restored =
      target.previousPassed === null ? null : { passed: target.previousPassed, score: target.previousScore };
    // the restored label keeps the source it had: the newest earlier change that set it
    const earlier = stmt(
      db,
      `select source from verdict_label_history where run_id = ? and case_id = ? and criterion_id = ?
       and id < ? and source != 'undo' and passed is ? and score is ? order by id desc limit 1`,
    )
      .pluck()
      .get(
        runId,
        target.caseId,
        target.criterionId,
        target.id,
        restored === null ? null : restored.passed ? 1 : 0,
        restored?.score ?? null,
      ) as VerdictLabelSource | undefined;
    write(db, target, restored, "undo", opts.labeller ?? null, Date.now(), earlier ?? "human");
    return target;
  })();
}

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
export function listLabelledRuns(db: Db): LabelledRun[] {
  return (
    stmt(
      db,
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
}
