import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";
import { runJurySync } from "@/lib/testing/run-jury";
import { openSqlite, sqliteDriver } from "./sqlite";

const major = Number(process.versions.node.split(".")[0]);
const requireHere = createRequire(import.meta.url);

describe("the SQLite driver on every Node LTS (npm test runs these on Node 24 too)", () => {
  it("opens databases with better-sqlite3 13 (Node-API) from Node 22 on, with version 12 on Node 20", () => {
    const expected = major >= 22 ? requireHere("better-sqlite3-napi") : requireHere("better-sqlite3");
    expect(sqliteDriver()).toBe(expected);
    const db = openSqlite(path.join(tempDir(), "driver.db"));
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("a process that prepares many statements and exits ends normally (better-sqlite3 12 aborted Node 24 with exit 134)", () => {
    const env = { JURY_DB: path.join(tempDir(), "exit.db") };
    // a fresh database: every migration prepares and drops statements; then a few thousand more
    for (const args of [
      ["db", "migrate"],
      ["memory", "import-example"],
      ["memory", "search", "--collection", "shop-api", "stripe webhook retries"],
    ]) {
      const r = runJurySync(args, { env });
      expect({ args, status: r.code, signal: r.stderr.match(/Assertion failed.*/)?.[0] }).toEqual({
        args,
        status: 0,
        signal: undefined,
      });
    }
  });
});
