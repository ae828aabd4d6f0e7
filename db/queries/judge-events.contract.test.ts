import { asc } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { all, query } from "../op";
import { takeJudgmentSlot } from "./judge-events";

const events = query(function* (db) {
  const { judgeEvents } = db.tables;
  return (yield* all(db.select().from(judgeEvents).orderBy(asc(judgeEvents.id)))).map((e) => [
    e.kind,
    e.at.getTime(),
  ]);
});

const HOUR = 3_600_000;

describe.each(storeKinds())("judge events on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("gives `limit` slots per kind in a rolling hour, and records only the slots given", async () => {
    const db = store.db;
    const t = 1_700_000_000_000;
    expect(await takeJudgmentSlot(db, "review", 2, t)).toBe(true);
    expect(await takeJudgmentSlot(db, "review", 2, t + 1)).toBe(true);
    expect(await takeJudgmentSlot(db, "review", 2, t + 2)).toBe(false);
    expect(await takeJudgmentSlot(db, "other", 1, t + 2)).toBe(true);
    expect(await takeJudgmentSlot(db, "other", 1, t + 3)).toBe(false);
    expect(await takeJudgmentSlot(db, "none", 0, t)).toBe(false);
    // an hour after the first: it is no longer counted (at > now − 1 h), the second still is
    expect(await takeJudgmentSlot(db, "review", 2, t + HOUR)).toBe(true);
    expect(await takeJudgmentSlot(db, "review", 2, t + HOUR)).toBe(false);
    // and a millisecond later the second is not either
    expect(await takeJudgmentSlot(db, "review", 2, t + HOUR + 1)).toBe(true);
    expect(await events(db)).toEqual([
      ["review", t],
      ["review", t + 1],
      ["other", t + 2],
      ["review", t + HOUR],
      ["review", t + HOUR + 1],
    ]);
  });

  it("holds the limit for takers at the same time", async () => {
    const db = store.db;
    const t = 1_700_000_000_000;
    const taken = await Promise.all(Array.from({ length: 8 }, () => takeJudgmentSlot(db, "k", 3, t)));
    expect(taken.filter(Boolean)).toHaveLength(3);
    expect(await events(db)).toHaveLength(3);
  });
});
