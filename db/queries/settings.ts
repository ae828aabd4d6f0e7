import { eq } from "drizzle-orm";
import type { Db } from "../client";
import { settings } from "../schema";

/** The stored settings JSON (validated by lib/settings/store.ts), or undefined before the first save. */
export function getSettingsData(db: Db): unknown {
  return db.select({ data: settings.data }).from(settings).where(eq(settings.id, 1)).get()?.data;
}

export function saveSettingsData(db: Db, data: unknown): void {
  const updatedAt = new Date();
  db.insert(settings)
    .values({ id: 1, data, updatedAt })
    .onConflictDoUpdate({ target: settings.id, set: { data, updatedAt } })
    .run();
}
