// A run is a job: one live owner at a time (two resumes never pay twice), and a failed write stops
// the run's calls and is recorded on the job, never as a judge's error; a resume then finishes it.
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { getJob } from "@/db/queries/jobs";
import { getRunById, getRunSamples } from "@/db/queries/runs";
import { loadCriteria } from "@/lib/criteria/registry";
import { recoverJobs } from "@/lib/jobs/recover";
import { executeRun } from "@/lib/runs/execute-run";
import { createRun } from "@/lib/runs/plan-run";
import { writeSettings } from "@/lib/settings/store";
import { loadSuite } from "@/lib/suites/load-suite";
import { llmSuite, settingsFor, tempDir } from "@/lib/testing/fixtures";
import { runJury } from "@/lib/testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "@/lib/testing/scripted-server";
import { settingsEnabling } from "@/lib/testing/settings-db";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer(() => ({ delayMs: 100, json: { score: 3, reasoning: "fine" } }));
});
afterAll(() => server.close());

/** Two LLM criteria and a suite of `cases` cases judged on them: no deterministic logic involved. */
async function fixture(cases: number) {
  const { criteriaDir, suiteDir } = llmSuite(cases, "Jobs");
  const dbFile = path.join(tempDir(), "jury.db");
  const db = createDb(dbFile);
  await writeSettings(db, settingsEnabling(["local"])); // `jury eval --resume` calls only enabled providers
  const registry = loadCriteria(criteriaDir, {});
  return { criteriaDir, suiteDir, dbFile, db, registry };
}

const options = (concurrency: number) => ({
  judges: ["local:a"],
  n: 3,
  temperature: 0.8,
  concurrency,
  noCache: true,
});

it("two `jury eval --resume` of one run at once work it together: every task called once, both report it done", async () => {
  const f = await fixture(4);
  const runId = await createRun(f.db, loadSuite(f.suiteDir), f.registry, options(2));
  const tasks = 4 * 2 * 3;
  const before = server.requests.length;
  const env = { JURY_DB: f.dbFile, JURY_LOCAL_BASE_URL: server.baseURL, JURY_CRITERIA_DIR: f.criteriaDir };
  const [a, b] = await Promise.all([
    runJury(["eval", "--resume", runId, "--json"], { env }),
    runJury(["eval", "--resume", runId, "--json"], { env }),
  ]);
  for (const r of [a, b]) expect([0, 1], r.stderr).toContain(r.code);
  expect(JSON.parse(a.stdout).status).toBe("done");
  expect(JSON.parse(b.stdout).status).toBe("done");
  expect(server.requests.length - before).toBe(tasks); // nothing was called twice
  const samples = getRunSamples(f.db, { runId });
  expect(samples).toHaveLength(tasks);
  expect(new Set(samples.map((s) => s.taskId)).size).toBe(tasks);
  expect(getRunById(f.db, { id: runId })?.status).toBe("done");
  expect(getJob(f.db, { id: runId })).toMatchObject({ status: "done", ownerToken: null });
  f.db.$client.close();
});

it("a failed write stops the run's calls, is recorded on the job, and a resume finishes with no sample lost", async () => {
  const f = await fixture(6);
  const concurrency = 3;
  const runId = await createRun(f.db, loadSuite(f.suiteDir), f.registry, options(concurrency));
  const tasks = 6 * 2 * 3;
  // the disk "fills up" after 5 samples
  f.db.$client.exec(`create trigger disk_full before insert on samples
    when (select count(*) from samples) >= 5
    begin select raise(abort, 'database or disk is full'); end`);
  const settings = settingsFor(server.baseURL, { perProviderConcurrency: concurrency });
  const before = server.requests.length;
  const status = await executeRun(f.db, runId, { settings, registry: f.registry });
  expect(status).toBe("interrupted");
  const calls = server.requests.length - before;
  // calls in flight when the write failed may finish; no new one starts
  expect(calls).toBeLessThanOrEqual(5 + concurrency + 1);
  const job = getJob(f.db, { id: runId });
  expect(job?.status).toBe("interrupted");
  expect(job?.error).toContain("database or disk is full");
  expect(getRunById(f.db, { id: runId })?.error).toContain("database or disk is full");
  const stored = getRunSamples(f.db, { runId });
  expect(stored).toHaveLength(5);
  expect(stored.filter((s) => s.error)).toEqual([]);

  f.db.$client.exec("drop trigger disk_full");
  expect(await executeRun(f.db, runId, { settings, registry: f.registry })).toBe("done");
  const all = getRunSamples(f.db, { runId });
  expect(all).toHaveLength(tasks);
  expect(all.filter((s) => s.error)).toEqual([]);
  expect(getJob(f.db, { id: runId })?.status).toBe("done");
  f.db.$client.close();
});

it("a kill between the run's last write and the job's: recovery never turns a finished run into an interrupted one", async () => {
  const f = await fixture(1);
  const runId = await createRun(f.db, loadSuite(f.suiteDir), f.registry, options(2));
  const settings = settingsFor(server.baseURL);
  expect(await executeRun(f.db, runId, { settings, registry: f.registry })).toBe("done");
  // as if SIGKILLed after the run row said done and before the job row did: a dead owner's job
  const deadPid = 2 ** 22 + 1234; // above any pid_max: never alive
  f.db.$client
    .prepare(
      "update jobs set status = 'running', owner_pid = ?, owner_host = ?, owner_token = 'dead', heartbeat_at = ?, finished_at = null where id = ?",
    )
    .run(deadPid, os.hostname(), Date.now() - 60_000, runId);
  expect(await recoverJobs(f.db)).toBe(1);
  expect(getRunById(f.db, { id: runId })?.status).toBe("done");
  expect(getJob(f.db, { id: runId })?.status).toBe("done");
  f.db.$client.close();
});
