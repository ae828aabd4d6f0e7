import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store } from "@/lib/testing/stores";
import type { SqliteDb } from "../client";
import { openSqlite } from "../sqlite";
import { upsertMemories } from "./memories";
import { memoryRowCount, setBusyTimeout, storedSettingsJson } from "./memory-hook";
import { saveSettingsData } from "./settings";

// The hook stays on SQLite: these run on its drizzle-free connection ({ $client }).
describe("the memory hook's statements", () => {
  let store: Store<SqliteDb>;
  beforeEach(async () => {
    store = await freshStore("sqlite");
  });
  afterEach(() => store.close());

  it("reads the stored settings as JSON text, counts memories, sets the lock wait", () => {
    const db = { $client: store.db.$client };
    expect(storedSettingsJson(db)).toBeUndefined();
    saveSettingsData(store.db, { memoryJudge: { enabled: false } });
    expect(JSON.parse(storedSettingsJson(db) as string)).toEqual({ memoryJudge: { enabled: false } });
    expect(memoryRowCount(db)).toBe(0);
    upsertMemories(store.db, "c", [{ memoryId: "m", category: "n", title: "t", tags: [], body: "" }]);
    upsertMemories(store.db, "d", [{ memoryId: "m", category: "n", title: "t", tags: [], body: "" }]);
    expect(memoryRowCount(db)).toBe(2);
    setBusyTimeout(db, 1234.9);
    expect(store.db.$client.pragma("busy_timeout", { simple: true })).toBe(1234);
  });

  it("counting memories throws on a database without the table (a new one)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-hook-"));
    const sqlite = openSqlite(path.join(dir, "new.db"));
    try {
      expect(() => memoryRowCount({ $client: sqlite })).toThrow(/no such table: memories/);
    } finally {
      sqlite.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
