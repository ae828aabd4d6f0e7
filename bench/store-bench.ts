// Store benchmark: the judge bench's 2,000-call panel (concurrency 32, 50 ms a call, the scripted
// server in a child process) worked on SQLite and on PostgreSQL, each by this process alone and by
// this process with one `jury worker` beside it. Prints wall time against the ideal per backend, and
// the ratios PostgreSQL ÷ SQLite (target ≤ 1.15) and two workers ÷ one (target ≤ 1: no slower).
//
//   npm run bench                  (all benches; this one needs PostgreSQL, see below)
//   node dist/store-bench.mjs [--json] [--repeats=N] [--only=sqlite:1,postgresql:2]
//
// PostgreSQL: the server JURY_TEST_DATABASE_URL (or JURY_BENCH_DATABASE_URL) names; each measurement
// gets a fresh database there (jury_bench_store), dropped at the end. Without either, the PostgreSQL
// rows are skipped and say so.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { type AnyDb, closeDb, createDb, createPgDb } from "@/db/client";
import { getRunSamples, getRunTasks } from "@/db/queries/runs";
import type { RunOptions } from "@/db/schema";
import { loadCriteria } from "@/lib/criteria/registry";
import { executeRun } from "@/lib/runs/execute-run";
import { createRun } from "@/lib/runs/plan-run";
import { writeSettings } from "@/lib/settings/store";
import { loadSuite } from "@/lib/suites/load-suite";
import { llmSuite, settingsFor } from "@/lib/testing/fixtures";

const LATENCY_MS = 50;
const CONCURRENCY = 32;
const CASES = 100;
const N = 10;
const CALLS = CASES * 2 * N; // two LLM criteria, one judge: 2,000
const TARGET_PG_RATIO = 1.15;

const args = process.argv.slice(2);
const json = args.includes("--json");
const REPEATS = Number(args.find((a) => a.startsWith("--repeats="))?.slice("--repeats=".length) ?? 3);
// --only=sqlite:1 (backend:workers, comma-separated): those cells alone, to compare two versions quickly
const ONLY = args
  .find((a) => a.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");
const log = (msg: string) => process.stderr.write(`${msg}\n`);
const root = process.cwd();

type Backend = "sqlite" | "postgresql";
type Measurement = {
  backend: Backend;
  workers: number;
  wallMs: number;
  ratio: number;
  /** calls in flight on average (their latencies summed over the wall time): the run's concurrency used */
  inFlight: number;
  /** a call's mean latency as the worker saw it (the server's 50 ms and every wait on this machine's CPU) */
  latencyMs: number;
};

/** The scripted server in a child process (its CPU is not this process's), answering after 50 ms. */
async function startServer(): Promise<{ baseURL: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [path.join(root, "dist/scripted-server.mjs")], {
    env: { ...process.env, SCRIPTED_PORT: "0", SCRIPTED_LATENCY_MS: String(LATENCY_MS) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const baseURL = await new Promise<string>((resolve, reject) => {
    let out = "";
    proc.stdout?.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve((JSON.parse(line) as { baseURL: string }).baseURL);
    });
    proc.once("exit", (code) => reject(new Error(`scripted server exited ${code}: ${out}`)));
  });
  return { baseURL, proc };
}

const pgServer = process.env.JURY_BENCH_DATABASE_URL || process.env.JURY_TEST_DATABASE_URL;

async function resetPg(): Promise<string> {
  const u = new URL(pgServer as string);
  const admin = new pg.Client({ connectionString: u.toString() });
  await admin.connect();
  try {
    await admin.query('drop database if exists "jury_bench_store" with (force)');
    await admin.query('create database "jury_bench_store"');
  } finally {
    await admin.end();
  }
  u.pathname = "/jury_bench_store";
  return u.toString();
}

type Cell = {
  backend: Backend;
  workers: number;
  db: AnyDb;
  run(): Promise<Measurement>;
  close(): Promise<void>;
};

/**
 * A backend with `workers - 1` `jury worker` processes beside this one, running already and waiting
 * for work (as a team's would be, warm: each cell's first run is not counted), and one store for all
 * of the cell's runs.
 */
async function openCell(backend: Backend, workers: number, baseURL: string): Promise<Cell> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-store-bench-"));
  const file = path.join(dir, "jury.db");
  const url = backend === "postgresql" ? await resetPg() : undefined;
  const db: AnyDb = url ? await createPgDb(url) : createDb(file);
  // two LLM criteria only: a `jury worker` loads criteria from JURY_CRITERIA_DIR, and the test
  // registry's deterministic one runs only in-process
  const { criteriaDir, suiteDir } = llmSuite(CASES, "Store");
  const registry = loadCriteria(criteriaDir, {});
  const settings = settingsFor(baseURL, { perProviderConcurrency: CONCURRENCY, timeoutMs: 30_000 });
  await writeSettings(db, settings);
  const options: RunOptions = {
    judges: ["local:a"],
    n: N,
    temperature: 0.8,
    concurrency: CONCURRENCY,
    noCache: true,
    providerConcurrency: CONCURRENCY,
  } as RunOptions;
  const env = {
    ...process.env,
    JURY_DB: file,
    ...(url ? { JURY_DATABASE_URL: url } : {}),
    JURY_LOCAL_BASE_URL: baseURL,
    JURY_CRITERIA_DIR: criteriaDir,
    JURY_CLAIM_POLL_MS: "20",
  };
  const helpers: ChildProcess[] = [];
  for (let i = 1; i < workers; i++) {
    const h = spawn(process.execPath, [path.join(root, "bin/jury.cjs"), "worker"], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    await new Promise<void>((resolve, reject) => {
      let err = "";
      h.stderr?.on("data", (d) => {
        err += d;
        if (err.includes("looking for runs")) resolve();
      });
      h.once("exit", (code) => reject(new Error(`jury worker exited ${code}: ${err}`)));
    });
    helpers.push(h);
  }
  const suite = loadSuite(suiteDir);
  const run = async (): Promise<Measurement> => {
    const runId = await createRun(db, suite, registry, options);
    const t0 = performance.now();
    const status = await executeRun(db, runId, { settings, registry, workerKind: "eval" });
    const wallMs = performance.now() - t0;
    const samples = await getRunSamples(db, { runId });
    if (status !== "done") {
      const errors = [...new Set(samples.map((s) => s.error).filter(Boolean))].slice(0, 3);
      throw new Error(`${backend}, ${workers} workers: the run ended ${status}: ${errors.join(" | ")}`);
    }
    if (samples.length !== CALLS) throw new Error(`${backend}: ${samples.length} samples`);
    // two workers measured as two only when both called: the processes that claimed tasks (host:pid:random)
    const claimers = new Set((await getRunTasks(db, { runId })).map((t) => t.claimedBy?.split(":").at(-2)));
    if (claimers.size < workers)
      throw new Error(`${backend}, ${workers} workers: only ${claimers.size} process(es) claimed tasks`);
    const latency = samples.reduce((sum, x) => sum + x.latencyMs, 0);
    const idealMs = (CALLS / CONCURRENCY) * LATENCY_MS;
    return {
      backend,
      workers,
      wallMs,
      ratio: wallMs / idealMs,
      inFlight: latency / wallMs,
      latencyMs: latency / samples.length,
    };
  };
  const close = async () => {
    await Promise.all(
      helpers.map((h) => {
        const exited = new Promise((r) => h.once("exit", r));
        h.kill("SIGTERM");
        return exited;
      }),
    );
    await closeDb(db);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { backend, workers, db, run, close };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const { baseURL, proc } = await startServer();
  const rows: Measurement[] = [];
  try {
    const backends: Backend[] = pgServer ? ["sqlite", "postgresql"] : ["sqlite"];
    if (!pgServer)
      log("store bench: no JURY_TEST_DATABASE_URL or JURY_BENCH_DATABASE_URL: PostgreSQL skipped");
    for (const workers of [1, 2])
      for (const backend of backends) {
        if (ONLY && !ONLY.includes(`${backend}:${workers}`)) continue;
        const cell = await openCell(backend, workers, baseURL);
        try {
          await cell.run(); // warm-up: this process's and the workers' code, the store's caches
          const runs: Measurement[] = [];
          for (let i = 0; i < REPEATS; i++) runs.push(await cell.run());
          const m = (f: (r: Measurement) => number) => median(runs.map(f));
          rows.push({
            backend,
            workers,
            wallMs: m((r) => r.wallMs),
            ratio: m((r) => r.ratio),
            inFlight: m((r) => r.inFlight),
            latencyMs: m((r) => r.latencyMs),
          });
          log(
            `store bench: ${backend}, ${workers} worker(s): ${Math.round(m((r) => r.wallMs))} ms (median of ${REPEATS})`,
          );
        } finally {
          await cell.close();
        }
      }
  } finally {
    proc.kill();
  }
  const cell = (b: Backend, w: number) => rows.find((r) => r.backend === b && r.workers === w);
  const pgRatio = (w: number) => {
    const p = cell("postgresql", w);
    const s = cell("sqlite", w);
    return p && s ? p.wallMs / s.wallMs : undefined;
  };
  const twoVsOne = (b: Backend) => {
    const two = cell(b, 2);
    const one = cell(b, 1);
    return two && one ? two.wallMs / one.wallMs : undefined;
  };
  const load = os.loadavg()[0];
  const figures = {
    calls: CALLS,
    concurrency: CONCURRENCY,
    latencyMs: LATENCY_MS,
    repeats: REPEATS,
    loadAverage: Number(load.toFixed(2)),
    rows: rows.map((r) => ({
      ...r,
      wallMs: Math.round(r.wallMs),
      ratio: Number(r.ratio.toFixed(3)),
      inFlight: Number(r.inFlight.toFixed(1)),
      latencyMs: Number(r.latencyMs.toFixed(1)),
    })),
    postgresqlOverSqlite: pgRatio(1),
    postgresqlOverSqliteTwoWorkers: pgRatio(2),
    twoWorkersOverOne: { sqlite: twoVsOne("sqlite"), postgresql: twoVsOne("postgresql") },
    targetPostgresqlOverSqlite: TARGET_PG_RATIO,
  };
  if (json) {
    console.log(JSON.stringify(figures, null, 2));
    return;
  }
  console.log(
    `\nStore: ${CALLS} calls, concurrency ${CONCURRENCY}, ${LATENCY_MS} ms each (load ${load.toFixed(2)})`,
  );
  console.log("backend      workers  wall ms  wall ÷ ideal  calls in flight  call ms");
  for (const r of rows)
    console.log(
      `${r.backend.padEnd(12)} ${String(r.workers).padStart(7)}  ${String(Math.round(r.wallMs)).padStart(7)}  ${r.ratio.toFixed(3).padStart(12)}  ${r.inFlight.toFixed(1).padStart(15)}  ${r.latencyMs.toFixed(1).padStart(7)}`,
    );
  const f = (x: number | undefined) => (x === undefined ? "n/a" : x.toFixed(3));
  console.log(
    `PostgreSQL ÷ SQLite: ${f(pgRatio(1))} with one worker (target ≤ ${TARGET_PG_RATIO}), ${f(pgRatio(2))} with two`,
  );
  console.log(
    `two workers ÷ one: SQLite ${f(twoVsOne("sqlite"))}, PostgreSQL ${f(twoVsOne("postgresql"))} (target ≤ 1)`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
