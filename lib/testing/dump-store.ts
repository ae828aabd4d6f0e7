// Every row of every table of a store, in a form two dumps compare with toEqual: the tests that say
// "this changed nothing" (test/security/roles.test.ts) take one before and one after. Tables are
// found in the store's own catalogue, so a table added by a later migration is covered too.
import type { AnyDb } from "@/db/client";

export type StoreDump = Record<string, string[]>;

/** A value as comparable JSON: bytes as hex, dates as ISO text, big integers as text. */
function plain(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return `bytes:${value.toString("hex")}`;
  if (value instanceof Date) return `date:${value.toISOString()}`;
  if (typeof value === "bigint") return `bigint:${value}`;
  return value;
}

/** One row as JSON with its columns sorted, so a dump does not depend on column order. */
function rowText(row: Record<string, unknown>): string {
  return JSON.stringify(
    Object.fromEntries(
      Object.keys(row)
        .sort()
        .map((k) => [k, plain(row[k])]),
    ),
  );
}

/** The rows of each table as sorted JSON lines, by table name (SQLite's or the current PostgreSQL schema's). */
export async function dumpStore(db: AnyDb): Promise<StoreDump> {
  const out: StoreDump = {};
  if (db.engine === "sqlite") {
    const names = db.$client
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
      )
      .pluck()
      .all() as string[];
    for (const name of names) {
      const rows = db.$client.prepare(`select * from "${name.replace(/"/g, '""')}"`).all() as Record<
        string,
        unknown
      >[];
      out[name] = rows.map(rowText).sort();
    }
    return out;
  }
  const tables = await db.$client.query<{ table_schema: string; table_name: string }>(
    "select table_schema, table_name from information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') order by 1, 2",
  );
  for (const t of tables.rows) {
    const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
    const rows = await db.$client.query<Record<string, unknown>>(
      `select * from ${q(t.table_schema)}.${q(t.table_name)}`,
    );
    out[`${t.table_schema}.${t.table_name}`] = rows.rows.map(rowText).sort();
  }
  return out;
}
