import type { Db } from "../client";
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
};

/** Stores a set with its items and judgments, all or nothing. */
export function insertAgreementSet(db: Db, set: NewAgreementSet, createdAt = new Date()): void {
  const c = db.$client;
  const insSet = c.prepare(
    "insert into agreement_sets (id, kind, name, options, created_at) values (?, ?, ?, ?, ?)",
  );
  const insItem = c.prepare(
    "insert into agreement_items (set_id, item_id, position, gold, data) values (?, ?, ?, ?, ?)",
  );
  const insJudgment = c.prepare(
    `insert into agreement_judgments (set_id, item_id, judge, "order", label, raw, error, input_tokens,
       output_tokens, cost_usd) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  c.transaction(() => {
    insSet.run(set.id, set.kind, set.name, JSON.stringify(set.options), createdAt.getTime());
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
}

type RawSet = Omit<AgreementSetRow, "options" | "createdAt"> & { options: string; createdAt: number };
const toSet = (r: RawSet): AgreementSetRow => ({
  ...r,
  options: JSON.parse(r.options) as Record<string, unknown>,
  createdAt: new Date(r.createdAt),
});

export function getAgreementSet(db: Db, id: string): AgreementSetRow | undefined {
  const r = db.$client
    .prepare("select id, kind, name, options, created_at as createdAt from agreement_sets where id = ?")
    .get(id) as RawSet | undefined;
  return r ? toSet(r) : undefined;
}

export type AgreementSetSummary = AgreementSetRow & { items: number; judges: string[]; judgments: number };

export function listAgreementSets(db: Db, opts: { limit?: number } = {}): AgreementSetSummary[] {
  const rows = db.$client
    .prepare(
      `select s.id, s.kind, s.name, s.options, s.created_at as createdAt,
              (select count(*) from agreement_items i where i.set_id = s.id) as items,
              (select count(*) from agreement_judgments j where j.set_id = s.id) as judgments,
              (select group_concat(judge, char(10)) from (select distinct judge from agreement_judgments j
                 where j.set_id = s.id order by judge)) as judges
       from agreement_sets s order by s.created_at desc, s.id limit ?`,
    )
    .all(opts.limit ?? 500) as (RawSet & { items: number; judgments: number; judges: string | null })[];
  return rows.map((r) => ({
    ...toSet(r),
    items: r.items,
    judgments: r.judgments,
    judges: r.judges ? r.judges.split("\n") : [],
  }));
}

export function getAgreementItems(db: Db, setId: string): AgreementItemRow[] {
  return (
    db.$client
      .prepare(
        "select item_id as itemId, position, gold, data from agreement_items where set_id = ? order by position",
      )
      .all(setId) as (Omit<AgreementItemRow, "data"> & { data: string | null })[]
  ).map((r) => ({ ...r, data: r.data === null ? null : (JSON.parse(r.data) as Record<string, unknown>) }));
}

export function getAgreementJudgments(db: Db, setId: string): AgreementJudgmentRow[] {
  return db.$client
    .prepare(
      `select item_id as itemId, judge, "order" as "order", label, raw, error, input_tokens as inputTokens,
              output_tokens as outputTokens, cost_usd as costUsd
       from agreement_judgments where set_id = ? order by judge, item_id, "order"`,
    )
    .all(setId) as AgreementJudgmentRow[];
}

/** A parsed answer kept for reuse, in the response cache every judge call shares. */
export function putResponse(
  db: Db,
  r: { key: string; text: string; inputTokens: number; outputTokens: number },
): void {
  db.$client
    .prepare(
      `insert into response_cache (key, text, input_tokens, output_tokens, created_at) values (?, ?, ?, ?, ?)
       on conflict(key) do update set text = excluded.text, input_tokens = excluded.input_tokens,
         output_tokens = excluded.output_tokens, created_at = excluded.created_at`,
    )
    .run(r.key, r.text, r.inputTokens, r.outputTokens, Date.now());
}

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
export function putAgreementReport(db: Db, r: StoredReport): void {
  db.$client
    .prepare(
      `insert into agreement_reports (subject_id, kind, stamp, report, cpu_ms, computed_at) values (?, ?, ?, ?, ?, ?)
       on conflict(subject_id) do update set kind = excluded.kind, stamp = excluded.stamp,
         report = excluded.report, cpu_ms = excluded.cpu_ms, computed_at = excluded.computed_at`,
    )
    .run(r.subjectId, r.kind, r.stamp, r.report, r.cpuMs, r.computedAt.getTime());
}

export function getAgreementReport(db: Db, subjectId: string): StoredReport | undefined {
  const r = db.$client
    .prepare(
      `select subject_id as subjectId, kind, stamp, report, cpu_ms as cpuMs, computed_at as computedAt
       from agreement_reports where subject_id = ?`,
    )
    .get(subjectId) as (Omit<StoredReport, "computedAt"> & { computedAt: number }) | undefined;
  return r ? { ...r, computedAt: new Date(r.computedAt) } : undefined;
}

/**
 * What a run's agreement is computed from, as one string: its newest label change, its label count,
 * its status and how many samples it holds. Any label change, resume or retry changes it.
 */
export function runAgreementStamp(db: Db, runId: string): string {
  const r = db.$client
    .prepare(
      `select (select coalesce(max(id), 0) from verdict_label_history where run_id = ?) as h,
              (select count(*) from verdict_labels where run_id = ?) as l,
              (select count(*) from samples where run_id = ?) as s,
              (select status from runs where id = ?) as st`,
    )
    .get(runId, runId, runId, runId) as { h: number; l: number; s: number; st: string | null };
  return `labels ${r.h}/${r.l} · samples ${r.s} · ${r.st ?? "?"}`;
}

/** An import's items and judgments never change after it is stored: its stamp is fixed. */
export const SET_STAMP = "set v1";
