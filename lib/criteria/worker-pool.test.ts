import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TEST_LOGIC_WORKER, tempDir } from "../testing/fixtures";
import {
  DEFAULT_DETERMINISTIC_TIMEOUT_MS,
  deterministicTimeoutMs,
  LogicPool,
  projectLogicWorker,
  sharedLogicPool,
} from "./worker-pool";

const CATASTROPHIC = { pattern: "^(a+)+$", regex: true };
const EVIL_OUTPUT = `${"a".repeat(40)}b`;

const pools: LogicPool[] = [];
const pool = (script: string, timeoutMs?: number) => {
  const p = new LogicPool({ script, timeoutMs });
  pools.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const contains = (output: string, params: Record<string, unknown>) => ({
  criterionId: "contains",
  fn: "checkContains",
  output,
  input: {},
  params,
});
const test = (criterionId: string, fn: string, params: Record<string, unknown> = {}) => ({
  criterionId,
  fn,
  output: "some output",
  input: {},
  params,
});

/** Runs `work` while counting the ticks of a 20 ms interval on this thread. */
async function ticking<T>(
  work: () => Promise<T>,
): Promise<{ result: PromiseSettledResult<T>; ms: number; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 20);
  const start = performance.now();
  const [result] = await Promise.allSettled([work()]);
  const ms = performance.now() - start;
  clearInterval(timer);
  return { result, ms, ticks };
}

describe("LogicPool", () => {
  it("runs a project criterion in the worker and returns its result", async () => {
    const p = pool(projectLogicWorker());
    expect(await p.run(contains("The answer is 42.", { pattern: "answer" }))).toEqual({
      score: 1,
      details: 'found text "answer"',
    });
    // parsed is computed in the worker, from the output
    expect(
      await p.run({
        criterionId: "json_validity",
        fn: "checkJsonValidity",
        output: "[1, 2]",
        input: {},
        params: {},
      }),
    ).toEqual({ score: 1, details: "valid JSON (array of 2)" });
  });

  it("a catastrophic case-sensitive regex finishes at once with the right score (V8's linear-time fallback)", async () => {
    const p = pool(projectLogicWorker(), 5000);
    const { result, ms } = await ticking(() =>
      p.run(contains(EVIL_OUTPUT, { ...CATASTROPHIC, case_sensitive: true })),
    );
    expect(result).toEqual({
      status: "fulfilled",
      value: { score: 0, details: expect.stringMatching(/not found/) },
    });
    expect(ms).toBeLessThan(2000); // without the fallback this takes about two minutes
    expect(await p.run(contains("aaaa", { ...CATASTROPHIC, case_sensitive: true }))).toMatchObject({
      score: 1,
    });
  });

  it("a catastrophic case-insensitive regex (no fallback in V8 for the i flag) is stopped at the limit, this thread ticking on", async () => {
    const p = pool(projectLogicWorker(), 500);
    const { result, ms, ticks } = await ticking(() => p.run(contains(EVIL_OUTPUT, CATASTROPHIC)));
    expect(result.status).toBe("rejected");
    expect((result as PromiseRejectedResult).reason.message).toBe(
      "deterministic criterion contains did not finish within 500 ms",
    );
    expect(ms).toBeGreaterThanOrEqual(490);
    expect(ms).toBeLessThan(1500);
    expect(ticks).toBeGreaterThanOrEqual(10); // about 25 at 20 ms: this thread was never blocked
    // the stuck worker was replaced: the next task gets a fresh one
    expect(await p.run(contains("abc", { pattern: "b" }))).toMatchObject({ score: 1 });
  });

  it("logic that loops for ever ends as a timeout error within the limit; the tasks queued behind it still run", async () => {
    const p = pool(TEST_LOGIC_WORKER, 300);
    const stuck = p.run(test("forever", "loopForever"));
    const behind = p.run(test("short", "lengthOk", { max_chars: 100 }));
    const { result, ms, ticks } = await ticking(() => stuck);
    expect((result as PromiseRejectedResult).reason.message).toBe(
      "deterministic criterion forever did not finish within 300 ms",
    );
    expect(ms).toBeLessThan(1300);
    expect(ticks).toBeGreaterThanOrEqual(5);
    expect(await behind).toEqual({ score: 1, details: "length=11" });
  });

  it("the limit is per task, not per queue: tasks that each take under it all succeed", async () => {
    const p = pool(TEST_LOGIC_WORKER, 400);
    const results = await Promise.all([1, 2, 3, 4].map(() => p.run(test("busy", "busyFor", { ms: 150 }))));
    expect(results.map((r) => r.score)).toEqual([1, 1, 1, 1]);
  });

  it("a throwing function, a worker that exits and an unknown function are that task's error; the next task runs", async () => {
    const p = pool(TEST_LOGIC_WORKER);
    await expect(p.run(test("throws", "throwsError"))).rejects.toThrow("logic exploded");
    await expect(p.run(test("exits", "exitsWorker"))).rejects.toThrow(/criteria worker exited \(code 3\)/);
    await expect(p.run(test("short", "nope"))).rejects.toThrow(/"nope" is not exported by short\/logic\.ts/);
    expect(await p.run(test("short", "lengthOk"))).toMatchObject({ score: 1 });
  });

  it("a missing worker bundle fails the task with the file's name and how to build it, running nothing here", async () => {
    const missing = path.join(tempDir(), "dist", "criteria-worker.mjs");
    const p = pool(missing);
    const err = await p.run(test("forever", "loopForever")).catch((e: Error) => e);
    expect((err as Error).message).toBe(
      `the criteria worker ${missing} is missing: run npm run build:cli (or npm run build)`,
    );
  });

  it("an abort ends the running task at once (its worker terminated) and the queued ones", async () => {
    const p = pool(TEST_LOGIC_WORKER, 60_000);
    const ac = new AbortController();
    const stuck = p.run(test("forever", "loopForever"), ac.signal).catch((e: Error) => e);
    const queued = p.run(test("short", "lengthOk"), ac.signal).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 200));
    const start = performance.now();
    ac.abort(new Error("stop"));
    expect(((await stuck) as Error).message).toBe("stop");
    expect(((await queued) as Error).message).toBe("stop");
    expect(performance.now() - start).toBeLessThan(200);
    // the pool goes on with a fresh worker
    expect(await p.run(test("short", "lengthOk"))).toMatchObject({ score: 1 });
  });

  it("close() ends a stuck task and refuses new ones", async () => {
    const p = pool(TEST_LOGIC_WORKER, 60_000);
    const stuck = p.run(test("forever", "loopForever")).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 200));
    await p.close();
    expect(((await stuck) as Error).message).toMatch(/closed/);
    await expect(p.run(test("short", "lengthOk"))).rejects.toThrow(/closed/);
  });
});

describe("the shared pool", () => {
  it("one per bundle and time limit; its worker serves task after task and is ended once idle", async () => {
    const a = sharedLogicPool(TEST_LOGIC_WORKER, 700);
    expect(sharedLogicPool(TEST_LOGIC_WORKER, 700)).toBe(a);
    expect(sharedLogicPool(TEST_LOGIC_WORKER, 701)).not.toBe(a);
    const before = a.workersStarted;
    for (let i = 0; i < 3; i++) expect(await a.run(test("short", "lengthOk"))).toMatchObject({ score: 1 });
    expect(a.workersStarted - before).toBeLessThanOrEqual(1);

    const p = new LogicPool({ script: TEST_LOGIC_WORKER, idleMs: 50 });
    pools.push(p);
    await p.run(test("short", "lengthOk"));
    await p.run(test("short", "lengthOk"));
    expect(p.workersStarted).toBe(1);
    await new Promise((r) => setTimeout(r, 250));
    // idle past idleMs: the worker was ended, the next task starts a fresh one
    expect(await p.run(test("short", "lengthOk"))).toMatchObject({ score: 1 });
    expect(p.workersStarted).toBe(2);
  });
});

describe("JURY_DETERMINISTIC_TIMEOUT_MS", () => {
  it("defaults to 1000 ms, takes a whole number, and names the variable and value when wrong", () => {
    expect(deterministicTimeoutMs({})).toBe(DEFAULT_DETERMINISTIC_TIMEOUT_MS);
    expect(DEFAULT_DETERMINISTIC_TIMEOUT_MS).toBe(1000);
    expect(deterministicTimeoutMs({ JURY_DETERMINISTIC_TIMEOUT_MS: "250" })).toBe(250);
    for (const bad of ["0", "-5", "1.5", "soon"])
      expect(() => deterministicTimeoutMs({ JURY_DETERMINISTIC_TIMEOUT_MS: bad })).toThrow(
        `JURY_DETERMINISTIC_TIMEOUT_MS="${bad}" must be a whole number of milliseconds, from 1 to 600000 (default 1000)`,
      );
  });
});
