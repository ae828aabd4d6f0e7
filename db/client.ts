import type Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { readEnv } from "../lib/env/registry";
import { DATABASE_URL_ENV } from "../lib/env/secrets";
import { JuryError } from "../lib/errors";
import { resolveDbPath } from "./path";
import type { PgDb } from "./pg/client";
import * as schema from "./schema";
import { defaultMigrationsFolder, openSqlite } from "./sqlite";

export type { PgDb };
export { defaultMigrationsFolder };

/** Which engine a store runs on: SQLite (the default, a file) or PostgreSQL (JURY_DATABASE_URL). */
export type Engine = "sqlite" | "pg";

/**
 * A SQLite store: drizzle over better-sqlite3 (synchronous), its engine and its tables. Query
 * functions written with db/op.ts take either store (`AnyDb`) and read the tables from `db.tables`.
 */
export type SqliteDb = BetterSQLite3Database<typeof schema> & {
  $client: Database.Database;
  engine: "sqlite";
  tables: typeof schema;
};

/** The store the existing query functions take (SQLite); becomes AnyDb once they are written with db/op.ts. */
export type Db = AnyDb;

/** Either store. */
export type AnyDb = SqliteDb | PgDb;

/** A drizzle SQLite connection as a store (idempotent: a store is returned as it is). */
export function asSqliteDb(
  db: BetterSQLite3Database<typeof schema> & { $client: Database.Database },
): SqliteDb {
  return Object.assign(db, { engine: "sqlite" as const, tables: schema });
}

/**
 * Opens (creating if needed) a SQLite file, sets WAL, foreign keys and busy_timeout, and
 * applies pending migrations. `:memory:` works for tests.
 */
export function createDb(file: string, opts: { migrationsFolder?: string } = {}): SqliteDb {
  const sqlite = openSqlite(file);
  const db = asSqliteDb(drizzle(sqlite, { schema, casing: "snake_case" }));
  migrate(db, { migrationsFolder: opts.migrationsFolder ?? defaultMigrationsFolder() });
  return db;
}

/**
 * Opens a PostgreSQL store (`postgres://…`): a connection pool, the type parsers that return numbers
 * as SQLite does, and pending migrations applied under an advisory lock (db/pg/client.ts). The
 * migrations folder defaults to db/migrations-pg beside the SQLite one.
 */
export async function createPgDb(
  url: string,
  opts: { migrationsFolder?: string; poolSize?: number } = {},
): Promise<PgDb> {
  // loaded only here: a SQLite process (the hook, every command without JURY_DATABASE_URL) never loads pg
  const { openPg, pgMigrationsFolder } = await import("./pg/client");
  return openPg(url, {
    migrationsFolder: opts.migrationsFolder ?? pgMigrationsFolder(defaultMigrationsFolder()),
    poolSize: opts.poolSize,
  });
}

/** Closes a store: the SQLite file's connection, or the PostgreSQL pool (waiting for its clients). */
export async function closeDb(db: AnyDb): Promise<void> {
  if (db.engine === "pg") await db.$client.end();
  else db.$client.close();
}

const globalForDb = globalThis as unknown as {
  __juryDb?: SqliteDb;
  __juryDbPath?: string;
  __juryPg?: { url: string; db: Promise<PgDb> };
  __juryPgReady?: PgDb;
};

/**
 * The process-wide store: the PostgreSQL database JURY_DATABASE_URL names, else the SQLite file
 * (resolveDbPath), opened and migrated once. On PostgreSQL, `readyDb()` must have been awaited first
 * (the CLI and the dashboard's server do it at start): opening a pool and migrating is asynchronous.
 */
export function getDb(): Db {
  const url = readEnv(DATABASE_URL_ENV);
  if (url) {
    const ready = globalForDb.__juryPgReady;
    if (ready && globalForDb.__juryPg?.url === url) return ready;
    throw new Error(`${DATABASE_URL_ENV} is set: await readyDb() at start-up before getDb()`);
  }
  const file = resolveDbPath();
  if (!globalForDb.__juryDb || globalForDb.__juryDbPath !== file) {
    globalForDb.__juryDb = createDb(file);
    globalForDb.__juryDbPath = file;
  }
  return globalForDb.__juryDb;
}

/**
 * The process-wide store, ready: on PostgreSQL its pool opened and pending migrations applied (under
 * an advisory lock, so processes starting together migrate once); on SQLite what getDb() opens.
 */
export async function readyDb(): Promise<Db> {
  const url = readEnv(DATABASE_URL_ENV);
  if (!url) return getDb();
  if (globalForDb.__juryPg?.url !== url) {
    const db = createPgDb(url);
    globalForDb.__juryPg = { url, db };
    db.then(
      (ready) => {
        if (globalForDb.__juryPg?.url === url) globalForDb.__juryPgReady = ready;
      },
      () => {
        if (globalForDb.__juryPg?.url === url) globalForDb.__juryPg = undefined; // the next call tries again
      },
    );
  }
  try {
    const ready = await globalForDb.__juryPg.db;
    globalForDb.__juryPgReady = ready;
    return ready;
  } catch (err) {
    // the URL may carry a password: name the server, never the URL
    throw new JuryError(
      "db_unreachable",
      `The PostgreSQL store (${DATABASE_URL_ENV}: ${describeStore()}) could not be opened: ${pgMessage(err)}`,
    );
  }
}

/** A connection or migration error's message, without anything of the URL's credentials. */
function pgMessage(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { message?: string } };
  const m = e?.message || e?.cause?.message || String(err);
  const url = readEnv(DATABASE_URL_ENV);
  const password = url ? decodeURIComponent(new URL(url).password) : "";
  return password ? m.split(password).join("***") : m;
}

/** Where the store is, for a person: the SQLite file, or the PostgreSQL server and database (no password). */
export function describeStore(): string {
  const url = readEnv(DATABASE_URL_ENV);
  if (!url) return resolveDbPath();
  const u = new URL(url);
  return `PostgreSQL ${u.hostname}${u.port ? `:${u.port}` : ""}${u.pathname}`;
}
