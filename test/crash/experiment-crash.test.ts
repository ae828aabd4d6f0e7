// A memory experiment killed mid-way: recovered as interrupted (never "running" for ever), its
// finished queries kept, and a resume finishes it without calling the judge again for them.
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { getJob } from "@/db/queries/jobs";
import { listStudyQueries } from "@/db/queries/study";
import { recoverJobs } from "@/lib/jobs/recover";
import { importStudyFolder } from "@/lib/memory/import";
import { writeSettings } from "@/lib/settings/store";
import { tempDir } from "@/lib/testing/fixtures";
import { runJury, spawnJury } from "@/lib/testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "@/lib/testing/scripted-server";
import { settingsEnabling } from "@/lib/testing/settings-db";

const root = path.resolve(__dirname, "../..");
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer(() => ({ delayMs: 150, json: { keep: [0] } }));
});
afterAll(() => server.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("SIGKILL during a memory experiment: recovered as interrupted, resumed without redoing a query", async () => {
  const dbFile = path.join(tempDir(), "jury.db");
  const db = createDb(dbFile);
  await importStudyFolder(db, path.join(root, "examples/memory-study"), "s");
  await writeSettings(db, settingsEnabling(["local"])); // the judge's provider must be enabled
  const planned = listStudyQueries(db, "s").length;
  const env = { JURY_DB: dbFile, JURY_LOCAL_BASE_URL: server.baseURL };
  const args = ["memory", "experiment", "--collection", "s", "--kind", "single", "--model", "local:judge"];
  const child = spawnJury(args, { env });

  const stored = () =>
    db.$client.prepare("select count(*) as n from experiment_results").get() as { n: number };
  const deadline = Date.now() + 20_000;
  while (stored().n < 3 && Date.now() < deadline) await sleep(20);
  child.kill("SIGKILL");
  await child.out;
  const kept = stored().n;
  expect(kept).toBeGreaterThanOrEqual(3);
  expect(kept).toBeLessThan(planned);
  const requestsAtKill = server.requests.length;

  const exp = db.$client.prepare("select id, status from experiments").get() as {
    id: string;
    status: string;
  };
  expect(exp.status).toBe("running"); // what the dead process left
  expect(await recoverJobs(db)).toBe(1);
  expect(db.$client.prepare("select status from experiments").get()).toEqual({ status: "interrupted" });
  expect(getJob(db, { id: exp.id })?.status).toBe("interrupted");

  const metrics = await runJury(["memory", "metrics", exp.id, "--collection", "s"], { env });
  expect(metrics.stdout).toContain(`experiment interrupted: ${kept} of ${planned} queries finished`);

  const resumed = await runJury([...args.slice(0, 2), "--resume", exp.id, "--json"], { env });
  expect(resumed.stderr).toBe("");
  expect(resumed.code).toBe(0);
  expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "done", complete: true });
  expect(stored().n).toBe(planned);
  // one judge call per query not finished before the kill, none for the queries already stored
  expect(server.requests.length - requestsAtKill).toBe(planned - kept);
  expect(getJob(db, { id: exp.id })?.status).toBe("done");
  db.$client.close();
});
