import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { query, write } from "../op";
import type { ReviewRecord } from "../schema";
import { getReview, insertReview, listReviews, listUnstoredReviewJobs } from "./reviews";

const RECORD = {
  context: { "z-first": "ä😀", "a-second": [1, 0.1 + 0.2, null] },
  gate: null,
  samples: [],
} as unknown as ReviewRecord;

const review = (id: string, extra: Partial<Parameters<typeof insertReview>[1]> = {}) => ({
  id,
  title: `review ${id}`,
  verdict: "pass" as const,
  verdictSource: "judge" as const,
  score: 0.75,
  mechanicalScore: null,
  blendedScore: 0.5,
  diff: "--- a\n+++ b\n",
  record: RECORD,
  ...extra,
});

/** Sets a review's creation time (insertReview takes now). */
const setCreatedAt = query(function* (db, id: string, at: Date) {
  const { reviews } = db.tables;
  yield* write(db.update(reviews).set({ createdAt: at }).where(eq(reviews.id, id)));
});
const addJob = query(function* (
  db,
  id: string,
  kind: "review" | "run",
  at: Date,
  extra: { status?: "queued" | "running" | "failed"; error?: string; startedAt?: Date } = {},
) {
  yield* write(db.insert(db.tables.jobs).values({ id, kind, createdAt: at, done: 1, total: 3, ...extra }));
});

describe.each(storeKinds())("review queries on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("inserts and gets a review: JSON record, null scores, creation time", async () => {
    const { db } = store;
    expect(await getReview(db, "r1")).toBeUndefined();
    const before = Date.now();
    await insertReview(db, review("r1"));
    const r = await getReview(db, "r1");
    expect(r).toMatchObject({ ...review("r1"), mechanicalScore: null });
    expect(JSON.stringify(r?.record)).toBe(JSON.stringify(RECORD));
    expect(r?.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    await expect(async () => insertReview(db, review("r1"))).rejects.toThrow();
  });

  it("lists reviews newest first, up to a limit", async () => {
    const { db } = store;
    expect(await listReviews(db)).toEqual([]);
    for (const [id, at] of [
      ["r1", 1000],
      ["r2", 5000],
      ["r3", -1],
      ["r4", 3000],
    ] as const) {
      await insertReview(
        db,
        review(id, { verdict: id === "r3" ? "fail" : "pass", score: id === "r3" ? null : 1 }),
      );
      await setCreatedAt(db, id, new Date(at));
    }
    expect((await listReviews(db)).map((r) => r.id)).toEqual(["r2", "r4", "r1", "r3"]);
    const two = await listReviews(db, { limit: 2 });
    expect(two.map((r) => r.id)).toEqual(["r2", "r4"]);
    expect((await listReviews(db)).at(-1)).toMatchObject({
      verdict: "fail",
      score: null,
      createdAt: new Date(-1),
    });
  });

  it("lists review jobs with no stored review, newest first, up to a limit", async () => {
    const { db } = store;
    expect(await listUnstoredReviewJobs(db)).toEqual([]);
    await addJob(db, "j-old", "review", new Date(1000), {
      status: "failed",
      error: "boom",
      startedAt: new Date(1500),
    });
    await addJob(db, "j-new", "review", new Date(3000));
    await addJob(db, "j-stored", "review", new Date(4000), { status: "running" });
    await addJob(db, "j-run", "run", new Date(5000));
    await insertReview(db, review("j-stored"));
    const jobs = await listUnstoredReviewJobs(db);
    expect(jobs).toEqual([
      {
        id: "j-new",
        status: "queued",
        done: 1,
        total: 3,
        errors: 0,
        error: null,
        createdAt: new Date(3000),
        startedAt: null,
        finishedAt: null,
      },
      {
        id: "j-old",
        status: "failed",
        done: 1,
        total: 3,
        errors: 0,
        error: "boom",
        createdAt: new Date(1000),
        startedAt: new Date(1500),
        finishedAt: null,
      },
    ]);
    expect((await listUnstoredReviewJobs(db, { limit: 1 })).map((j) => j.id)).toEqual(["j-new"]);
  });
});
