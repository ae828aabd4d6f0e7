// The heavy half of the memory hook (drizzle's migrator, zod-validated settings, the AI SDK and the
// judge), bundled apart as dist/hook-full.cjs. The hook's own bundle (dist/hook.cjs) requires it only
// when the judge is on, migrations are pending or the stored settings need the full validation.
import type Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import type { SqliteDb } from "@/db/client";
import * as schema from "@/db/schema";
import { defaultMigrationsFolder, migrationsUpToDate, openSqlite } from "@/db/sqlite";

export { getModel, judgeCandidates, majorityOfSamples } from "../memory/judge-runtime";
export { readSettings } from "../settings/store";

/**
 * The hook's drizzle database: on the connection it already opened (`sqlite`), else on a new one
 * whose lock waits fit the budget (`busyTimeoutMs`). Migrations run only when some are pending (they
 * need the write lock; an up-to-date database is only read, so another writer does not hold it up).
 */
export function openHookDb(
  file: string,
  opts: { sqlite?: Database.Database; busyTimeoutMs: number },
): SqliteDb {
  const sqlite = opts.sqlite ?? openSqlite(file, { busyTimeoutMs: opts.busyTimeoutMs });
  // a store as db/client.ts's asSqliteDb makes one (not imported: db/client.ts would bring the pg client along)
  const db: SqliteDb = Object.assign(drizzle(sqlite, { schema, casing: "snake_case" }), {
    engine: "sqlite" as const,
    tables: schema,
  });
  const folder = defaultMigrationsFolder();
  if (!migrationsUpToDate(sqlite, folder)) migrate(db, { migrationsFolder: folder });
  return db;
}
