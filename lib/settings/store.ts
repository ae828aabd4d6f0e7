import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { settings as settingsTable } from "@/db/schema";
import { deepMerge, isPlainObject } from "./memory-judge-defaults";
import { defaultSettings, type Settings, settingsSchema } from "./schema";

/**
 * Reads the settings row. Keys added since the row was written take their defaults; a row
 * that no longer validates falls back to the defaults rather than breaking every page.
 */
export function readSettings(db: Db): Settings {
  const row = db.select().from(settingsTable).where(eq(settingsTable.id, 1)).get();
  if (!row) return defaultSettings;
  const merged = deepMerge(defaultSettings, row.data);
  // A stored price table replaces the defaults: a price the user deleted stays deleted.
  if (isPlainObject(row.data) && isPlainObject(row.data.prices))
    merged.prices = row.data.prices as Settings["prices"];
  const parsed = settingsSchema.safeParse(merged);
  return parsed.success ? parsed.data : defaultSettings;
}

export function writeSettings(db: Db, value: Settings): void {
  const data = settingsSchema.parse(value);
  db.insert(settingsTable)
    .values({ id: 1, data, updatedAt: new Date() })
    .onConflictDoUpdate({ target: settingsTable.id, set: { data, updatedAt: new Date() } })
    .run();
}
