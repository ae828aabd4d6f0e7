// Several processes work one run: the process that started it (as the dashboard does) and two
// `jury worker` processes claim its tasks; every task is called once, and a worker SIGKILLed mid-run
// loses no sample and doubles none (its claims come back and are called by the others). On SQLite
// always, and on PostgreSQL when JURY_TEST_DATABASE_URL is set (the workers reach it by its URL).
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, createDb, createPgDb, type Db } from "@/db/client";
import { getJob } from "@/db/queries/jobs";
import { getRunById, getRunProgress, getRunSamples, getRunTasks } from "@/db/queries/runs";
import { loadCriteria } from "@/lib/criteria/registry";
import { executeRun } from "@/lib/runs/execute-run";
import { createRun } from "@/lib/runs/plan-run";
import { writeSettings } from "@/lib/settings/store";
import { loadSuite } from "@/lib/suites/load-suite";
import { llmSuite, settingsFor, tempDir } from "@/lib/testing/fixtures";
import { spawnJury } from "@/lib/testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "@/lib/testing/scripted-server";
import { settingsEnabling } from "@/lib/testing/settings-db";
import { emptyPgDatabase, type StoreKind, storeKinds } from "@/lib/testing/stores";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer(() => ({ delayMs: 25, json: { score: 4, reasoning: "fine" } }));
});
afterAll(() => server.close());

const CASES = 250;
const N = 4;
const TASKS = CASES * 2 * N; // 2,000
const CONCURRENCY = 16;

async function fixture(kind: StoreKind) {
  const { criteriaDir, suiteDir } = llmSuite(CASES, "Workers");
  const dbFile = path.join(tempDir(), "jury.db");
  // on PostgreSQL the workers (other processes) reach the same database by its URL
  const pgDatabase = kind === "pg" ? await emptyPgDatabase() : undefined;
  const db: Db = pgDatabase ? await createPgDb(pgDatabase.url) : createDb(dbFile);
  await writeSettings(db, settingsEnabling(["local"]));
  const registry = loadCriteria(criteriaDir, {});
  const env = {
    JURY_DB: dbFile,
    JURY_LOCAL_BASE_URL: server.baseURL,
    JURY_CRITERIA_DIR: criteriaDir,
    JURY_CLAIM_POLL_MS: "100",
    ...(pgDatabase ? { JURY_DATABASE_URL: pgDatabase.url } : {}),
  };
  const close = async () => {
    await closeDb(db);
    await pgDatabase?.drop();
  };
  return { suiteDir, db, registry, env, close };
}

// the per-provider limit is the run's, so every process (whatever its Settings say) claims within the same one
const options = {
  judges: ["local:a"],
  n: N,
  temperature: 0.8,
  concurrency: CONCURRENCY,
  providerConcurrency: CONCURRENCY,
  noCache: true,
};

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The processes (pids) that claimed the run's tasks, from the workers' ids (host:pid:random). */
const claimers = async (db: Db, runId: string) =>
  new Set((await getRunTasks(db, { runId })).map((t) => Number(t.claimedBy?.split(":").at(-2))));

describe.each(storeKinds())("on %s", (kind) => {
  it("a started run and two `jury worker` processes share its 2,000 tasks: each called once, within the run's concurrency", async () => {
    const f = await fixture(kind);
    const runId = await createRun(f.db, loadSuite(f.suiteDir), f.registry, options);
    const before = server.requests.length;
    server.resetPeakInFlight();
    const settings = settingsFor(server.baseURL, { perProviderConcurrency: CONCURRENCY });
    const owner = executeRun(f.db, runId, { settings, registry: f.registry, workerKind: "dashboard" });
    await until("the first samples", async () => (await getRunProgress(f.db, { runId })).done > 0);
    const workers = [
      spawnJury(["worker", "--once"], { env: f.env }),
      spawnJury(["worker", "--once"], { env: f.env }),
    ];
    expect(await owner).toBe("done");
    const outs = await Promise.all(workers.map((w) => w.out));
    for (const o of outs) expect(o.code, o.stderr).toBe(0);

    expect(server.requests.length - before).toBe(TASKS); // nothing was called twice
    const samples = await getRunSamples(f.db, { runId });
    expect(samples).toHaveLength(TASKS);
    expect(new Set(samples.map((s) => s.taskId)).size).toBe(TASKS);
    // the work was shared: this process and both workers claimed tasks
    const by = await claimers(f.db, runId);
    expect(by).toContain(process.pid);
    for (const w of workers) expect(by).toContain(w.pid);
    // the run's concurrency held over all three processes
    expect(server.peakInFlight()).toBeLessThanOrEqual(CONCURRENCY);
    expect(await getJob(f.db, { id: runId })).toMatchObject({ status: "done" });
    await f.close();
  }, 120_000);

  it("a worker SIGKILLed mid-run: the run completes with no sample lost or doubled", async () => {
    const f = await fixture(kind);
    const runId = await createRun(f.db, loadSuite(f.suiteDir), f.registry, options);
    const before = server.requests.length;
    const settings = settingsFor(server.baseURL, { perProviderConcurrency: CONCURRENCY });
    const owner = executeRun(f.db, runId, { settings, registry: f.registry, workerKind: "dashboard" });
    await until("the first samples", async () => (await getRunProgress(f.db, { runId })).done > 0);
    const victim = spawnJury(["worker"], { env: f.env });
    const other = spawnJury(["worker", "--once"], { env: f.env });
    // kill it while it holds claims, with a good part of the run left
    await until("the victim's claims", async () =>
      (await getRunTasks(f.db, { runId })).some(
        (t) => t.status === "pending" && t.claimedBy?.includes(`:${victim.pid}:`),
      ),
    );
    expect((await getRunProgress(f.db, { runId })).pending).toBeGreaterThan(TASKS / 4);
    victim.kill("SIGKILL");
    expect(await owner).toBe("done");
    expect((await other.out).code).toBe(0);

    const samples = await getRunSamples(f.db, { runId });
    expect(samples).toHaveLength(TASKS);
    expect(new Set(samples.map((s) => s.taskId)).size).toBe(TASKS);
    expect(samples.filter((s) => s.error)).toEqual([]);
    expect((await getRunById(f.db, { id: runId }))?.status).toBe("done");
    // the victim's calls in flight when it died were called again; nothing else was
    const calls = server.requests.length - before;
    expect(calls).toBeGreaterThanOrEqual(TASKS);
    expect(calls).toBeLessThanOrEqual(TASKS + CONCURRENCY);
    await f.close();
  }, 120_000);
});
