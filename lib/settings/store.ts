import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { settings as settingsTable } from "@/db/schema";
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

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function deepMerge<T>(base: T, over: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over))
    out[k] = k in base ? deepMerge((base as Record<string, unknown>)[k], v) : v;
  return out as T;
}
