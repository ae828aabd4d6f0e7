import { customType } from "drizzle-orm/pg-core";

/**
 * PostgreSQL columns that store what SQLite stores, the same way, so a value written by one engine
 * reads back equal on the other, and compares and sorts the same (db/pg/schema.ts is generated from
 * db/schema.ts with these; scripts/gen-pg-schema.mjs maps each SQLite column to one of them):
 *
 * - text with the "C" collation: byte order, as SQLite's BINARY (a database's own collation, often
 *   en_US, would put "B" before "a" and "a" before "B" on the other engine);
 * - timestamps as whole milliseconds since the epoch in a bigint (SQLite's `timestamp_ms` integers),
 *   read back as Date;
 * - booleans as the integers 0 and 1 (SQLite has no boolean), so SQL written once (`cached = 0`)
 *   holds on both;
 * - JSON as text (C collation), parsed on read, as SQLite's `mode: "json"` text.
 */

/** The type SQL sees: text compared byte by byte. */
const C_TEXT = 'text COLLATE "C"';

export const ctext = customType<{ data: string; driverData: string }>({
  dataType: () => C_TEXT,
});

export const timestampMs = customType<{ data: Date; driverData: number | string }>({
  dataType: () => "bigint",
  toDriver: (value) => value.getTime(),
  fromDriver: (value) => new Date(Number(value)),
});

export const bool01 = customType<{ data: boolean; driverData: number }>({
  dataType: () => "integer",
  toDriver: (value) => (value ? 1 : 0),
  // as drizzle's SQLite boolean: 1 is true, anything else false
  fromDriver: (value) => Number(value) === 1,
});

export const jsonText = customType<{ data: unknown; driverData: string }>({
  dataType: () => C_TEXT,
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => JSON.parse(value),
});
