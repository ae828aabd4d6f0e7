import type Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { resolveDbPath } from "./path";
import * as schema from "./schema";
import { defaultMigrationsFolder, openSqlite } from "./sqlite";

export { defaultMigrationsFolder };

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/**
 * Opens (creating if needed) a SQLite file, sets WAL, foreign keys and busy_timeout, and
 * applies pending migrations. `:memory:` works for tests.
 */
export function createDb(file: string, opts: { migrationsFolder?: string } = {}): Db {
  const sqlite = openSqlite(file);
  const db = drizzle(sqlite, { schema, casing: "snake_case" }) as Db;
  migrate(db, { migrationsFolder: opts.migrationsFolder ?? defaultMigrationsFolder() });
  return db;
}

const globalForDb = globalThis as unknown as { __juryDb?: Db; __juryDbPath?: string };

/** The process-wide connection to the database (resolveDbPath), opened and migrated once. */
export function getDb(): Db {
  const file = resolveDbPath();
  if (!globalForDb.__juryDb || globalForDb.__juryDbPath !== file) {
    globalForDb.__juryDb = createDb(file);
    globalForDb.__juryDbPath = file;
  }
  return globalForDb.__juryDb;
}
