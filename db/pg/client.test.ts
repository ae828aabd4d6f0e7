import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { emptyPgDatabase, storeKinds } from "@/lib/testing/stores";
import { closeDb, createPgDb } from "../client";

describe.skipIf(!storeKinds().includes("pg"))("PostgreSQL store: connection and migrations", () => {
  it("processes starting together migrate once (the advisory lock), and the next start applies nothing", async () => {
    const { url, drop } = await emptyPgDatabase();
    try {
      // four pools at once on an empty database: without the lock they would race to create the tables
      const dbs = await Promise.all([1, 2, 3, 4].map(() => createPgDb(url, { poolSize: 2 })));
      await Promise.all(dbs.map((db) => closeDb(db)));
      const journal = JSON.parse(
        fs.readFileSync(path.join("db", "migrations-pg", "meta", "_journal.json"), "utf8"),
      );
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const applied = await client.query("select count(*)::int as n from drizzle.__drizzle_migrations");
        expect(applied.rows[0].n).toBe(journal.entries.length);
        const again = await createPgDb(url);
        await closeDb(again);
        const after = await client.query("select count(*)::int as n from drizzle.__drizzle_migrations");
        expect(after.rows[0].n).toBe(journal.entries.length);
      } finally {
        await client.end();
      }
    } finally {
      await drop();
    }
  });

  it("bigint and numeric come back as numbers, as better-sqlite3 returns them", async () => {
    const { url, drop } = await emptyPgDatabase();
    try {
      const db = await createPgDb(url, { poolSize: 1 });
      const r = await db.$client.query(
        "select 9007199254740991::bigint as big, 2.5::numeric as num, count(*) as n from runs",
      );
      expect(r.rows[0]).toEqual({ big: 9007199254740991, num: 2.5, n: 0 });
      await closeDb(db);
    } finally {
      await drop();
    }
  });
});
