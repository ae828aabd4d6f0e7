import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getRunById, getRunSamples, getRunTasks } from "@/db/queries/runs";
import { loadProjectCriteria } from "../criteria/load";
import { type CriteriaRegistry, loadCriteria } from "../criteria/registry";
import { loadSuite } from "../suites/load-suite";
import {
  settingsFor,
  TEST_LOGIC_WORKER,
  tempDb,
  tempDir,
  testRegistry,
  writeJson,
} from "../testing/fixtures";
import { testLogicModules } from "../testing/test-logic";
import { executeRun } from "./execute-run";
import { createRun } from "./plan-run";

const EVIL = `${"a".repeat(40)}b`;
const CATASTROPHIC = { pattern: "^(a+)+$", regex: true };
const settings = settingsFor("http://127.0.0.1:9/v1"); // no LLM criterion here: never called
const options = { judges: ["local:a"], n: 1, temperature: 0, concurrency: 4, noCache: true };

function suite(criteria: unknown[], cases: { id: string; output: string; criteria?: unknown[] }[]): string {
  const dir = tempDir("jury-suite-");
  writeJson(path.join(dir, "suite.json"), { name: "Deterministic", criteria });
  for (const c of cases)
    writeJson(path.join(dir, "cases", `${c.id}.json`), { name: c.id, input: { prompt: "p" }, ...c });
  return dir;
}

const deterministic = (id: string, fn: string) => ({
  id,
  type: "deterministic",
  name: id,
  version: "1",
  description: `test criterion ${id}`,
  scoring: { scale: [0, 1], default_threshold: 1 },
  function: fn,
});

/** The test registry plus criteria whose logic never returns, served by the test worker bundle. */
function registryWith(extra: Record<string, unknown>): CriteriaRegistry {
  const { dir } = testRegistry(extra);
  return { ...loadCriteria(dir, testLogicModules), logicWorker: TEST_LOGIC_WORKER };
}

/** Runs `work` while counting the ticks of a 20 ms interval on this thread. */
async function ticking<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 20);
  const start = performance.now();
  try {
    const value = await work();
    return { value, ms: performance.now() - start, ticks };
  } finally {
    clearInterval(timer);
  }
}

const envBefore = process.env.JURY_DETERMINISTIC_TIMEOUT_MS;
afterEach(() => {
  if (envBefore === undefined) delete process.env.JURY_DETERMINISTIC_TIMEOUT_MS;
  else process.env.JURY_DETERMINISTIC_TIMEOUT_MS = envBefore;
});

describe("deterministic criteria in executeRun", () => {
  it("the issue's catastrophic regex: each task ends within about a second, this thread stays responsive", async () => {
    delete process.env.JURY_DETERMINISTIC_TIMEOUT_MS; // the default, 1000 ms
    const { db } = tempDb();
    const registry = loadProjectCriteria(path.resolve(__dirname, "../../criteria"));
    const dir = suite(
      [{ id: "contains", params: CATASTROPHIC }],
      [
        // case-insensitive (the default): V8 has no linear fallback for the i flag, so the limit stops it
        { id: "evil", output: EVIL },
        // case-sensitive: V8's linear-time engine takes over and answers at once
        { id: "evil_cs", output: EVIL, criteria: [{ id: "contains", params: { case_sensitive: true } }] },
        { id: "fine", output: "aaaa" },
      ],
    );
    const runId = await createRun(db, loadSuite(dir), registry, options);
    const { value: status, ms, ticks } = await ticking(() => executeRun(db, runId, { settings, registry }));
    expect(status).toBe("done_with_failures"); // the stuck tasks failed
    const by = Object.fromEntries(getRunSamples(db, { runId }).map((s) => [s.caseId, s]));
    expect(by.evil).toMatchObject({
      score: null,
      error: "deterministic criterion contains did not finish within 1000 ms",
    });
    expect(by.evil_cs).toMatchObject({
      score: 0,
      error: null,
      reasoning: expect.stringMatching(/not found/),
    });
    expect(by.fine).toMatchObject({ score: 1, error: null, reasoning: expect.stringMatching(/found regex/) });
    expect(ms).toBeLessThan(2500); // one task at the 1 s limit, the others in milliseconds
    expect(ticks).toBeGreaterThanOrEqual(25); // about 50 at 20 ms: never blocked for long
  });

  it("logic that loops for ever is that task's error (JURY_DETERMINISTIC_TIMEOUT_MS), the other criteria still score", async () => {
    process.env.JURY_DETERMINISTIC_TIMEOUT_MS = "300";
    const { db } = tempDb();
    const registry = registryWith({ forever: deterministic("forever", "loopForever") });
    const dir = suite(
      [{ id: "forever" }, { id: "short", params: { max_chars: 10 } }],
      [
        { id: "one", output: "tiny" },
        { id: "two", output: "a bit too long" },
      ],
    );
    const runId = await createRun(db, loadSuite(dir), registry, options);
    const { value: status, ms, ticks } = await ticking(() => executeRun(db, runId, { settings, registry }));
    expect(status).toBe("done_with_failures");
    const samples = getRunSamples(db, { runId });
    const forever = samples.filter((s) => s.criterionId === "forever");
    expect(forever.map((s) => [s.score, s.error])).toEqual([
      [null, "deterministic criterion forever did not finish within 300 ms"],
      [null, "deterministic criterion forever did not finish within 300 ms"],
    ]);
    const short = Object.fromEntries(
      samples.filter((s) => s.criterionId === "short").map((s) => [s.caseId, s]),
    );
    expect(short.one).toMatchObject({ score: 1, reasoning: "length=4", error: null });
    expect(short.two).toMatchObject({ score: 0, reasoning: "length=14", error: null });
    expect(ms).toBeLessThan(2000); // two timeouts of 300 ms, one after the other
    expect(ticks).toBeGreaterThanOrEqual(10);
  });

  it("an abort while logic is stuck stops the run at once, interrupted and resumable", async () => {
    process.env.JURY_DETERMINISTIC_TIMEOUT_MS = "60000";
    const { db } = tempDb();
    const registry = registryWith({ forever: deterministic("forever", "loopForever") });
    const dir = suite([{ id: "forever" }], [{ id: "one", output: "x" }]);
    const runId = await createRun(db, loadSuite(dir), registry, options);
    const ac = new AbortController();
    const run = executeRun(db, runId, { settings, registry, signal: ac.signal });
    await new Promise((r) => setTimeout(r, 300));
    const start = performance.now();
    ac.abort();
    expect(await run).toBe("interrupted");
    expect(performance.now() - start).toBeLessThan(500);
    expect(getRunById(db, { id: runId })).toMatchObject({ status: "interrupted", ownerPid: null });
    expect(getRunTasks(db, { runId }).map((t) => t.status)).toEqual(["pending"]);
    expect(getRunSamples(db, { runId })).toHaveLength(0);
  });

  it("a missing worker bundle is each task's error, naming the file and the build command", async () => {
    const { db } = tempDb();
    const missing = path.join(tempDir(), "criteria-worker.mjs");
    const { registry: base } = testRegistry();
    const registry = { ...base, logicWorker: missing };
    const dir = suite([{ id: "short" }], [{ id: "one", output: "x" }]);
    const runId = await createRun(db, loadSuite(dir), registry, options);
    expect(await executeRun(db, runId, { settings, registry })).toBe("done_with_failures");
    expect(getRunSamples(db, { runId })[0]).toMatchObject({
      score: null,
      error: `deterministic criterion failed: the criteria worker ${missing} is missing: run npm run build:cli (or npm run build)`,
    });
  });
});
