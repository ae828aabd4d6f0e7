import type { Db } from "@/db/client";
import { listAudit } from "@/db/queries/users";
import type { AuditEntry } from "@/db/schema";
import { rowsToCsv } from "../csv";
import { describeChange, type SettingChange } from "../settings/diff";

// The audit log as the page shows it, and as `jury audit` and /audit/export write it.

export const AUDIT_FORMATS = ["csv", "jsonl"] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

/** Entries read per query when exporting the whole log. */
const CHUNK = 1000;

/** The newest `limit` entries (undefined: all), newest first, read a chunk at a time. */
export async function readAudit(db: Db, limit?: number): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  let before: number | undefined;
  for (;;) {
    const want = limit === undefined ? CHUNK : Math.min(CHUNK, limit - out.length);
    if (want <= 0) break;
    const page = await listAudit(db, { limit: want, before });
    out.push(...page);
    if (page.length < want) break;
    before = page[page.length - 1].id;
  }
  return out;
}

const CSV_COLUMNS = ["id", "at", "actor", "action", "target", "summary", "detail"] as const;

/** One entry as a plain record: its time in ISO 8601, its detail as stored (never a credential). */
function record(e: AuditEntry) {
  return {
    id: e.id,
    at: e.at.toISOString(),
    actor: e.actor,
    action: e.action,
    target: e.target,
    summary: describeAudit(e),
    detail: e.detail,
  };
}

/** The entries as CSV (the detail as JSON in one cell) or JSON Lines, one entry a line. */
export function formatAudit(entries: readonly AuditEntry[], format: AuditFormat): string {
  if (format === "jsonl") return entries.map((e) => `${JSON.stringify(record(e))}\n`).join("");
  return rowsToCsv(
    CSV_COLUMNS,
    entries.map((e) => {
      const r = record(e);
      return { ...r, detail: r.detail === null ? "" : JSON.stringify(r.detail) };
    }),
  );
}

/** The audit log as a file to download: the same bytes `jury audit --format` prints. */
export async function exportAudit(
  db: Db,
  format: AuditFormat,
  limit?: number,
): Promise<{ body: string; contentType: string; filename: string }> {
  const body = formatAudit(await readAudit(db, limit), format);
  return format === "csv"
    ? { body, contentType: "text/csv; charset=utf-8", filename: "jury-audit.csv" }
    : { body, contentType: "application/x-ndjson; charset=utf-8", filename: "jury-audit.jsonl" };
}

const ACTION_WORDS: Record<string, string> = {
  "settings.save": "saved settings",
  "promote.experiment": "promoted an experiment to the hook",
  "promote.panel": "promoted a panel",
  "promote.panel-config": "promoted a panel configuration",
  "user.add": "added a user",
  "user.remove": "removed a user",
  "user.rotate": "rotated a user's token",
  "user.role": "changed a user's role",
};

/** What an action is, in words ("saved settings"); an unknown one as itself. */
export function actionWords(action: string): string {
  return ACTION_WORDS[action] ?? action;
}

const changesOf = (d: Record<string, unknown> | null): SettingChange[] =>
  Array.isArray(d?.changes) ? (d.changes as SettingChange[]) : [];

/**
 * What an entry changed, in one line: each setting with its value before and after (a credential
 * only as changed), a promotion's source, a user's role.
 */
export function describeAudit(e: Pick<AuditEntry, "action" | "detail">): string {
  const d = e.detail;
  const changes = changesOf(d).map(describeChange);
  if (e.action === "settings.save") return changes.join("; ") || "nothing changed";
  if (e.action.startsWith("promote.")) {
    const from = `from ${String(d?.source ?? "?")} ${String(d?.id ?? "?")}${d?.label ? ` (${String(d.label)})` : ""}`;
    return changes.length ? `${from}: ${changes.join("; ")}` : from;
  }
  if (e.action === "user.role") return `${String(d?.from)} → ${String(d?.to)}`;
  if (d && typeof d.role === "string") return `role ${d.role}`;
  return d ? JSON.stringify(d) : "";
}
