import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { tempDir, writeJson } from "@/lib/testing/fixtures";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "@/lib/testing/scripted-server";
import { enableProviders } from "@/lib/testing/settings-db";

// The run page's "retry failed samples" and "re-sample this item" server actions, end to end against
// the scripted judge server: each requeues through the job runner (lib/runs/background.ts) and the run
// finishes again with the new samples; the old ones stay, marked.
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

const dbFile = path.join(tempDir(), "triage.db");
const saved = { db: process.env.JURY_DB, url: process.env.JURY_LOCAL_BASE_URL };
let server: ScriptedServer;

/** Model "flaky" answers prose to the first call of each prompt (a failed sample), then a score. */
function flaky() {
  const seen = new Set<string>();
  return (req: ScriptRequest) => {
    const k = `${req.model}\u0000${req.text}`;
    if (req.model === "flaky" && !seen.has(k)) {
      seen.add(k);
      return { text: "no JSON today" };
    }
    return { json: { score: 8, reasoning: `call ${req.index}` } };
  };
}

beforeAll(async () => {
  server = await startScriptedServer(flaky());
  enableProviders(dbFile, ["local"]);
  process.env.JURY_DB = dbFile;
  process.env.JURY_LOCAL_BASE_URL = server.baseURL;
});
afterAll(async () => {
  await server.close();
  for (const [k, v] of [
    ["JURY_DB", saved.db],
    ["JURY_LOCAL_BASE_URL", saved.url],
  ] as const)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

async function flakyRun(): Promise<string> {
  const { getDb } = await import("@/db/client");
  const { loadProjectCriteria } = await import("@/lib/criteria/load");
  const { createRun } = await import("@/lib/runs/plan-run");
  const { executeRun } = await import("@/lib/runs/execute-run");
  const { loadSuite } = await import("@/lib/suites/load-suite");
  const { readSettings } = await import("@/lib/settings/store");
  const dir = tempDir("jury-triage-suite-");
  writeJson(path.join(dir, "suite.json"), {
    name: "Triage",
    criteria: [{ id: "correctness", threshold: 5 }],
  });
  for (const i of [1, 2])
    writeJson(path.join(dir, "cases", `c${i}.json`), {
      id: `c${i}`,
      name: `Case ${i}`,
      input: { prompt: `${dir} ${i} + ${i}?` },
      output: `${2 * i}`,
    });
  const db = getDb();
  const registry = loadProjectCriteria();
  const runId = await createRun(db, loadSuite(dir), registry, {
    judges: ["local:ok", "local:flaky"],
    n: 2,
    temperature: 0.8,
    concurrency: 4,
    noCache: false,
  });
  expect(await executeRun(db, runId, { settings: await readSettings(db), registry })).toBe(
    "done_with_failures",
  );
  return runId;
}

/** Waits for the background job to finish the run (it is started without being awaited). */
async function settled(runId: string): Promise<string> {
  const { getDb } = await import("@/db/client");
  const { getRunById } = await import("@/db/queries/runs");
  for (let i = 0; i < 200; i++) {
    const s = (await getRunById(getDb(), { id: runId }))?.status ?? "";
    if (s !== "queued" && s !== "running") return s;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the run did not finish");
}

describe("triage actions", () => {
  it("retryFailedSamples requeues the failed samples and the job runner finishes the run", async () => {
    const runId = await flakyRun();
    const { retryFailedSamples } = await import("@/app/actions/runs");
    const { getDb } = await import("@/db/client");
    const q = await import("@/db/queries/runs");
    const { getJob } = await import("@/db/queries/jobs");
    const db = getDb();
    const failedIds = (await q.getRunSamples(db, { runId })).filter((s) => s.error).map((s) => s.id);
    expect(failedIds).toHaveLength(2);
    const calls = server.requests.length;

    expect(await retryFailedSamples(runId)).toEqual({ ok: true, data: { requeued: 2 } });
    expect(await settled(runId)).toBe("done");
    expect(server.requests.length - calls).toBe(2);
    // the job ran it: one job row, finished
    expect(await getJob(db, { id: runId })).toMatchObject({ kind: "run", status: "done" });
    const history = await q.getRunSampleHistory(db, { runId });
    expect(history.filter((s) => s.supersededReason === "retried").map((s) => s.id)).toEqual(failedIds);
    expect((await q.getRunSamples(db, { runId })).every((s) => !s.error)).toBe(true);
    for (const r of await q.getRunResults(db, { runId }))
      expect(r.data.coverage).toMatchObject({ samples_answered: 4, samples_failed: 0 });

    // nothing left: refused, nothing marked
    expect(await retryFailedSamples(runId)).toMatchObject({
      ok: false,
      error: "No failed samples to retry.",
    });
  });

  it("resampleItem asks one item's judges anew; the rest of the run is untouched", async () => {
    const runId = await flakyRun();
    const { resampleItem } = await import("@/app/actions/runs");
    const { getDb } = await import("@/db/client");
    const q = await import("@/db/queries/runs");
    const db = getDb();
    const other = (await q.getRunSamples(db, { runId })).filter((s) => s.caseId === "c2");
    const calls = server.requests.length;
    expect(await resampleItem(runId, "c1", "correctness")).toEqual({ ok: true, data: { requeued: 4 } });
    // the run is done with failures again (c2 keeps its failed sample), after four live calls
    expect(await settled(runId)).toBe("done_with_failures");
    expect(server.requests.length - calls).toBe(4);
    expect((await q.getRunSamples(db, { runId })).filter((s) => s.caseId === "c2")).toEqual(other);
    const c1 = await q.getRunSampleHistory(db, { runId, caseId: "c1", criterionId: "correctness" });
    expect(c1.filter((s) => s.supersededReason === "resampled")).toHaveLength(4);
    expect(c1.filter((s) => s.supersededAt === null && !s.cached)).toHaveLength(4);
  });

  it("refuses bad input, a live run, and judges that cannot be called, before marking anything", async () => {
    const { retryFailedSamples, resampleItem } = await import("@/app/actions/runs");
    expect(await retryFailedSamples("'; drop table runs; --")).toMatchObject({
      ok: false,
      error: "Not a run id",
    });
    expect(await retryFailedSamples(42 as unknown as string)).toMatchObject({ ok: false });
    expect(await retryFailedSamples("run_20200101_deadbeef")).toMatchObject({
      ok: false,
      error: "No such run",
    });
    expect(await resampleItem("run_20200101_deadbeef", "c1", "../etc")).toMatchObject({
      ok: false,
      error: "Not a run item",
    });

    const runId = await flakyRun();
    const { getDb } = await import("@/db/client");
    const q = await import("@/db/queries/runs");
    const db = getDb();
    await q.setRunStatus(db, { id: runId, status: "running" });
    expect(await retryFailedSamples(runId)).toMatchObject({
      ok: false,
      error: expect.stringContaining("The run is running: wait for it to finish"),
    });
    await q.setRunStatus(db, { id: runId, status: "done_with_failures" });

    // the local provider turned off: the retry names the judge and what it lacks
    const { readSettings, writeSettings } = await import("@/lib/settings/store");
    const s = await readSettings(db);
    await writeSettings(db, {
      ...s,
      providers: { ...s.providers, local: { ...s.providers.local, enabled: false } },
    });
    try {
      expect(await retryFailedSamples(runId)).toMatchObject({
        ok: false,
        error: expect.stringMatching(
          /^Nothing queued: a judge cannot be called:\n {2}local:flaky: the local provider is disabled/,
        ),
      });
      expect((await q.getRunSampleHistory(db, { runId })).filter((x) => x.supersededAt)).toHaveLength(0);
    } finally {
      await writeSettings(db, s);
    }
  });
});
