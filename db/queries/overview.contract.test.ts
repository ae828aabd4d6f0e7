import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { exec, one, query, rows, write } from "../op";
import type { RetrievalConfig, RunOptions, RunStatus } from "../schema";
import { getOverview, getRecentActivity } from "./overview";

const options = (judges: string[], n: number): RunOptions => ({
  judges,
  n,
  temperature: 0,
  concurrency: 1,
  noCache: false,
});

const addRun = query(function* (
  db,
  r: { id: string; status: RunStatus; at: number; judges?: string[]; n?: number; totalTasks?: number },
) {
  yield* write(
    db.insert(db.tables.runs).values({
      id: r.id,
      suitePath: "s.yaml",
      suiteName: `suite ${r.id}`,
      status: r.status,
      options: options(r.judges ?? ["local:a"], r.n ?? 1),
      totalTasks: r.totalTasks ?? 0,
      createdAt: new Date(r.at),
    }),
  );
});
/** Tasks of a run by status; a sample for the first. */
const addTasks = query(function* (db, runId: string, statuses: ("pending" | "done" | "error")[]) {
  const { tasks, samples } = db.tables;
  for (const [i, status] of statuses.entries()) {
    const base = { runId, caseId: `c${i}`, criterionId: "k", judge: "local:a", sampleIndex: 0 };
    const t = yield* one(
      db
        .insert(tasks)
        .values({ ...base, key: `t${i}`, status })
        .returning({ id: tasks.id }),
    );
    if (i === 0) yield* write(db.insert(samples).values({ ...base, taskId: t?.id ?? 0 }));
  }
});
const addOthers = query(function* (db) {
  const { experiments, memories, reviews } = db.tables;
  const config = { kind: "bm25" } as unknown as RetrievalConfig;
  for (const [id, at] of [
    ["e1", 100],
    ["e3", 300],
    ["e2", 300],
  ] as const)
    yield* write(
      db
        .insert(experiments)
        .values({ id, collection: "c", label: `l ${id}`, config, status: "done", createdAt: new Date(at) }),
    );
  // SQLite keeps a collection's memories in one rowid range (migration 0008); PostgreSQL numbers them itself
  let base: number | undefined;
  if (db.engine === "sqlite") {
    yield* exec(db, sql`insert into memory_collections (name) values ('c')`);
    const [c] = yield* rows<{ id: number }>(db, sql`select id from memory_collections where name = 'c'`);
    base = c.id * 2 ** 32;
  }
  for (const [i, id] of ["m1", "m2"].entries())
    yield* write(
      db.insert(memories).values({
        ...(base === undefined ? {} : { rowid: base + i + 1 }),
        collection: "c",
        memoryId: id,
        category: "x",
        title: id,
        tags: [],
      }),
    );
  for (const [id, at, score] of [
    ["rv1", 50, null],
    ["rv2", 60, 0.5],
  ] as const)
    yield* write(
      db.insert(reviews).values({
        id,
        title: `t ${id}`,
        verdict: "partial",
        verdictSource: "gate",
        score,
        diff: "",
        record: { context: {}, samples: [] } as never,
        createdAt: new Date(at),
      }),
    );
});

describe.each(storeKinds())("overview queries on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("counts nothing in an empty store", async () => {
    expect(await getOverview(store.db)).toEqual({
      runs: 0,
      runningRuns: 0,
      samples: 0,
      memories: 0,
      experiments: 0,
      reviews: 0,
    });
    expect(await getRecentActivity(store.db)).toEqual({ runs: [], experiments: [], reviews: [] });
  });

  it("counts runs, running runs, samples, memories, experiments and reviews", async () => {
    const { db } = store;
    await addRun(db, { id: "r1", status: "running", at: 1 });
    await addRun(db, { id: "r2", status: "done", at: 2 });
    await addRun(db, { id: "r3", status: "running", at: 3 });
    await addTasks(db, "r1", ["done"]);
    await addTasks(db, "r2", ["done", "error"]);
    await addOthers(db);
    expect(await getOverview(db)).toEqual({
      runs: 3,
      runningRuns: 2,
      samples: 2,
      memories: 2,
      experiments: 3,
      reviews: 2,
    });
  });

  it("gives the newest runs with their progress, experiments and reviews, newest first (ties: higher id first)", async () => {
    const { db } = store;
    await addRun(db, { id: "r-old", status: "done", at: 1000, totalTasks: 2 });
    await addRun(db, { id: "r-a", status: "running", at: 5000, judges: ["x", "ä"], n: 3, totalTasks: 4 });
    await addRun(db, { id: "r-b", status: "queued", at: 5000 });
    await addTasks(db, "r-a", ["pending", "done", "error", "error"]);
    await addTasks(db, "r-old", ["done", "done"]);
    await addOthers(db);
    const a = await getRecentActivity(db);
    expect(a.runs).toEqual([
      {
        id: "r-b",
        suiteName: "suite r-b",
        status: "queued",
        createdAt: new Date(5000),
        judges: ["local:a"],
        n: 1,
        totalTasks: 0,
        finished: 0,
        failed: 0,
      },
      {
        id: "r-a",
        suiteName: "suite r-a",
        status: "running",
        createdAt: new Date(5000),
        judges: ["x", "ä"],
        n: 3,
        totalTasks: 4,
        finished: 3,
        failed: 2,
      },
      {
        id: "r-old",
        suiteName: "suite r-old",
        status: "done",
        createdAt: new Date(1000),
        judges: ["local:a"],
        n: 1,
        totalTasks: 2,
        finished: 2,
        failed: 0,
      },
    ]);
    expect(a.experiments).toEqual([
      { id: "e3", collection: "c", label: "l e3", status: "done", createdAt: new Date(300) },
      { id: "e2", collection: "c", label: "l e2", status: "done", createdAt: new Date(300) },
      { id: "e1", collection: "c", label: "l e1", status: "done", createdAt: new Date(100) },
    ]);
    expect(a.reviews).toEqual([
      { id: "rv2", title: "t rv2", verdict: "partial", score: 0.5, createdAt: new Date(60) },
      { id: "rv1", title: "t rv1", verdict: "partial", score: null, createdAt: new Date(50) },
    ]);
    const limited = await getRecentActivity(db, 1);
    expect(limited.runs.map((r) => r.id)).toEqual(["r-b"]);
    expect(limited.experiments.map((e) => e.id)).toEqual(["e3"]);
    expect(limited.reviews.map((r) => r.id)).toEqual(["rv2"]);
  });
});
