import { asc, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { all, query, write } from "../op";
import type { RunOptions } from "../schema";
import { claimTasks, takeSlots } from "./claim-tasks";
import {
  beatWorker,
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

const t0 = new Date(1_700_000_000_000);
const later = (ms: number) => new Date(t0.getTime() + ms);

describe.each(storeKinds())("task claims on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  /** Claims up to `max` calls of any provider the test uses (a, b) for a worker. */
  const claim = (
    workerId: string,
    max: number,
    extra: { now?: Date; until?: Date; room?: { total: number; providers: Record<string, number> } } = {},
  ) =>
    Promise.resolve(
      claimTasks(store.db, {
        runId: "r",
        workerId,
        now: extra.now ?? t0,
        until: extra.until ?? later(30_000),
        room: extra.room ?? { total: max, providers: { a: max, b: max } },
      }),
    ).then((r) => r.tasks);

  /** A worker's part of run r's limits, given its calls in flight and whether it wants one. */
  const share = (
    workerId: string,
    limits: { concurrency: number; perProviderConcurrency: number },
    extra: {
      inFlight?: { total: number; providers: Record<string, number> };
      wants?: boolean;
      now?: Date;
    } = {},
  ) =>
    takeSlots(store.db, {
      runId: "r",
      workerId,
      now: extra.now ?? t0,
      since: later(-30_000),
      limits,
      providers: ["a", "b"],
      inFlight: extra.inFlight ?? { total: 0, providers: {} },
      wants: extra.wants ?? true,
    });

  const register = (id: string, startedAt = t0, runId = "r") =>
    upsertWorker(store.db, { id, kind: "worker", host: "h", pid: 1, runId, now: startedAt });

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

  it("claims within the room it names, in total and per provider, passing over a provider with none", async () => {
    await seedRun(store.db, "r", ["a:x", "a:y", "b:z"], 5);
    const w1 = await claim("w1", 0, { room: { total: 5, providers: { a: 2, b: 3 } } });
    // provider a: 2 (its room), then b: 3 (past a's other tasks, not waiting for them)
    expect(w1.map((t) => t.judge)).toEqual(["a:x", "a:x", "b:z", "b:z", "b:z"]);
    // the total caps the providers' rooms (a first, in the order given)
    const w2 = await claim("w2", 0, { room: { total: 3, providers: { a: 5, b: 5 } } });
    expect(w2.map((t) => t.judge)).toEqual(["a:x", "a:x", "a:x"]);
    // a provider not named gets nothing
    const w3 = await claim("w3", 0, { room: { total: 5, providers: { b: 5 } } });
    expect(w3.map((t) => t.judge)).toEqual(["b:z", "b:z"]);
    expect(await claim("w4", 0, { room: { total: 0, providers: { a: 0, b: 0 } } })).toEqual([]);
  });

  it("a provider with room and no free task leaves the total's room to the others", async () => {
    await seedRun(store.db, "r", ["a:x", "b:z", "c:w"], 3);
    await claim("w1", 0, { room: { total: 3, providers: { a: 3 } } }); // every a task is taken
    const got = await claim("w2", 0, { room: { total: 4, providers: { a: 4, b: 4, c: 4 } } });
    expect(got.map((t) => t.judge)).toEqual(["b:z", "b:z", "b:z", "c:w"]);
  });

  it("a claim past its time is free again; a heartbeat moves its worker's claims on", async () => {
    await seedRun(store.db, "r", ["a:x"], 4);
    const w1 = await claim("w1", 2);
    await upsertWorker(store.db, { id: "w1", kind: "worker", host: "h", pid: 1, runId: "r", now: t0 });
    // at 31 s the claims have expired: another worker takes them
    expect((await claim("w2", 1, { now: later(31_000), until: later(61_000) })).map((t) => t.id)).toEqual([
      w1[0].id,
    ]);
    // w1's heartbeat moves only what it still holds (the other one)
    expect(
      await beatWorker(store.db, { id: "w1", runId: "r", now: later(31_000), until: later(90_000) }),
    ).toBe(1);
    const at80 = await claim("w3", 10, { now: later(80_000), until: later(99_000) });
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
        const batch = await claim(id, 0, { room: { total: 6, providers: { a: 3, b: 3 } } });
        if (batch.length === 0) return;
        got.push(...batch.map((t) => t.id));
      }
    };
    await Promise.all(["w1", "w2", "w3", "w4", "w5", "w6"].map(worker));
    expect(got.length).toBe(200);
    expect(new Set(got).size).toBe(200);
  });

  it("concurrent workers asking for their part together stay within the run's limits", async () => {
    await seedRun(store.db, "r", ["a:x"], 50);
    const ids = ["w1", "w2", "w3", "w4", "w5", "w6"];
    for (const id of ids) await register(id);
    const limits = { concurrency: 10, perProviderConcurrency: 7 };
    // each asks while the others do, over and over: the parts on record never add up past the limits
    for (let round = 0; round < 4; round++) {
      const parts = await Promise.all(ids.map((id) => share(id, limits)));
      const sum = (f: (p: (typeof parts)[number]) => number) => parts.reduce((n, p) => n + f(p), 0);
      expect(sum((p) => p.total)).toBeLessThanOrEqual(10);
      expect(sum((p) => p.providers.a)).toBeLessThanOrEqual(7);
      expect(sum((p) => p.providers.b)).toBeLessThanOrEqual(7);
    }
    // once settled, each has its fair part: 10 over 6 is 2, 2, 2, 2, 1, 1 (the first come first)
    const settled = await Promise.all(ids.map((id) => share(id, limits)));
    expect(settled.map((p) => p.total)).toEqual([2, 2, 2, 2, 1, 1]);
    expect(settled.map((p) => p.providers.a)).toEqual([2, 1, 1, 1, 1, 1]);
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

  it("shares the run's limits among the live workers that want a part; a part given up is taken once its calls end", async () => {
    await seedRun(store.db, "r", ["a:x"], 30);
    const limits = { concurrency: 10, perProviderConcurrency: 100 };
    await register("w1", t0);
    await register("w2", later(1));
    // a worker on another run and a silent one do not count
    await register("w4", t0, "other");
    await register("w5", later(-60_000));
    // alone so far (w2 has not asked): w1 takes the whole run
    expect(await share("w1", limits)).toEqual({ total: 10, providers: { a: 100, b: 100 } });
    // w2 comes: its fair part is 5, but w1's 10 calls are in flight, so it gets nothing yet
    expect((await share("w2", limits)).total).toBe(0);
    // w1 learns its part is 5; its row still says the 10 calls it runs
    const busy = { total: 10, providers: { a: 10 } };
    expect((await share("w1", limits, { inFlight: busy })).total).toBe(5);
    expect((await share("w2", limits)).total).toBe(0);
    // once they ended (5 in flight), w2 gets the rest
    await share("w1", limits, { inFlight: { total: 5, providers: { a: 5 } } });
    expect((await share("w2", limits)).total).toBe(5);
    // w2 runs out of work and gives its part up: w1 takes the whole run again
    expect((await share("w2", limits, { wants: false })).total).toBe(0);
    expect((await share("w1", limits)).total).toBe(10);
    // a worker's part, with 0 for a provider whose limit the others hold
    const tight = { concurrency: 10, perProviderConcurrency: 1 };
    expect(await share("w1", tight)).toEqual({ total: 10, providers: { a: 1, b: 1 } });
  });

  it("takes deterministic tasks beside the calls: they call no model and take no slot", async () => {
    await seedRun(store.db, "r", ["a:x", "deterministic"], 3);
    const first = await claim("w1", 1, { room: { total: 1, providers: { a: 1 } } });
    // one call (its room) and the deterministic tasks within reach
    expect(first.map((t) => t.judge)).toEqual(["a:x", "deterministic", "deterministic", "deterministic"]);
    // no room and no deterministic task left: nothing
    expect(await claim("w2", 0, { room: { total: 0, providers: { a: 0 } } })).toEqual([]);
  });
});
