import { eq } from "drizzle-orm";
import { one, query, write } from "../op";

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
