import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import Database from "better-sqlite3";
import DatabaseNapi from "better-sqlite3-napi";

/**
 * The raw connection layer, without drizzle: the memory hook starts a process per prompt and uses
 * only this (and `db/queries/memories-sqlite.ts`, `db/queries/memory-hook.ts`) so it does not pay for
 * loading the ORM.
 */
export type SqlDb = { $client: Database.Database };

/** The migrations folder: JURY_MIGRATIONS, else db/migrations under the working directory. */
export function defaultMigrationsFolder(): string {
  return process.env.JURY_MIGRATIONS ?? path.join(process.cwd(), "db", "migrations");
}

type Driver = typeof Database;

let napiOptions: { nativeBinding?: string } | null | undefined;

/** musl's loader mapped into this process (Alpine): better-sqlite3 13's own test, without its fallback. */
function linuxMusl(): boolean {
  try {
    return /\/ld-musl-[^/\s]*\.so/.test(fs.readFileSync("/proc/self/maps", "latin1"));
  } catch {
    return false;
  }
}

/**
 * better-sqlite3 13's addon by path, for a bundle that carries its JavaScript away from its package
 * (the hook's); undefined where it cannot be resolved from here (the dashboard's server, whose
 * import.meta.url names the build machine's source file): there the package, loaded as installed,
 * finds its own addon.
 */
function napiBinding(): string | undefined {
  try {
    const dir = path.dirname(createRequire(import.meta.url).resolve("better-sqlite3-napi/package.json"));
    const target = `${process.platform === "linux" && linuxMusl() ? "linuxmusl" : process.platform}-${process.arch}`;
    return [
      path.join(dir, "build", "Release", "better_sqlite3.node"), // compiled on purpose
      path.join(dir, "prebuilds", `${target}.node`),
    ].find((f) => fs.existsSync(f));
  } catch {
    return undefined;
  }
}

/**
 * The options that open a database with better-sqlite3 13 (a Node-API addon, prebuilt for each
 * platform; the package is installed under the name better-sqlite3-napi) where it loads, that is on
 * Node 22 and later; else null. Version 12's addon (node::ObjectWrap) registers an environment cleanup
 * hook for every statement, and Node 24 checks the current environment when a statement is freed: one
 * freed by the garbage collector outside it, or while the process tears down, aborts Node
 * (`Assertion failed: (env) != nullptr`, exit 134). Version 13 does not run on Node 20, where version
 * 12 serves.
 */
function loadNapi(): { nativeBinding?: string } | null {
  if (napiOptions !== undefined) return napiOptions;
  napiOptions = null;
  if (Number(process.versions.node.split(".")[0]) < 22) return null;
  const nativeBinding = napiBinding();
  const options = nativeBinding ? { nativeBinding } : {};
  try {
    new DatabaseNapi(":memory:", options).close(); // a platform where it cannot load falls back
    napiOptions = options;
  } catch {}
  return napiOptions;
}

/** The better-sqlite3 that opens databases in this process (tests open theirs with it too). */
export function sqliteDriver(): Driver {
  return loadNapi() ? DatabaseNapi : Database;
}

/**
 * Opens (creating the folder if needed) a SQLite file with WAL, foreign keys and busy_timeout
 * (10 s, or `busyTimeoutMs`: the memory hook gives it only what its time budget has left).
 * `nativeBinding` (version 12's addon, see nativeBindingPath) applies only where version 12 serves.
 */
export function openSqlite(
  file: string,
  opts: { nativeBinding?: string; mmapBytes?: number; busyTimeoutMs?: number } = {},
): Database.Database {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const napi = loadNapi();
  const sqlite = napi
    ? new DatabaseNapi(file, napi)
    : new Database(file, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {});
  // one exec for the four (each pragma() call prepares its own statement); the busy timeout first,
  // so switching a new file to WAL waits for another connection's lock instead of failing
  const busy = Math.max(0, Math.floor(opts.busyTimeoutMs ?? 10_000));
  sqlite.exec(
    `PRAGMA busy_timeout = ${busy}; PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;`,
  );
  if (opts.mmapBytes) sqlite.exec(`PRAGMA mmap_size = ${Math.floor(opts.mmapBytes)}`);
  return sqlite;
}

/**
 * better-sqlite3 12's compiled addon, when it sits where its build puts it. Naming it spares the
 * `bindings` package's search (a few milliseconds, which the hook pays on every prompt).
 */
export function nativeBindingPath(): string | undefined {
  try {
    const main = createRequire(import.meta.url).resolve("better-sqlite3");
    const file = path.join(path.dirname(main), "..", "build", "Release", "better_sqlite3.node");
    return fs.existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when the newest migration of the folder's journal is recorded in the database, the check
 * drizzle's migrator makes before it applies anything (it runs every migration newer than the last
 * recorded `created_at`). Anything unexpected answers false, and the caller migrates.
 */
export function migrationsUpToDate(sqlite: Database.Database, migrationsFolder: string): boolean {
  try {
    const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8"));
    const last = Math.max(...(journal.entries as { when: number }[]).map((e) => e.when));
    const applied = sqlite.prepare("select max(created_at) from __drizzle_migrations").pluck().get();
    return Number.isFinite(last) && applied != null && Number(applied) >= last;
  } catch {
    return false;
  }
}
