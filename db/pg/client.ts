import path from "node:path";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import * as pgSchema from "./schema";

/** A PostgreSQL store: drizzle over a node-postgres pool, with the generated schema's tables. */
export type PgDb = NodePgDatabase<typeof pgSchema> & {
  $client: pg.Pool;
  engine: "pg";
  tables: typeof pgSchema;
};

/** PostgreSQL's type ids (pg_type.oid) whose text form node-postgres would hand back as a string. */
const INT8 = 20;
const NUMERIC = 1700;

/**
 * bigint (count(*), every integer column: SQLite's integers are 64-bit) and numeric (sum and avg of
 * integers) come back as JS numbers, as better-sqlite3 returns them, not as strings. Process-wide:
 * node-postgres keeps one table of parsers. A bigint past 2^53 loses precision, as it does from SQLite.
 */
export function installTypeParsers(): void {
  pg.types.setTypeParser(INT8, (v: string) => Number(v));
  pg.types.setTypeParser(NUMERIC, (v: string) => Number(v));
}

/**
 * The key of the advisory lock migrations take (any bigint, fixed: every Jury process on the database
 * asks for the same one). "jury" in ASCII, then "migr".
 */
const MIGRATION_LOCK = 0x6a75_7279_6d69_6772n;

/**
 * The PostgreSQL migrations folder: db/migrations-pg beside the SQLite one (JURY_MIGRATIONS, else
 * db/migrations under the working directory), so the npm package finds its own.
 */
export function pgMigrationsFolder(sqliteFolder: string): string {
  return path.join(path.dirname(sqliteFolder), "migrations-pg");
}

/**
 * Applies pending migrations under a session-level advisory lock: two processes starting together
 * (two workers, a worker and the dashboard) migrate once; the second waits, then finds nothing to do.
 */
export async function migratePg(db: PgDb, migrationsFolder: string): Promise<void> {
  const client = await db.$client.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK.toString()]);
    try {
      await migrate(drizzle(client, { casing: "snake_case" }), { migrationsFolder });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK.toString()]);
    }
  } finally {
    client.release();
  }
}

/** Opens a pool on `url` (`postgres://…`) and applies pending migrations. */
export async function openPg(
  url: string,
  opts: { migrationsFolder: string; poolSize?: number },
): Promise<PgDb> {
  installTypeParsers();
  // allowExitOnIdle: idle clients do not keep a command alive once its work is done
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, allowExitOnIdle: true });
  // an idle client's error (the server restarted) must not end the process: the next query reconnects
  pool.on("error", () => {});
  const db = Object.assign(drizzle(pool, { schema: pgSchema, casing: "snake_case" }), {
    engine: "pg" as const,
    tables: pgSchema,
  });
  try {
    await migratePg(db, opts.migrationsFolder);
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  return db;
}
