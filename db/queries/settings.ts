import { eq, sql } from "drizzle-orm";
import { one, query, rows, tx, write } from "../op";

/** The stored settings JSON (validated by lib/settings/store.ts), or undefined before the first save. */
export const getSettingsData = query(function* (db) {
  const { settings } = db.tables;
  return (yield* one(db.select({ data: settings.data }).from(settings).where(eq(settings.id, 1))))?.data;
});

export const saveSettingsData = query(function* (db, data: unknown) {
  const { settings } = db.tables;
  const updatedAt = new Date();
  yield* write(
    db
      .insert(settings)
      .values({ id: 1, data, updatedAt })
      .onConflictDoUpdate({ target: settings.id, set: { data, updatedAt } }),
  );
});

/** The advisory lock PostgreSQL's read-modify-write of the settings takes ("jury" "sett" in ASCII). */
const SETTINGS_LOCK = 0x6a75_7279_7365_7474n;

/**
 * Reads the stored settings JSON and saves what `change` makes of it, under one write lock: an edit
 * saved in between is never overwritten (SQLite: an IMMEDIATE transaction; PostgreSQL: an advisory
 * lock held until it commits, which a first save, with no row to lock yet, needs too). `change`
 * throwing saves nothing.
 */
export const updateSettingsData = query(function* (db, change: (stored: unknown) => unknown) {
  yield* tx(db, function* (t) {
    if (t.engine === "pg")
      yield* rows(t, sql`select pg_advisory_xact_lock(${SETTINGS_LOCK.toString()}::bigint)`);
    yield* saveSettingsData.body(t, change(yield* getSettingsData.body(t)));
  });
});
