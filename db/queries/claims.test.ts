import { asc, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { all, query, write } from "../op";
import type { RunOptions } from "../schema";
import {
  beatWorker,
  claimTasks,
  claimTasksById,
  liveWorkers,
  openTasks,
  pruneWorkers,
  releaseClaims,
  removeWorker,
  upsertWorker,
} from "./claims";

const OPTIONS = { judges: ["a:x"], n: 1, concurrency: 4 } as unknown as RunOptions;

/** A run with `judges.length × perJudge` pending tasks, ids in judge order. */
const seedRun = query(function* (db, runId: string, judges: string[], perJudge: number) {
  const { runs, tasks } = db.tables;
  yield* write(
    db.insert(runs).values({ id: runId, suitePath: "s", suiteName: "s", options: OPTIONS, totalTasks: 0 }),
  );
  const rows = judges.flatMap((judge) =>
    Array.from({ length: perJudge }, (_, i) => ({
      runId,
      key: `${judge}#${i}`,
      caseId: "c",
      criterionId: "k",
      judge,
      sampleIndex: i,
    })),
  );
  for (let i = 0; i < rows.length; i += 200) yield* write(db.insert(tasks).values(rows.slice(i, i + 200)));
});

const taskRows = query(function* (db, runId: string) {
  const { tasks } = db.tables;
  return yield* all(db.select().from(tasks).where(eq(tasks.runId, runId)).orderBy(asc(tasks.id)));
});

const finishTask = query(function* (db, id: number) {
  const { tasks } = db.tables;
  yield* write(db.update(tasks).set({ status: "done" }).where(eq(tasks.id, id)));
});

const WIDE = { concurrency: 1000, perProviderConcurrency: 1000 };
const t0 = new Date(1_700_000_000_000);
const later = (ms: number) => new Date(t0.getTime() + ms);

describe.each(storeKinds())("task claims on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  const claim = (workerId: string, max: number, extra: Partial<Parameters<typeof claimTasks>[1]> = {}) =>
    claimTasks(store.db, {
      runId: "r",
      workerId,
      max,
      now: t0,
      until: later(30_000),
      limits: WIDE,
      ...extra,
    });

  it("claims free tasks in task order, never one another worker holds", async () => {
    await seedRun(store.db, "r", ["a:x"], 10);
    const ids = (await taskRows(store.db, "r")).map((t) => t.id);
    const first = await claim("w1", 4);
    expect(first.map((t) => t.id)).toEqual(ids.slice(0, 4));
    expect(
      first.every((t) => t.claimedBy === "w1" && t.claimExpiresAt?.getTime() === later(30_000).getTime()),
    ).toBe(true);
    const second = await claim("w2", 4);
    expect(second.map((t) => t.id)).toEqual(ids.slice(4, 8));
    const stored = await taskRows(store.db, "r");
    expect(stored.map((t) => t.claimedBy)).toEqual([
      ...Array(4).fill("w1"),
      ...Array(4).fill("w2"),
      null,
      null,
    ]);
    expect(await openTasks(store.db, { runId: "r", now: t0 })).toEqual({ pending: 10, free: 2 });
    expect(await claim("w3", 0)).toEqual([]);
  });

  it("holds the run's limits over every worker's live claims: in total and per provider", async () => {
    await seedRun(store.db, "r", ["a:x", "a:y", "b:z"], 5);
    const limits = { concurrency: 7, perProviderConcurrency: 3 };
    const w1 = await claim("w1", 10, { limits });
    // provider a: 3 (its limit), then b: 3 (its limit); 6 < 7 in total
    expect(w1.map((t) => t.judge)).toEqual(["a:x", "a:x", "a:x", "b:z", "b:z", "b:z"]);
    expect(await claim("w2", 10, { limits })).toEqual([]); // both providers at their limit
    await finishTask(store.db, w1[0].id); // a call of provider a ended
    const w2 = await claim("w2", 10, { limits });
    expect(w2.map((t) => t.judge)).toEqual(["a:x"]);
    // 4 live claims after two more calls end (a 2, b 2): each provider has room for one, the total for one
    await finishTask(store.db, w1[3].id);
    await finishTask(store.db, w1[1].id);
    const w3 = await claim("w3", 10, { limits: { concurrency: 5, perProviderConcurrency: 3 } });
    expect(w3.map((t) => t.judge)).toEqual(["a:x"]);
  });

  it("a claim past its time is free again; a heartbeat moves its worker's claims on", async () => {
    await seedRun(store.db, "r", ["a:x"], 4);
    const w1 = await claim("w1", 2);
    await upsertWorker(store.db, { id: "w1", kind: "worker", host: "h", pid: 1, runId: "r", now: t0 });
    // at 31 s the claims have expired: another worker takes them
    expect(
      (
        await claimTasks(store.db, {
          runId: "r",
          workerId: "w2",
          max: 1,
          now: later(31_000),
          until: later(61_000),
          limits: WIDE,
        })
      ).map((t) => t.id),
    ).toEqual([w1[0].id]);
    // w1's heartbeat moves only what it still holds (the other one)
    expect(
      await beatWorker(store.db, { id: "w1", runId: "r", now: later(31_000), until: later(90_000) }),
    ).toBe(1);
    const at80 = await claimTasks(store.db, {
      runId: "r",
      workerId: "w3",
      max: 10,
      now: later(80_000),
      until: later(99_000),
      limits: WIDE,
    });
    // w2's claim expired at 61 s; w1's second is held until 90 s; the last two were never claimed
    const ids = (await taskRows(store.db, "r")).map((t) => t.id);
    expect(at80.map((t) => t.id)).toEqual([ids[0], ids[2], ids[3]]);
  });

  it("a finished task is nobody's to claim; released claims are free at once", async () => {
    await seedRun(store.db, "r", ["a:x"], 3);
    const [a, b] = await claim("w1", 2);
    await finishTask(store.db, a.id);
    expect(await releaseClaims(store.db, { workerId: "w1", runId: "r" })).toBe(2); // the finished one too: its claim ends, its name stays
    expect(await openTasks(store.db, { runId: "r", now: t0 })).toEqual({ pending: 2, free: 2 });
    const next = await claim("w2", 5);
    expect(next.map((t) => t.id)).toEqual([b.id, b.id + 1]);
    const stored = await taskRows(store.db, "r");
    expect(stored[0]).toMatchObject({ status: "done", claimedBy: "w1" }); // history: who called it
  });

  it("keeps workers: registered, beating, listed while live, removed with their claims", async () => {
    await seedRun(store.db, "r", ["a:x"], 2);
    await upsertWorker(store.db, { id: "w1", kind: "worker", host: "h1", pid: 11, runId: null, now: t0 });
    await upsertWorker(store.db, { id: "w2", kind: "eval", host: "h2", pid: 22, runId: "r", now: later(1) });
    await claim("w2", 1);
    await beatWorker(store.db, { id: "w1", runId: "r", now: later(10_000), until: later(40_000) });
    expect((await liveWorkers(store.db, { since: later(5_000) })).map((w) => w.id)).toEqual(["w1"]);
    expect(
      (await liveWorkers(store.db, { since: t0, runId: "r" })).map((w) => [w.id, w.pid, w.host]),
    ).toEqual([
      ["w1", 11, "h1"],
      ["w2", 22, "h2"],
    ]);
    expect(await pruneWorkers(store.db, { before: later(5_000) })).toBe(1);
    await removeWorker(store.db, { id: "w1" });
    expect(await liveWorkers(store.db, { since: new Date(0) })).toEqual([]);
    expect((await taskRows(store.db, "r")).map((t) => [t.claimedBy, t.claimExpiresAt !== null])).toEqual([
      ["w2", true],
      [null, false],
    ]);
  });

  it("concurrent claimers on separate connections never get the same task", async () => {
    await seedRun(store.db, "r", ["a:x", "b:y"], 100);
    const got: number[] = [];
    const worker = async (id: string) => {
      for (;;) {
        const batch = await claim(id, 3, { limits: { concurrency: 1000, perProviderConcurrency: 1000 } });
        if (batch.length === 0) return;
        got.push(...batch.map((t) => t.id));
      }
    };
    await Promise.all(["w1", "w2", "w3", "w4", "w5", "w6"].map(worker));
    expect(got.length).toBe(200);
    expect(new Set(got).size).toBe(200);
  });

  it("concurrent claimers together stay within the run's limit", async () => {
    await seedRun(store.db, "r", ["a:x"], 50);
    const limits = { concurrency: 10, perProviderConcurrency: 1000 };
    const batches = await Promise.all(
      ["w1", "w2", "w3", "w4", "w5", "w6"].map((id) => claim(id, 4, { limits })),
    );
    const ids = batches.flat().map((t) => t.id);
    expect(ids.length).toBe(10);
    expect(new Set(ids).size).toBe(10);
  });

  it("claims given tasks by id where they are free", async () => {
    await seedRun(store.db, "r", ["a:x"], 4);
    const ids = (await taskRows(store.db, "r")).map((t) => t.id);
    await claim("w1", 1); // ids[0]
    await finishTask(store.db, ids[3]);
    const got = await claimTasksById(store.db, { ids, workerId: "w2", now: t0, until: later(5_000) });
    expect(got.sort((a, b) => a - b)).toEqual([ids[1], ids[2]]);
    expect((await taskRows(store.db, "r")).map((t) => t.claimedBy)).toEqual(["w1", "w2", "w2", null]);
  });

  it("shares the run's concurrency fairly among the workers beating on it", async () => {
    await seedRun(store.db, "r", ["a:x"], 30);
    const limits = { concurrency: 10, perProviderConcurrency: 100 };
    for (const id of ["w1", "w2", "w3"])
      await upsertWorker(store.db, { id, kind: "worker", host: "h", pid: 1, runId: "r", now: t0 });
    // a worker on another run and a silent one do not count
    await upsertWorker(store.db, { id: "w4", kind: "worker", host: "h", pid: 1, runId: "other", now: t0 });
    await upsertWorker(store.db, {
      id: "w5",
      kind: "worker",
      host: "h",
      pid: 1,
      runId: "r",
      now: later(-60_000),
    });
    const fair = { limits, fairSince: later(-30_000) };
    expect(await claim("w1", 10, fair)).toHaveLength(4); // ceil(10 / 3)
    expect(await claim("w1", 10, fair)).toHaveLength(0); // it has its part
    expect(await claim("w2", 10, fair)).toHaveLength(4);
    expect(await claim("w3", 10, fair)).toHaveLength(2); // what is left of the 10
    expect(await claim("w3", 10, { limits })).toHaveLength(0); // the run's total holds without sharing too
  });

  it("takes deterministic tasks beside the calls: they call no model and take no slot", async () => {
    await seedRun(store.db, "r", ["a:x", "deterministic"], 3);
    const limits = { concurrency: 1, perProviderConcurrency: 1 };
    const first = await claim("w1", 1, { limits });
    // one call (the run's limit) and the deterministic tasks within reach
    expect(first.map((t) => t.judge)).toEqual(["a:x", "deterministic", "deterministic", "deterministic"]);
    // the limit is full and no deterministic task is left: nothing
    expect(await claim("w2", 5, { limits })).toEqual([]);
  });
});
