import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { closeDb, createPgDb, type PgDb } from "../client";
import type { Job } from "../schema";
import {
  casClaimJob,
  casInterruptJob,
  ensureJob,
  failQueuedJob,
  finishJobRow,
  getJob,
  heartbeatJob,
  type JobOwner,
  listActiveJobs,
  requestJobCancel,
  requeueJob,
} from "./jobs";

const owner = (token: string, pid = 4242): JobOwner => ({ pid, host: "host-ä", token });
const at = (ms: number) => new Date(1_700_000_000_000 + ms);

describe.each(storeKinds())("the job queue's rows, on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("ensureJob inserts once (a second call changes nothing); getJob reads it, or undefined", async () => {
    const { db } = store;
    expect(await getJob(db, { id: "j1" })).toBeUndefined();
    const before = Date.now();
    await ensureJob(db, { id: "j1", kind: "run", total: 7 });
    await ensureJob(db, { id: "j1", kind: "review", total: 99 });
    await ensureJob(db, { id: "j2", kind: "experiment" });
    const j1 = (await getJob(db, { id: "j1" })) as Job;
    expect(j1).toEqual({
      id: "j1",
      kind: "run",
      status: "queued",
      ownerPid: null,
      ownerHost: null,
      ownerToken: null,
      heartbeatAt: null,
      cancelRequested: false,
      done: 0,
      total: 7,
      errors: 0,
      error: null,
      createdAt: expect.any(Date),
      startedAt: null,
      finishedAt: null,
    });
    expect(j1.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect((await getJob(db, { id: "j2" }))?.total).toBe(0);
  });

  it("casClaimJob: one claim of an unowned job wins; a takeover needs the token it saw", async () => {
    const { db } = store;
    await ensureJob(db, { id: "j", kind: "run" });
    await requestJobCancel(db, { id: "j" }); // a claim clears an old cancel request
    expect(await casClaimJob(db, { id: "j", owner: owner("a"), expectedToken: null, now: at(1) })).toBe(true);
    expect(await casClaimJob(db, { id: "j", owner: owner("b"), expectedToken: null, now: at(2) })).toBe(
      false,
    );
    expect(await casClaimJob(db, { id: "j", owner: owner("b"), expectedToken: "zz", now: at(2) })).toBe(
      false,
    );
    expect(await casClaimJob(db, { id: "missing", owner: owner("b"), expectedToken: null, now: at(2) })).toBe(
      false,
    );
    expect(await getJob(db, { id: "j" })).toMatchObject({
      status: "running",
      ownerPid: 4242,
      ownerHost: "host-ä",
      ownerToken: "a",
      heartbeatAt: at(1),
      startedAt: at(1),
      finishedAt: null,
      cancelRequested: false,
      error: null,
    });
    // the owner died: another process takes it over with the token it read
    expect(await casClaimJob(db, { id: "j", owner: owner("b", 7), expectedToken: "a", now: at(3) })).toBe(
      true,
    );
    expect(await getJob(db, { id: "j" })).toMatchObject({ ownerToken: "b", ownerPid: 7, startedAt: at(3) });
  });

  it("heartbeatJob writes the beat and the progress for its owner only, and carries a cancel request", async () => {
    const { db } = store;
    await ensureJob(db, { id: "j", kind: "run", total: 3 });
    await casClaimJob(db, { id: "j", owner: owner("a"), expectedToken: null, now: at(0) });
    expect(await heartbeatJob(db, { id: "j", token: "a", now: at(10) })).toEqual({ cancelRequested: false });
    expect(await getJob(db, { id: "j" })).toMatchObject({ heartbeatAt: at(10), done: 0, total: 3 });
    expect(
      await heartbeatJob(db, {
        id: "j",
        token: "a",
        now: at(20),
        progress: { done: 2, total: 5, errors: 1 },
      }),
    ).toEqual({ cancelRequested: false });
    expect(await getJob(db, { id: "j" })).toMatchObject({
      heartbeatAt: at(20),
      done: 2,
      total: 5,
      errors: 1,
    });
    expect(await heartbeatJob(db, { id: "j", token: "other", now: at(30) })).toBeUndefined();
    expect((await getJob(db, { id: "j" }))?.heartbeatAt).toEqual(at(20));
    expect(await requestJobCancel(db, { id: "j" })).toBe(true);
    expect(await heartbeatJob(db, { id: "j", token: "a", now: at(40) })).toEqual({ cancelRequested: true });
  });

  it("requestJobCancel asks a queued or running job only", async () => {
    const { db } = store;
    await ensureJob(db, { id: "q", kind: "run" });
    await ensureJob(db, { id: "d", kind: "run" });
    await casClaimJob(db, { id: "d", owner: owner("t"), expectedToken: null, now: at(0) });
    await finishJobRow(db, { id: "d", token: "t", status: "done", error: null, now: at(1) });
    expect(await requestJobCancel(db, { id: "q" })).toBe(true);
    expect(await requestJobCancel(db, { id: "d" })).toBe(false);
    expect(await requestJobCancel(db, { id: "missing" })).toBe(false);
    expect((await getJob(db, { id: "q" }))?.cancelRequested).toBe(true);
    expect((await getJob(db, { id: "d" }))?.cancelRequested).toBe(false);
  });

  it("finishJobRow ends its owner's claim only, with the status and error", async () => {
    const { db } = store;
    await ensureJob(db, { id: "j", kind: "review" });
    await casClaimJob(db, { id: "j", owner: owner("a"), expectedToken: null, now: at(0) });
    expect(await finishJobRow(db, { id: "j", token: "b", status: "done", error: null, now: at(5) })).toBe(
      false,
    );
    expect((await getJob(db, { id: "j" }))?.status).toBe("running");
    expect(
      await finishJobRow(db, { id: "j", token: "a", status: "failed", error: "boom ✗", now: at(5) }),
    ).toBe(true);
    expect(await getJob(db, { id: "j" })).toMatchObject({
      status: "failed",
      error: "boom ✗",
      finishedAt: at(5),
      ownerPid: null,
      ownerHost: null,
      ownerToken: null,
      heartbeatAt: null,
      startedAt: at(0),
    });
    expect(await finishJobRow(db, { id: "j", token: "a", status: "done", error: null, now: at(6) })).toBe(
      false,
    );
  });

  it("listActiveJobs: the queued and running jobs, whole; none when there are none", async () => {
    const { db } = store;
    expect(await listActiveJobs(db)).toEqual([]);
    for (const id of ["a", "b", "c", "d"]) await ensureJob(db, { id, kind: "run" });
    await casClaimJob(db, { id: "b", owner: owner("tb"), expectedToken: null, now: at(0) });
    await casClaimJob(db, { id: "c", owner: owner("tc"), expectedToken: null, now: at(0) });
    await finishJobRow(db, { id: "c", token: "tc", status: "cancelled", error: null, now: at(1) });
    const active = (await listActiveJobs(db)).sort((x, y) => x.id.localeCompare(y.id));
    expect(active.map((j) => [j.id, j.status, j.ownerToken])).toEqual([
      ["a", "queued", null],
      ["b", "running", "tb"],
      ["d", "queued", null],
    ]);
    expect(active[1]).toEqual(await getJob(db, { id: "b" }));
  });

  it("casInterruptJob settles a running job whose token is still the one seen, as interrupted or as given", async () => {
    const { db } = store;
    for (const id of ["x", "y", "q"]) await ensureJob(db, { id, kind: "experiment" });
    await casClaimJob(db, { id: "x", owner: owner("tx"), expectedToken: null, now: at(0) });
    await casClaimJob(db, { id: "y", owner: owner("ty"), expectedToken: null, now: at(0) });
    const args = { error: "owner gone", now: at(9) };
    expect(await casInterruptJob(db, { id: "x", expectedToken: "stale", ...args })).toBe(false);
    expect(await casInterruptJob(db, { id: "q", expectedToken: null, ...args })).toBe(false); // queued
    expect(await casInterruptJob(db, { id: "x", expectedToken: "tx", ...args })).toBe(true);
    expect(await getJob(db, { id: "x" })).toMatchObject({
      status: "interrupted",
      error: "owner gone",
      finishedAt: at(9),
      ownerToken: null,
      ownerPid: null,
      ownerHost: null,
      heartbeatAt: null,
    });
    expect(await casInterruptJob(db, { id: "x", expectedToken: null, ...args })).toBe(false); // not running now
    expect(
      await casInterruptJob(db, { id: "y", expectedToken: "ty", error: null, now: at(9), status: "done" }),
    ).toBe(true);
    expect(await getJob(db, { id: "y" })).toMatchObject({ status: "done", error: null });
    expect((await getJob(db, { id: "q" }))?.status).toBe("queued");
  });

  it("requeueJob puts a finished job back, counters reset; leaves a running one; makes a missing one", async () => {
    const { db } = store;
    await ensureJob(db, { id: "f", kind: "agreement", total: 4 });
    await ensureJob(db, { id: "r", kind: "agreement" });
    await casClaimJob(db, { id: "f", owner: owner("tf"), expectedToken: null, now: at(0) });
    await heartbeatJob(db, { id: "f", token: "tf", now: at(1), progress: { done: 4, total: 4, errors: 2 } });
    await requestJobCancel(db, { id: "f" });
    await finishJobRow(db, { id: "f", token: "tf", status: "cancelled", error: "asked", now: at(2) });
    await casClaimJob(db, { id: "r", owner: owner("tr"), expectedToken: null, now: at(0) });
    await heartbeatJob(db, { id: "r", token: "tr", now: at(1), progress: { done: 1, total: 2, errors: 0 } });

    await requeueJob(db, { id: "f", kind: "agreement" });
    await requeueJob(db, { id: "r", kind: "agreement" });
    await requeueJob(db, { id: "new", kind: "agreement" });
    expect(await getJob(db, { id: "f" })).toMatchObject({
      status: "queued",
      done: 0,
      total: 0,
      errors: 0,
      error: null,
      cancelRequested: false,
      finishedAt: null,
      startedAt: at(0),
    });
    expect(await getJob(db, { id: "r" })).toMatchObject({
      status: "running",
      done: 1,
      total: 2,
      ownerToken: "tr",
    });
    expect(await getJob(db, { id: "new" })).toMatchObject({ status: "queued", kind: "agreement", total: 0 });
  });

  it("failQueuedJob fails a queued job with why; a claimed one is left alone", async () => {
    const { db } = store;
    await ensureJob(db, { id: "q", kind: "agreement" });
    await ensureJob(db, { id: "c", kind: "agreement" });
    await casClaimJob(db, { id: "c", owner: owner("tc"), expectedToken: null, now: at(0) });
    const before = Date.now();
    await failQueuedJob(db, { id: "q", error: "the process ended" });
    await failQueuedJob(db, { id: "c", error: "no" });
    await failQueuedJob(db, { id: "missing", error: "no" });
    const q = await getJob(db, { id: "q" });
    expect(q).toMatchObject({ status: "failed", error: "the process ended" });
    expect(q?.finishedAt?.getTime()).toBeGreaterThanOrEqual(before);
    expect(await getJob(db, { id: "c" })).toMatchObject({ status: "running", error: null, ownerToken: "tc" });
    expect(await getJob(db, { id: "missing" })).toBeUndefined();
  });
});

// Several processes on several machines: two pools of one connection each, on the same database
describe.runIf(storeKinds().includes("pg"))("claims from two PostgreSQL connections", () => {
  let store: Store<PgDb>;
  let a: PgDb;
  let b: PgDb;
  let url: string;
  beforeEach(async () => {
    store = await freshStore("pg");
    url = store.db.$client.options.connectionString as string;
    a = await createPgDb(url, { poolSize: 1 });
    b = await createPgDb(url, { poolSize: 1 });
  });
  afterEach(async () => {
    await closeDb(a);
    await closeDb(b);
    await store.close();
  });

  const ids = Array.from({ length: 40 }, (_, i) => `job-${String(i).padStart(2, "0")}`);

  it("racing for the same jobs, and then to take each over from its owner: every job is won exactly once", async () => {
    for (const id of ids) await ensureJob(store.db, { id, kind: "run" });
    const race = async (expected: (id: string) => string | null, round: string) => {
      const wins = await Promise.all(
        ids.map((id) =>
          Promise.all([
            casClaimJob(a, {
              id,
              owner: owner(`a${round}-${id}`, 1),
              expectedToken: expected(id),
              now: at(1),
            }),
            casClaimJob(b, {
              id,
              owner: owner(`b${round}-${id}`, 2),
              expectedToken: expected(id),
              now: at(1),
            }),
          ]),
        ),
      );
      const tokens = new Map<string, string | null>();
      for (const [i, id] of ids.entries()) {
        const [wa, wb] = wins[i];
        expect([id, wa !== wb]).toEqual([id, true]); // one of the two, never both, never neither
        const row = await getJob(store.db, { id });
        expect(row?.ownerToken).toBe(wa ? `a${round}-${id}` : `b${round}-${id}`);
        expect(row?.ownerPid).toBe(wa ? 1 : 2);
        tokens.set(id, row?.ownerToken ?? null);
      }
      return tokens;
    };
    const first = await race(() => null, "1");
    await race((id) => first.get(id) ?? null, "2");
  });

  it("a job whose row another transaction holds is skipped at once (false), not waited for", async () => {
    await ensureJob(store.db, { id: "held", kind: "run" });
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("select id from jobs where id = 'held' for update");
      const claim = casClaimJob(a, { id: "held", owner: owner("a"), expectedToken: null, now: at(1) });
      const waited = new Promise<"waited">((resolve) => setTimeout(() => resolve("waited"), 3000).unref());
      expect(await Promise.race([claim, waited])).toBe(false);
      await holder.query("rollback");
    } finally {
      await holder.end();
    }
    // released: the same claim now wins
    expect(await casClaimJob(a, { id: "held", owner: owner("a"), expectedToken: null, now: at(2) })).toBe(
      true,
    );
    expect((await getJob(b, { id: "held" }))?.ownerToken).toBe("a");
  });
});
