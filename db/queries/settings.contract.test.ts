import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { one, query } from "../op";
import { getSettingsData, saveSettingsData, updateSettingsData } from "./settings";

const storedRow = query(function* (db) {
  return yield* one(db.select().from(db.tables.settings));
});

describe.each(storeKinds())("settings on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("is undefined before the first save; a save replaces the one row", async () => {
    const db = store.db;
    expect(await getSettingsData(db)).toBeUndefined();
    const first = {
      memoryJudge: { enabled: false, collection: "ä😀" },
      n: 0.1 + 0.2,
      list: [3, 1, 2],
      none: null,
    };
    const t0 = Date.now();
    await saveSettingsData(db, first);
    expect(await getSettingsData(db)).toEqual(first);
    const row = await storedRow(db);
    expect(row?.id).toBe(1);
    expect(row?.updatedAt.getTime()).toBeGreaterThanOrEqual(t0);
    expect(row?.updatedAt.getTime()).toBeLessThanOrEqual(Date.now());

    const second = { z: 1, a: { b: [] } };
    await saveSettingsData(db, second);
    const got = await getSettingsData(db);
    expect(got).toEqual(second);
    expect(Object.keys(got as object)).toEqual(["z", "a"]); // key order kept
    expect((await storedRow(db))?.updatedAt.getTime()).toBeGreaterThanOrEqual(row?.updatedAt.getTime() ?? 0);
  });

  it("updates from what is stored, saves nothing when the change throws, loses no concurrent update", async () => {
    const db = store.db;
    const seen: unknown[] = [];
    await updateSettingsData(db, (stored) => {
      seen.push(stored);
      return { n: 1 };
    });
    expect(seen).toEqual([undefined]);
    expect(await getSettingsData(db)).toEqual({ n: 1 });
    await expect(
      Promise.resolve().then(() =>
        updateSettingsData(db, () => {
          throw new Error("invalid settings");
        }),
      ),
    ).rejects.toThrow("invalid settings");
    expect(await getSettingsData(db)).toEqual({ n: 1 });
    const bump = (stored: unknown) => ({ n: (stored as { n: number }).n + 1 });
    await Promise.all(Array.from({ length: 6 }, () => updateSettingsData(db, bump)));
    expect(await getSettingsData(db)).toEqual({ n: 7 });
  });
});
