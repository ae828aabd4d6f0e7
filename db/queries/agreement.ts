import { asc, eq, sql } from "drizzle-orm";
import type { SqliteDb } from "../client";
import { all, one, query, rows, tx, write } from "../op";
import type { AgreementSetKind } from "../schema";

/**
 * Judgments measured against gold labels, outside runs: imported sets (TREC qrels, LLMBar, Jury's
 * JSONL) and Jury's own pairwise audits. A set is written whole in one transaction or not at all.
 */
export type AgreementSetRow = {
  id: string;
  kind: AgreementSetKind;
  name: string;
  options: Record<string, unknown>;
  createdAt: Date;
  /** who imported or made it; null: before authors were kept */
  createdBy?: string | null;
};
export type AgreementItemRow = {
  itemId: string;
  position: number;
  gold: number | null;
  data: Record<string, unknown> | null;
};
export type AgreementJudgmentRow = {
  itemId: string;
  judge: string;
  /** "" pointwise; "original" / "swapped" pairwise */
  order: string;
  label: number | null;
  raw: string | null;
  error: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
};
export type NewAgreementSet = {
  id: string;
  kind: AgreementSetKind;
  name: string;
  options: Record<string, unknown>;
  items: AgreementItemRow[];
  judgments: (Pick<AgreementJudgmentRow, "itemId" | "judge" | "label"> & Partial<AgreementJudgmentRow>)[];
  /** who imported or made it; absent: not known */
  createdBy?: string | null;
};

/** Rows per multi-row insert on PostgreSQL: 10 columns × 500 stays far below its 65,535 parameters. */
const PG_CHUNK = 500;

function* chunks<T>(xs: readonly T[], size: number): Generator<readonly T[]> {
  for (let i = 0; i < xs.length; i += size) yield xs.slice(i, i + size);
}

/**
 * Stores a set with its items and judgments, all or nothing. On SQLite the rows go through prepared
 * statements in one transaction (an import is 100,000s of rows: the bench's path); on PostgreSQL as
 * multi-row inserts in one transaction.
 */
export const insertAgreementSet = query(function* (db, set: NewAgreementSet, createdAt: Date = new Date()) {
  if (db.engine === "sqlite") {
    const c = (db as unknown as SqliteDb).$client;
    const insSet = c.prepare(
      "insert into agreement_sets (id, kind, name, options, created_at, created_by) values (?, ?, ?, ?, ?, ?)",
    );
    const insItem = c.prepare(
      "insert into agreement_items (set_id, item_id, position, gold, data) values (?, ?, ?, ?, ?)",
    );
    const insJudgment = c.prepare(
      `insert into agreement_judgments (set_id, item_id, judge, "order", label, raw, error, input_tokens,
         output_tokens, cost_usd) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    c.transaction(() => {
      insSet.run(
        set.id,
        set.kind,
        set.name,
        JSON.stringify(set.options),
        createdAt.getTime(),
        set.createdBy ?? null,
      );
      for (const i of set.items)
        insItem.run(set.id, i.itemId, i.position, i.gold, i.data === null ? null : JSON.stringify(i.data));
      for (const j of set.judgments)
        insJudgment.run(
          set.id,
          j.itemId,
          j.judge,
          j.order ?? "",
          j.label,
          j.raw ?? null,
          j.error ?? null,
          j.inputTokens ?? 0,
          j.outputTokens ?? 0,
          j.costUsd ?? null,
        );
    })();
    return;
  }
  yield* tx(db, function* (t) {
    const { agreementSets, agreementItems, agreementJudgments } = t.tables;
    yield* write(
      t.insert(agreementSets).values({
        id: set.id,
        kind: set.kind,
        name: set.name,
        options: set.options,
        createdAt,
        createdBy: set.createdBy ?? null,
      }),
    );
    for (const part of chunks(set.items, PG_CHUNK))
      yield* write(
        t.insert(agreementItems).values(
          part.map((i) => ({
            setId: set.id,
            itemId: i.itemId,
            position: i.position,
            gold: i.gold ?? null,
            data: i.data ?? null,
          })),
        ),
      );
    for (const part of chunks(set.judgments, PG_CHUNK))
      yield* write(
        t.insert(agreementJudgments).values(
          part.map((j) => ({
            setId: set.id,
            itemId: j.itemId,
            judge: j.judge,
            order: j.order ?? "",
            label: j.label ?? null,
            raw: j.raw ?? null,
            error: j.error ?? null,
            inputTokens: j.inputTokens ?? 0,
            outputTokens: j.outputTokens ?? 0,
            costUsd: j.costUsd ?? null,
          })),
        ),
      );
  });
});

export const getAgreementSet = query(function* (db, id: string) {
  const { agreementSets: s } = db.tables;
  const r: AgreementSetRow | undefined = yield* one(
    db
      .select({
        id: s.id,
        kind: s.kind,
        name: s.name,
        options: s.options,
        createdAt: s.createdAt,
        createdBy: s.createdBy,
      })
      .from(s)
      .where(eq(s.id, id)),
  );
  return r;
});

export type AgreementSetSummary = AgreementSetRow & { items: number; judges: string[]; judgments: number };

type RawSet = Omit<AgreementSetRow, "options" | "createdAt"> & { options: string; createdAt: number };
const toSet = (r: RawSet): AgreementSetRow => ({
  ...r,
  options: JSON.parse(r.options) as Record<string, unknown>,
  createdAt: new Date(Number(r.createdAt)),
});

export const listAgreementSets = query(function* (db, opts: { limit?: number } = {}) {
  // the set's judges, distinct, sorted, one per line
  const judges =
    db.engine === "pg"
      ? sql`(select string_agg(judge, chr(10) order by judge) from (select distinct judge from agreement_judgments j
               where j.set_id = s.id) d)`
      : sql`(select group_concat(judge, char(10)) from (select distinct judge from agreement_judgments j
               where j.set_id = s.id order by judge))`;
  const found = yield* rows<RawSet & { items: number; judgments: number; judges: string | null }>(
    db,
    sql`select s.id, s.kind, s.name, s.options, s.created_at as "createdAt", s.created_by as "createdBy",
               (select count(*) from agreement_items i where i.set_id = s.id) as items,
               (select count(*) from agreement_judgments j where j.set_id = s.id) as judgments,
               ${judges} as judges
        from agreement_sets s order by s.created_at desc, s.id limit ${opts.limit ?? 500}`,
  );
  return found.map(
    (r): AgreementSetSummary => ({
      ...toSet(r),
      items: Number(r.items),
      judgments: Number(r.judgments),
      judges: r.judges ? r.judges.split("\n") : [],
    }),
  );
});

export const getAgreementItems = query(function* (db, setId: string) {
  const { agreementItems: i } = db.tables;
  const found: AgreementItemRow[] = yield* all(
    db
      .select({ itemId: i.itemId, position: i.position, gold: i.gold, data: i.data })
      .from(i)
      .where(eq(i.setId, setId))
      .orderBy(asc(i.position)),
  );
  return found;
});

export const getAgreementJudgments = query(function* (db, setId: string) {
  const { agreementJudgments: j } = db.tables;
  const found: AgreementJudgmentRow[] = yield* all(
    db
      .select({
        itemId: j.itemId,
        judge: j.judge,
        order: j.order,
        label: j.label,
        raw: j.raw,
        error: j.error,
        inputTokens: j.inputTokens,
        outputTokens: j.outputTokens,
        costUsd: j.costUsd,
      })
      .from(j)
      .where(eq(j.setId, setId))
      .orderBy(asc(j.judge), asc(j.itemId), asc(j.order)),
  );
  return found;
});

/** A parsed answer kept for reuse, in the response cache every judge call shares. */
export const putResponse = query(function* (
  db,
  r: { key: string; text: string; inputTokens: number; outputTokens: number },
) {
  const { responseCache: c } = db.tables;
  yield* write(
    db
      .insert(c)
      .values({
        key: r.key,
        text: r.text,
        inputTokens: r.inputTokens,
        outputTokens: r.outputTokens,
        createdAt: new Date(),
      })
      .onConflictDoUpdate({
        target: c.key,
        set: {
          text: sql`excluded.text`,
          inputTokens: sql`excluded.input_tokens`,
          outputTokens: sql`excluded.output_tokens`,
          createdAt: sql`excluded.created_at`,
        },
      }),
  );
});

// ─── stored reports ──────────────────────────────────────────────────────────

export type StoredReport = {
  subjectId: string;
  kind: "set" | "run";
  stamp: string;
  report: string;
  cpuMs: number;
  computedAt: Date;
};

/** Stores (or replaces) the computed report of an import or a run. */
export const putAgreementReport = query(function* (db, r: StoredReport) {
  const { agreementReports: a } = db.tables;
  yield* write(
    db
      .insert(a)
      .values({
        subjectId: r.subjectId,
        kind: r.kind,
        stamp: r.stamp,
        report: r.report,
        cpuMs: r.cpuMs,
        computedAt: r.computedAt,
      })
      .onConflictDoUpdate({
        target: a.subjectId,
        set: {
          kind: sql`excluded.kind`,
          stamp: sql`excluded.stamp`,
          report: sql`excluded.report`,
          cpuMs: sql`excluded.cpu_ms`,
          computedAt: sql`excluded.computed_at`,
        },
      }),
  );
});

export const getAgreementReport = query(function* (db, subjectId: string) {
  const { agreementReports: a } = db.tables;
  const r: StoredReport | undefined = yield* one(
    db
      .select({
        subjectId: a.subjectId,
        kind: a.kind,
        stamp: a.stamp,
        report: a.report,
        cpuMs: a.cpuMs,
        computedAt: a.computedAt,
      })
      .from(a)
      .where(eq(a.subjectId, subjectId)),
  );
  return r;
});

/**
 * What a run's agreement is computed from, as one string: its newest label change, its label count,
 * its status and how many samples it holds. Any label change, resume or retry changes it.
 */
export const runAgreementStamp = query(function* (db, runId: string) {
  const [r] = yield* rows<{ h: number; l: number; s: number; st: string | null }>(
    db,
    sql`select (select coalesce(max(id), 0) from verdict_label_history where run_id = ${runId}) as h,
               (select count(*) from verdict_labels where run_id = ${runId}) as l,
               (select count(*) from samples where run_id = ${runId}) as s,
               (select status from runs where id = ${runId}) as st`,
  );
  return `labels ${r.h}/${r.l} · samples ${r.s} · ${r.st ?? "?"}`;
});

/** An import's items and judgments never change after it is stored: its stamp is fixed. */
export const SET_STAMP = "set v1";
