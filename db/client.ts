import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export const DEFAULT_DB_PATH = "data/jury.db";

/** The migrations folder: JURY_MIGRATIONS, else db/migrations under the working directory. */
export function defaultMigrationsFolder(): string {
  return process.env.JURY_MIGRATIONS ?? path.join(process.cwd(), "db", "migrations");
}

/**
 * Opens (creating if needed) a SQLite file, sets WAL, foreign keys and busy_timeout, and
 * applies pending migrations. `:memory:` works for tests.
 */
export function createDb(file: string, opts: { migrationsFolder?: string } = {}): Db {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 10000");
  sqlite.pragma("synchronous = NORMAL");
  const db = drizzle(sqlite, { schema, casing: "snake_case" }) as Db;
  migrate(db, { migrationsFolder: opts.migrationsFolder ?? defaultMigrationsFolder() });
  return db;
}

const globalForDb = globalThis as unknown as { __juryDb?: Db; __juryDbPath?: string };

/** The process-wide connection to JURY_DB (default data/jury.db), opened and migrated once. */
export function getDb(): Db {
  const file = process.env.JURY_DB || DEFAULT_DB_PATH;
  if (!globalForDb.__juryDb || globalForDb.__juryDbPath !== file) {
    globalForDb.__juryDb = createDb(file);
    globalForDb.__juryDbPath = file;
  }
  return globalForDb.__juryDb;
}
