import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createDb } from "./client";

describe("createDb", () => {
  it("creates the folder, applies migrations, and sets WAL, foreign keys and busy_timeout", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-db-"));
    const file = path.join(dir, "nested", "jury.db");
    const db = createDb(file);
    expect(fs.existsSync(file)).toBe(true);
    expect(db.$client.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.$client.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.$client.pragma("busy_timeout", { simple: true })).toBe(10000);
    const tables = db.$client.prepare("select name from sqlite_master where type = 'table'").pluck().all();
    expect(tables).toEqual(
      expect.arrayContaining(["settings", "runs", "tasks", "samples", "results", "response_cache"]),
    );
    db.$client.close();
    // applying migrations again is a no-op
    const again = createDb(file);
    const journal = JSON.parse(
      fs.readFileSync(path.join("db", "migrations", "meta", "_journal.json"), "utf8"),
    );
    expect(again.$client.prepare("select count(*) from __drizzle_migrations").pluck().get()).toBe(
      journal.entries.length,
    );
  });
});
