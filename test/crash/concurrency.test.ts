// Concurrency: two `jury eval` runs at once on one SQLite file while an annotation session writes
// ground truth through a second connection in this process. Nothing may fail, and no
// "SQLITE_BUSY" / "database is locked" may reach a user (stderr, thrown error, stored error).
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { type Annotation, listAnnotations, listStudyQueries, setAnnotations } from "@/db/queries/study";
import { enableProviders } from "@/lib/testing/settings-db";

const root = path.resolve(__dirname, "../..");
const BUSY = /SQLITE_BUSY|database is locked/i;
const COLLECTION = "shop-api";

type Proc = ChildProcess & { out: Promise<{ code: number | null; stdout: string; stderr: string }> };
const started: Proc[] = [];
const scratch: string[] = [];

/** Spawns in its own process group (killed in afterAll) and collects the output. */
function run(cmd: string, args: string[], env: Record<string, string>): Proc {
  const child = spawn(cmd, args, {
    cwd: root,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => (stdout += d));
  child.stderr?.on("data", (d) => (stderr += d));
  const out = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  const p = Object.assign(child, { out });
  started.push(p);
  return p;
}

afterAll(() => {
  for (const d of scratch) fs.rmSync(d, { recursive: true, force: true });
  for (const c of started) {
    if (c.pid && c.exitCode === null && c.signalCode === null) {
      try {
        process.kill(-c.pid, "SIGKILL");
      } catch {}
    }
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

/** The scripted server on a port the OS picks (no race with the crash suite's fixed range). */
async function startScripted(): Promise<{ baseURL: string; proc: Proc }> {
  const s = run(process.execPath, [path.join(root, "dist/scripted-server.mjs")], {
    SCRIPTED_PORT: "0",
    SCRIPTED_LATENCY_MS: "30",
  });
  let first = "";
  s.stdout?.on("data", (d) => (first += d));
  const deadline = Date.now() + 15_000;
  while (!first.includes("\n") && Date.now() < deadline && running(s)) await sleep(20);
  if (!first.includes("\n")) throw new Error(`the scripted server did not start: ${(await s.out).stderr}`);
  return { baseURL: JSON.parse(first.split("\n")[0]).baseURL as string, proc: s };
}

/** What to print when a run's samples failed: was the scripted server still there, and what did it say. */
const serverState = (p: Proc) =>
  running(p)
    ? "the scripted server is still running"
    : `the scripted server exited (${p.exitCode ?? p.signalCode})`;

describe("concurrency: two runs and an annotation session on one database", () => {
  it("finishes both runs with one sample per task, keeps every annotation write, and never shows SQLITE_BUSY", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-concurrency-"));
    scratch.push(dir);
    const file = path.join(dir, "jury.db");
    const scripted = await startScripted();
    const env = { JURY_DB: enableProviders(file), JURY_LOCAL_BASE_URL: scripted.baseURL };
    const jury = (args: string[]) => run(process.execPath, [path.join(root, "bin/jury.cjs"), ...args], env);

    const imp = await jury(["memory", "import-study", "examples/memory-study", "--collection", COLLECTION])
      .out;
    expect(imp.stderr).toBe("");
    expect(imp.code).toBe(0);

    // the annotation session: a second connection in this process
    const db = createDb(file);
    const queries = listStudyQueries(db, COLLECTION);
    const memoryIds = db.$client
      .prepare("select memory_id from memories where collection = ? order by memory_id")
      .pluck()
      .all(COLLECTION) as string[];
    expect(queries.length).toBeGreaterThan(0);
    expect(memoryIds.length).toBeGreaterThan(3);

    const a = jury([
      "eval",
      "examples/suites/qa",
      "--judges",
      "local:a,local:b",
      "--n",
      "3",
      "--no-cache",
      "--concurrency",
      "4",
      "--json",
    ]);
    const b = jury([
      "eval",
      "examples/suites/recommendations",
      "--judges",
      "local:c,local:d",
      "--n",
      "3",
      "--no-cache",
      "--concurrency",
      "4",
      "--json",
    ]);

    const expected = new Map<string, number>();
    const writeTimes: number[] = [];
    const errors: string[] = [];
    let writes = 0;
    let reads = 0;
    const deadline = Date.now() + 90_000;
    for (let i = 0; (running(a) || running(b)) && Date.now() < deadline && i < 200_000; i++) {
      const q = queries[i % queries.length];
      const items: Annotation[] = [];
      for (let k = 0; k < 1 + (i % 4); k++) {
        const memoryId = memoryIds[(i * 7 + k * 13) % memoryIds.length];
        if (!items.some((x) => x.memoryId === memoryId))
          items.push({ queryId: q.queryId, memoryId, relevance: (i + k) % 3, source: "human" });
      }
      try {
        setAnnotations(db, COLLECTION, items);
        writes++;
        writeTimes.push(Date.now());
        for (const x of items) expected.set(`${x.queryId}\u0000${x.memoryId}`, x.relevance);
        // the session re-reads the query it annotated, as the study page does
        if (listAnnotations(db, COLLECTION, q.queryId).length > 0) reads++;
      } catch (err) {
        errors.push(
          err instanceof Error ? `${(err as { code?: string }).code ?? ""} ${err.message}` : String(err),
        );
      }
      await sleep(2);
    }
    const [ra, rb] = await Promise.all([a.out, b.out]);

    // no SQLITE_BUSY anywhere a user would see it
    expect(errors).toEqual([]);
    for (const r of [imp, ra, rb]) {
      expect(r.stderr).not.toMatch(BUSY);
      expect(r.stdout).not.toMatch(BUSY);
    }
    // both runs done (exit 1 only means some verdict failed its threshold)
    expect([0, 1]).toContain(ra.code);
    expect([0, 1]).toContain(rb.code);
    const outA = JSON.parse(ra.stdout);
    const outB = JSON.parse(rb.stdout);
    expect(outA.status).toBe("done");
    expect(outB.status).toBe("done");

    // every annotation write landed: the stored values are the last ones written
    expect(writes).toBeGreaterThanOrEqual(20);
    expect(reads).toBe(writes);
    const stored = new Map(
      listAnnotations(db, COLLECTION).map((x) => [`${x.queryId}\u0000${x.memoryId}`, x.relevance]),
    );
    for (const [k, v] of expected) expect(stored.get(k), k).toBe(v);
    db.$client.close();

    const ro = new Database(file, { readonly: true });
    try {
      for (const id of [outA.run_id, outB.run_id]) {
        const r = ro
          .prepare(
            `select status, error, started_at as startedAt, finished_at as finishedAt,
               (select count(*) from tasks where run_id = runs.id) as tasks,
               (select count(*) from tasks where run_id = runs.id and status = 'pending') as pending,
               (select count(*) from samples where run_id = runs.id) as samples,
               (select count(distinct task_id) from samples where run_id = runs.id) as distinctTasks,
               (select count(*) from samples where run_id = runs.id and error is not null) as sampleErrors,
               (select group_concat(distinct error) from samples where run_id = runs.id and error is not null) as errorKinds
             from runs where id = ?`,
          )
          .get(id) as Record<string, number | string | null>;
        expect(r.status, id).toBe("done");
        expect(r.error).toBeNull();
        expect(r.pending).toBe(0);
        expect(r.samples).toBe(r.tasks);
        expect(r.distinctTasks).toBe(r.tasks);
        expect(r.sampleErrors, `${r.errorKinds} (${serverState(scripted.proc)})`).toBe(0);
      }
      // the test means something only if the runs and the writes overlapped
      const spans = ro
        .prepare("select started_at as s, finished_at as f from runs where id in (?, ?)")
        .all(outA.run_id, outB.run_id) as { s: number; f: number }[];
      const from = Math.max(...spans.map((x) => x.s));
      const to = Math.min(...spans.map((x) => x.f));
      expect(from).toBeLessThan(to);
      expect(writeTimes.filter((t) => t >= from && t <= to).length).toBeGreaterThan(0);
      const busyStored = ro
        .prepare(
          "select count(*) from samples where error like '%SQLITE_BUSY%' or error like '%database is locked%'",
        )
        .pluck()
        .get();
      expect(busyStored).toBe(0);
      expect(ro.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      ro.close();
    }
  }, 120_000);

  it("imports studies with `jury memory import-study` while two runs write, and no import fails with SQLITE_BUSY", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-concurrency-"));
    scratch.push(dir);
    const file = path.join(dir, "jury.db");
    const env = { JURY_DB: file, JURY_LOCAL_BASE_URL: (await startScripted()).baseURL };
    const jury = (args: string[]) => run(process.execPath, [path.join(root, "bin/jury.cjs"), ...args], env);
    expect((await jury(["db", "migrate"]).out).code).toBe(0);
    enableProviders(file); // judges are called only when their provider is enabled

    const evalArgs = (suite: string, judges: string) => [
      "eval",
      suite,
      "--judges",
      judges,
      "--n",
      "5",
      "--no-cache",
      "--concurrency",
      "4",
      "--json",
    ];
    const a = jury(evalArgs("examples/suites/qa", "local:a,local:b"));
    const b = jury(evalArgs("examples/suites/recommendations", "local:c,local:d"));
    // wait for both runs to be writing samples
    const deadline = Date.now() + 20_000;
    const samples = () => {
      const d = new Database(file, { readonly: true, timeout: 10_000 });
      try {
        return d.prepare("select count(distinct run_id) from samples").pluck().get() as number;
      } catch {
        return 0;
      } finally {
        d.close();
      }
    };
    while (samples() < 2 && Date.now() < deadline && (running(a) || running(b))) await sleep(20);

    const imports: { collection: string; code: number | null; stderr: string; stdout: string }[] = [];
    for (let i = 0; (running(a) || running(b)) && i < 20; i++) {
      const collection = `study-${i}`;
      const r = await jury(["memory", "import-study", "examples/memory-study", "--collection", collection])
        .out;
      imports.push({ collection, ...r });
    }
    const [ra, rb] = await Promise.all([a.out, b.out]);

    expect(imports.length).toBeGreaterThan(0);
    const failed = imports.filter((r) => r.code !== 0 || BUSY.test(r.stderr));
    expect(failed.map((r) => `${r.collection}: exit ${r.code}: ${r.stderr.trim()}`)).toEqual([]);
    for (const r of [ra, rb]) {
      expect(r.stderr).not.toMatch(BUSY);
      expect([0, 1]).toContain(r.code);
      expect(JSON.parse(r.stdout).status).toBe("done");
    }
  }, 120_000);
});
