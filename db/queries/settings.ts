import { eq, sql } from "drizzle-orm";
import { one, query, rows, tx, write } from "../op";
import { type AuditInput, appendAudit } from "./users";

/** The stored settings JSON (validated by lib/settings/store.ts), or undefined before the first save. */
export const getSettingsData = query(function* (db) {
  const { settings } = db.tables;
  return (yield* one(db.select({ data: settings.data }).from(settings).where(eq(settings.id, 1))))?.data;
});

/** When the settings were last saved and by whom (undefined before the first save; `by` null: before authors were kept). */
export const getSettingsSaved = query(function* (db) {
  const { settings } = db.tables;
  const row = yield* one(
    db.select({ at: settings.updatedAt, by: settings.updatedBy }).from(settings).where(eq(settings.id, 1)),
  );
  return row ? { at: row.at, by: row.by ?? null } : undefined;
});

/** Saves the settings JSON; `by`: who saved it (null: not known). */
export const saveSettingsData = query(function* (db, data: unknown, by: string | null = null) {
  const { settings } = db.tables;
  const updatedAt = new Date();
  yield* write(
    db
      .insert(settings)
      .values({ id: 1, data, updatedAt, updatedBy: by })
      .onConflictDoUpdate({ target: settings.id, set: { data, updatedAt, updatedBy: by } }),
  );
});

/** The advisory lock PostgreSQL's read-modify-write of the settings takes ("jury" "sett" in ASCII). */
const SETTINGS_LOCK = 0x6a75_7279_7365_7474n;

/**
 * Reads the stored settings JSON and saves what `change` makes of it, under one write lock: an edit
 * saved in between is never overwritten (SQLite: an IMMEDIATE transaction; PostgreSQL: an advisory
 * lock held until it commits, which a first save, with no row to lock yet, needs too). `change`
 * throwing saves nothing. `by` is recorded as who saved; `audit`, given what was stored and what is
 * saved, makes the audit log's entry, written in the same transaction (null: none).
 */
export const updateSettingsData = query(function* (
  db,
  change: (stored: unknown) => unknown,
  meta: { by?: string | null; audit?: (stored: unknown, saved: unknown) => AuditInput | null } = {},
) {
  yield* tx(db, function* (t) {
    if (t.engine === "pg")
      yield* rows(t, sql`select pg_advisory_xact_lock(${SETTINGS_LOCK.toString()}::bigint)`);
    const stored = yield* getSettingsData.body(t);
    const saved = change(stored);
    yield* saveSettingsData.body(t, saved, meta.by ?? null);
    const entry = meta.audit?.(stored, saved);
    if (entry) yield* appendAudit.body(t, entry);
  });
});
