// The memory hook's own statements (lib/cli/memory-hook.ts), on its SQLite connection. Kept free of
// drizzle: the hook's small bundle (dist/hook.cjs) loads it on every prompt. The hook stays on SQLite.
import type { SqlDb } from "../sqlite";
import { stmt } from "./statements";

/** The stored settings row's JSON text (the quick path checks its memory-judge block), or undefined. */
export function storedSettingsJson(db: SqlDb): string | undefined {
  return stmt(db, "select data from settings where id = 1").pluck().get() as string | undefined;
}

/**
 * How many memories the database holds, read before pending migrations are applied; throws when
 * there is no memories table yet (a new database).
 */
export function memoryRowCount(db: SqlDb): number {
  return Number(stmt(db, "select count(*) from memories").pluck().get());
}

/** The connection's lock wait (busy_timeout), in whole milliseconds. */
export function setBusyTimeout(db: SqlDb, ms: number): void {
  db.$client.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(ms))}`);
}
