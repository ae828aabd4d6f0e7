import { spawnSync } from "node:child_process";
import os from "node:os";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Op, query, write } from "@/db/op";
import { getJob } from "@/db/queries/jobs";
import type { Job } from "@/db/schema";
import { JuryError } from "../errors";
import { freshStore, type Store, storeKinds } from "../testing/stores";
import { cancelJob, claimJob, ownerIsAlive, recoverStaleJobs, runJob } from "./runner";

/** A pid that certainly belongs to no live process: one that has just exited. */
function deadPid(): number {
  return spawnSync("true").pid ?? 999_999;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Changes a job's row behind the runner's back (a dead owner, another process taking it over). */
const setJob = query(function* (db, id: string, set: Partial<Job>): Op<void> {
  const { jobs } = db.tables;
  yield* write(db.update(jobs).set(set).where(eq(jobs.id, id)));
});

describe.each(storeKinds())("job runner on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("refuses a second claim while the owner is alive, naming it", async () => {
    const { db } = store;
    await claimJob(db, { id: "r1", kind: "run" });
    let err: unknown;
    try {
      await claimJob(db, { id: "r1", kind: "run" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JuryError);
    expect((err as JuryError).code).toBe("busy:run");
    expect((err as JuryError).message).toContain(`process ${process.pid} on ${os.hostname()}`);
  });

  it("takes over a job whose owner on this host died, and one whose heartbeat went stale elsewhere", async () => {
    const { db } = store;
    const first = await claimJob(db, { id: "r1", kind: "run" });
    await setJob(db, "r1", { ownerPid: deadPid() });
    const second = await claimJob(db, { id: "r1", kind: "run" });
    expect(second.token).not.toBe(first.token);
    expect((await getJob(db, { id: "r1" }))?.ownerToken).toBe(second.token);

    await setJob(db, "r1", { ownerHost: "elsewhere", heartbeatAt: new Date(Date.now() - 5_000) });
    // fresh enough on another host: alive
    await expect(claimJob(db, { id: "r1", kind: "run" })).rejects.toThrow(/elsewhere/);
    // stale: gone
    expect((await claimJob(db, { id: "r1", kind: "run" }, { staleMs: 1_000 })).token).toBeTruthy();
  });

  it("a cancel request aborts the job's signal at the next heartbeat and ends it cancelled", async () => {
    const { db } = store;
    const outcome = runJob(
      db,
      { id: "e1", kind: "experiment", total: 5 },
      async (ctx) => {
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        return { status: ctx.stopReason()?.kind === "cancelled" ? "cancelled" : "done" };
      },
      { heartbeatMs: 20 },
    );
    await sleep(30);
    expect(await cancelJob(db, "e1")).toBe(true);
    await expect(outcome).resolves.toEqual({ status: "cancelled", error: null, lost: false });
    const row = await getJob(db, { id: "e1" });
    expect(row?.status).toBe("cancelled");
    expect(row?.ownerToken).toBeNull();
  });

  it("a storage failure aborts in-flight work and is recorded on the job as interrupted", async () => {
    const { db } = store;
    let abortedWith: unknown;
    const outcome = await runJob(db, { id: "r2", kind: "run" }, async (ctx) => {
      const inflight = new Promise<void>((resolve) =>
        ctx.signal.addEventListener(
          "abort",
          () => {
            abortedWith = ctx.signal.reason;
            resolve();
          },
          { once: true },
        ),
      );
      ctx.failStorage(new Error("database or disk is full"));
      await inflight;
      return { status: "done" };
    });
    expect(abortedWith).toMatchObject({ kind: "storage" });
    expect(outcome.status).toBe("interrupted");
    expect(outcome.error).toContain("database or disk is full");
    expect(await getJob(db, { id: "r2" })).toMatchObject({ status: "interrupted", error: outcome.error });
  });

  it("heartbeats carry progress; a job taken over stops its old owner without finishing the row", async () => {
    const { db } = store;
    let seenLost = false;
    const first = runJob(
      db,
      { id: "r3", kind: "run", total: 10 },
      async (ctx) => {
        ctx.report({ done: 4, errors: 1 });
        await sleep(50);
        expect(await getJob(db, { id: "r3" })).toMatchObject({ done: 4, errors: 1, total: 10 });
        // another process takes it over (as if this one had been declared dead)
        await setJob(db, "r3", { ownerToken: "someone-else" });
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        seenLost = ctx.stopReason()?.kind === "lost";
        return { status: "interrupted" };
      },
      { heartbeatMs: 10 },
    );
    await first;
    expect(seenLost).toBe(true);
    expect((await getJob(db, { id: "r3" }))?.ownerToken).toBe("someone-else");
  });

  it("a job that ends before its first heartbeat still records its final progress", async () => {
    const { db } = store;
    const r = await runJob(
      db,
      { id: "r4", kind: "run", total: 3 },
      async (ctx) => {
        ctx.report({ done: 3, errors: 1 });
        return { status: "done" };
      },
      { heartbeatMs: 60_000 },
    );
    expect(r.status).toBe("done");
    expect(await getJob(db, { id: "r4" })).toMatchObject({ status: "done", done: 3, total: 3, errors: 1 });
  });

  it("recovery at start marks jobs of dead owners interrupted and leaves live ones", async () => {
    const { db } = store;
    await claimJob(db, { id: "live", kind: "run" });
    await claimJob(db, { id: "dead", kind: "experiment" });
    await setJob(db, "dead", { ownerPid: deadPid() });
    const seen: string[] = [];
    const recovered = await recoverStaleJobs(db, (j) => {
      seen.push(`${j.kind}:${j.id}`);
    });
    expect(recovered.map((j) => j.id)).toEqual(["dead"]);
    expect(seen).toEqual(["experiment:dead"]);
    expect(await getJob(db, { id: "dead" })).toMatchObject({ status: "interrupted", ownerToken: null });
    expect((await getJob(db, { id: "dead" }))?.error).toMatch(/stopped before it finished/);
    const live = await getJob(db, { id: "live" });
    expect(live?.status).toBe("running");
    expect(live && ownerIsAlive(live)).toBe(true);
  });
});
