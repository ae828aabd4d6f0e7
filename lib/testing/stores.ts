// The stores a test of the store runs against: SQLite always, PostgreSQL too when
// JURY_TEST_DATABASE_URL names a server (.ci/run sets it; in CI a test fails without it). Each test
// gets a store of its own: a fresh SQLite file, or a database created on that server for the test and
// dropped after it, so tests never see each other's rows and may run in parallel.
//
//   describe.each(storeKinds())("on %s", (kind) => {
//     let store: Store;
//     beforeEach(async () => { store = await freshStore(kind); });
//     afterEach(() => store.close());
//     …
//   });
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import {
  type AnyDb,
  closeDb,
  createDb,
  createPgDb,
  defaultMigrationsFolder,
  type PgDb,
  type SqliteDb,
} from "@/db/client";
import { pgMigrationsFolder } from "@/db/pg/client";
import { readEnv } from "../env/registry";

export type StoreKind = "sqlite" | "pg";

export type Store<D extends AnyDb = AnyDb> = {
  kind: StoreKind;
  db: D;
  /** closes the store and removes it (the file, or the database) */
  close: () => Promise<void>;
};

/** ["sqlite"], and "pg" when JURY_TEST_DATABASE_URL is set. */
export function storeKinds(env: Record<string, string | undefined> = process.env): StoreKind[] {
  return readEnv("JURY_TEST_DATABASE_URL", env) ? ["sqlite", "pg"] : ["sqlite"];
}

/** The server's URL for tests; an error when unset (a test asked for PostgreSQL without one). */
function testServerUrl(): string {
  const url = readEnv("JURY_TEST_DATABASE_URL");
  if (!url) throw new Error("JURY_TEST_DATABASE_URL is not set: no PostgreSQL server for this test");
  return url;
}

/** `url` with its database replaced by `name`. */
function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs statements on the test server's own database (CREATE and DROP DATABASE run outside a transaction). */
async function onServer(...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: testServerUrl() });
  await client.connect();
  try {
    for (const s of statements) await client.query(s);
  } finally {
    await client.end();
  }
}

/** How the template is made, in its name's hash with the migrations': a change makes a new one. */
const TEMPLATE_RECIPE = "icu en-US; migrations";

/** The advisory lock that one process at a time builds the template under. */
const TEMPLATE_LOCK = "7024580233";

/**
 * A migrated database that each test's database is copied from (CREATE DATABASE … TEMPLATE), built
 * once per version of the migrations (its name carries their hash) by whichever test process comes
 * first: migrating a database costs seconds on a busy machine, copying one a fraction of that. Built
 * under another name and renamed when complete, so a process that died half-way leaves no template.
 */
async function template(): Promise<string> {
  const folder = pgMigrationsFolder(defaultMigrationsFolder());
  const hash = createHash("sha256").update(TEMPLATE_RECIPE);
  for (const f of fs.readdirSync(folder, { recursive: true }).map(String).sort()) {
    const file = path.join(folder, f);
    if (fs.statSync(file).isFile()) hash.update(f).update(fs.readFileSync(file));
  }
  const name = `jury_tpl_${hash.digest("hex").slice(0, 16)}`;
  const client = new pg.Client({ connectionString: testServerUrl() });
  await client.connect();
  try {
    await client.query(`select pg_advisory_lock(${TEMPLATE_LOCK})`);
    const exists = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (!exists.rowCount) {
      const building = `${name}_building`;
      await client.query(`drop database if exists "${building}" with (force)`);
      // a linguistic default collation, as most servers have (en_US), not the C this one may have:
      // text must compare byte by byte because of the schema's own collation, not the server's
      await client.query(
        `create database "${building}" template template0 locale_provider icu icu_locale 'en-US' locale 'C.UTF-8'`,
      );
      await closeDb(await createPgDb(withDatabase(testServerUrl(), building), { poolSize: 1 }));
      await client.query(`alter database "${building}" rename to "${name}"`);
    }
  } finally {
    await client.end(); // the advisory lock ends with the session
  }
  return name;
}

let templateName: Promise<string> | undefined;

/** An empty database (no migrations) on the test server, for a test of migrating; `drop` removes it. */
export async function emptyPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `jury_t_${process.pid}_${randomBytes(6).toString("hex")}`;
  await onServer(`create database "${name}"`);
  return {
    url: withDatabase(testServerUrl(), name),
    drop: () => onServer(`drop database if exists "${name}" with (force)`),
  };
}

export async function freshStore(kind: "sqlite"): Promise<Store<SqliteDb>>;
export async function freshStore(kind: "pg"): Promise<Store<PgDb>>;
export async function freshStore(kind: StoreKind): Promise<Store>;
/** A new, migrated, empty store of that kind (see the top of this file). */
export async function freshStore(kind: StoreKind): Promise<Store> {
  if (kind === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-store-"));
    const db = createDb(path.join(dir, "jury.db"));
    return {
      kind,
      db,
      close: async () => {
        await closeDb(db);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  // a name no other test (or process, or machine) picks: the server may be shared
  const name = `jury_t_${process.pid}_${randomBytes(6).toString("hex")}`;
  templateName ??= template();
  await onServer(`create database "${name}" template "${await templateName}"`);
  let db: PgDb;
  try {
    db = await createPgDb(withDatabase(testServerUrl(), name), { poolSize: 4 });
  } catch (err) {
    await onServer(`drop database if exists "${name}" with (force)`).catch(() => {});
    throw err;
  }
  return {
    kind,
    db,
    close: async () => {
      await closeDb(db);
      await onServer(`drop database if exists "${name}" with (force)`);
    },
  };
}
