// Runs at scale (issue 15, the README's scale page): a judge-panel run of about 1,000, 10,000 and
// 100,000 samples, each on a fresh database. For each size:
//   (a) the run: executeRun against the scripted OpenAI-compatible server (a child process, fixed
//       5 ms latency), concurrency 32 and perProviderConcurrency 32; wall time, samples/s, client CPU;
//   (b) the dashboard: GET /runs/<id> (the whole HTML) and GET /runs on a production build
//       (`next start` with JURY_DB pointing at that database), median of 5 requests after one warm-up;
//       beside them, the page's own queries and computations timed in this process (where the time goes);
//   (c) the database: file size (the -wal included, after a checkpoint) and rows per table.
// Shape: 2 judges (local:a, local:b) × 2 LLM criteria × N=5 = 20 LLM samples per case, so
// size / 20 cases; each case also has one deterministic sample (not counted in the size).
//
//   node scripts/build-cli.mjs && node dist/run-scale-bench.mjs [--sizes=1000,10000,100000] [--json]
//     [--app-dir=DIR] [--requests=5] [--latency=5] [--keep]
//
// (b) needs a production build in --app-dir (default: the cwd): `npm run build` there first (its
// .next/BUILD_ID); without one (b) is skipped and said so. --keep leaves the databases in place (their
// paths are printed). Not part of `npm run bench`: the 100,000-sample size takes minutes.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createDb, type SqliteDb } from "@/db/client";
import { getRunLive } from "@/db/queries/progress";
import {
  getCellJudgeStats,
  getFailureMessages,
  getRunCaseIndex,
  getVerdictSummaries,
} from "@/db/queries/run-page";
import {
  getMedianLatencyByJudge,
  getProgressByRun,
  getRunById,
  getRunSamples,
  listRuns,
} from "@/db/queries/runs";
import { executeRun } from "@/lib/runs/execute-run";
import { createRun, DETERMINISTIC_JUDGE } from "@/lib/runs/plan-run";
import { loadRunPage } from "@/lib/runs/run-page";
import { loadSuite } from "@/lib/suites/load-suite";
import { settingsFor, tempDb, testRegistry, testSuite } from "@/lib/testing/fixtures";

const JUDGES = ["local:a", "local:b"];
const LLM_CRITERIA = 2; // the test registry's "helpful" (1–10) and "brief" (1–5)
const N = 5;
const PER_CASE = JUDGES.length * LLM_CRITERIA * N; // 20 LLM samples per case
const CONCURRENCY = 32;

const args = process.argv.slice(2);
const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const json = args.includes("--json");
const keep = args.includes("--keep");
const SIZES = (opt("sizes") ?? "1000,10000,100000").split(",").map((s) => Number(s.replace(/_/g, "")));
const REQUESTS = Number(opt("requests") ?? 5);
const LATENCY_MS = Number(opt("latency") ?? 5);
const appDir = path.resolve(opt("app-dir") ?? ".");
const log = (msg: string) => process.stderr.write(`${msg}\n`);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

// --- the scripted server, in a child process (its CPU is not the client's) ----------------------

type Server = { baseURL: string; requestCount(): Promise<number>; close(): Promise<void> };

function distFile(name: string): string {
  const candidates = [fileURLToPath(new URL(`./${name}`, import.meta.url)), path.resolve("dist", name)];
  const found = candidates.find((f) => fs.existsSync(f));
  if (!found) throw new Error(`dist/${name} not found: run node scripts/build-cli.mjs first`);
  return found;
}

/** Kills a child when this process exits, even when the bench fails. */
function reap(child: ChildProcess): () => void {
  const kill = () => child.kill("SIGTERM");
  process.once("exit", kill);
  return () => process.off("exit", kill);
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });

async function scriptedServer(): Promise<Server> {
  const child = spawn(process.execPath, [distFile("scripted-server.mjs")], {
    env: { ...process.env, SCRIPTED_PORT: "0", SCRIPTED_LATENCY_MS: String(LATENCY_MS) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const unreap = reap(child);
  const info = await new Promise<{ url: string; baseURL: string }>((resolve, reject) => {
    let buf = "";
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`scripted server exited with ${code} before it started`)));
    child.stdout?.on("data", (d: Buffer) => {
      buf += d.toString("utf8");
      const nl = buf.indexOf("\n");
      if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
    });
  });
  child.removeAllListeners("exit");
  let seen = 0;
  return {
    baseURL: info.baseURL,
    async requestCount() {
      const total = ((await (await fetch(`${info.url}/__requests`)).json()) as { count: number }).count;
      const n = total - seen;
      seen = total;
      return n;
    },
    async close() {
      unreap();
      await exited(child);
    },
  };
}

// --- (a) the run and (c) the database -----------------------------------------------------------

type RunFigures = {
  size: number;
  cases: number;
  llmSamples: number;
  deterministicSamples: number;
  wallMs: number;
  idealMs: number;
  samplesPerSec: number;
  cpuMsPerSample: number;
  retries: number;
  db: { file: string; fileBytes: number; walBytes: number; rows: Record<string, number> };
  runId: string;
};

/** Rows of every table (FTS shadow tables and SQLite's own left out). */
function rowCounts(db: SqliteDb): Record<string, number> {
  const tables = db.$client
    .prepare(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '\\_%' escape '\\' and sql not like '%virtual%' and name not like '%fts%' and name not like 'memories_head%' order by name",
    )
    .all() as { name: string }[];
  const out: Record<string, number> = {};
  for (const { name } of tables) {
    const n = (db.$client.prepare(`select count(*) as n from "${name}"`).get() as { n: number }).n;
    if (n > 0) out[name] = n;
  }
  return out;
}

async function runAt(server: Server, size: number): Promise<RunFigures> {
  const cases = Math.max(1, Math.round(size / PER_CASE));
  const calls = cases * PER_CASE;
  const { registry, dir: criteriaDir } = testRegistry();
  const suiteDir = testSuite(cases);
  const suite = loadSuite(suiteDir);
  for (const d of [criteriaDir, suiteDir]) fs.rmSync(d, { recursive: true, force: true }); // loaded: not needed
  const base = settingsFor(server.baseURL, { concurrency: CONCURRENCY, perProviderConcurrency: CONCURRENCY });
  const settings = {
    ...base,
    prices: Object.fromEntries(JUDGES.map((j) => [j, { inputPerMTok: 1, outputPerMTok: 2 }])),
  };
  const { db, file } = tempDb();
  const runId = await createRun(db, suite, registry, {
    judges: JUDGES,
    n: N,
    temperature: 0.8,
    concurrency: CONCURRENCY,
    noCache: true,
  });
  await server.requestCount(); // reset the counter
  log(
    `[${size}] run ${runId}: ${cases} cases, ${calls} LLM calls at ${LATENCY_MS} ms, concurrency ${CONCURRENCY}`,
  );
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const status = await executeRun(db, runId, { settings, registry });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);

  const problems: string[] = [];
  if (status !== "done") problems.push(`status ${status} (${getRunById(db, { id: runId })?.error ?? ""})`);
  const all = getRunSamples(db, { runId });
  const llm = all.filter((s) => s.judge !== DETERMINISTIC_JUDGE);
  if (llm.length !== calls) problems.push(`${llm.length} LLM samples, expected ${calls}`);
  const bad = llm.filter((s) => s.error !== null || s.score === null);
  if (bad.length) problems.push(`${bad.length} samples with errors, e.g. ${bad[0].error}`);
  const retries = llm.reduce((a, s) => a + s.attempts - 1, 0);
  const requests = await server.requestCount();
  if (requests !== calls + retries)
    problems.push(`server saw ${requests} requests, expected ${calls} calls + ${retries} retries`);
  if (problems.length) throw new Error(`run ${runId}: ${problems.join("; ")}`);

  db.$client.pragma("wal_checkpoint(TRUNCATE)");
  const rows = rowCounts(db);
  db.$client.close();
  const size0 = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const figures: RunFigures = {
    size,
    cases,
    llmSamples: calls,
    deterministicSamples: all.length - llm.length,
    wallMs,
    idealMs: Math.ceil(calls / CONCURRENCY) * LATENCY_MS,
    samplesPerSec: calls / (wallMs / 1000),
    cpuMsPerSample: cpuMs / calls,
    retries,
    db: { file, fileBytes: size0(file), walBytes: size0(`${file}-wal`), rows },
    runId,
  };
  log(
    `[${size}] ${(wallMs / 1000).toFixed(2)} s (ideal ${(figures.idealMs / 1000).toFixed(2)} s), ${figures.samplesPerSec.toFixed(0)} samples/s, ${figures.cpuMsPerSample.toFixed(3)} CPU ms/sample, db ${(figures.db.fileBytes / 2 ** 20).toFixed(1)} MiB`,
  );
  return figures;
}

// --- where the page's time goes: its queries and computations, in this process -----------------

type Phases = Record<string, number>;

function timed<T>(into: Phases, name: string, f: () => T): T {
  const t0 = performance.now();
  const v = f();
  into[name] = (into[name] ?? 0) + performance.now() - t0;
  return v;
}

async function timedAsync<T>(into: Phases, name: string, f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const v = await f();
  into[name] = (into[name] ?? 0) + performance.now() - t0;
  return v;
}

/** The run page's data work (app/runs/[id]/page.tsx → loadRunPage), its SQL parts, without the render. */
async function runPageData(db: SqliteDb, id: string): Promise<Phases> {
  const p: Phases = {};
  timed(p, "getRunLive", () => getRunLive(db, id));
  timed(p, "getRunCaseIndex", () => getRunCaseIndex(db, { runId: id }));
  timed(p, "getCellJudgeStats", () => getCellJudgeStats(db, { runId: id }));
  timed(p, "getVerdictSummaries", () => getVerdictSummaries(db, { runId: id }));
  timed(p, "getFailureMessages", () => getFailureMessages(db, { runId: id }));
  // the whole page's data, those queries included (they are not added to the total twice)
  const all: Phases = {};
  await timedAsync(all, "loadRunPage", () => loadRunPage(db, id, {}));
  return { ...p, loadRunPage: all.loadRunPage };
}

/** The runs list's queries (app/runs/page.tsx), without settings, suites and the render. */
function runsListData(db: SqliteDb): Phases {
  const p: Phases = {};
  timed(p, "listRuns", () => listRuns(db));
  timed(p, "getProgressByRun", () => getProgressByRun(db));
  timed(p, "getMedianLatencyByJudge", () => getMedianLatencyByJudge(db));
  return p;
}

function medianPhases(xs: Phases[]): Phases {
  return Object.fromEntries(Object.keys(xs[0]).map((k) => [k, round(median(xs.map((x) => x[k])), 2)]));
}

async function inProcessPhases(file: string, runId: string) {
  const db = createDb(file);
  try {
    await runPageData(db, runId); // warm-up, as for the requests
    runsListData(db);
    const page: Phases[] = [];
    const list: Phases[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      page.push(await runPageData(db, runId));
      list.push(runsListData(db));
    }
    const total = (p: Phases) =>
      round(
        Object.values(p).reduce((a, b) => a + b, 0),
        2,
      );
    const runPage = medianPhases(page);
    const runsList = medianPhases(list);
    return {
      // loadRunPage already includes the queries timed beside it
      runPage: { totalMs: runPage.loadRunPage, ...runPage },
      runsList: { totalMs: total(runsList), ...runsList },
    };
  } finally {
    db.$client.close();
  }
}

// --- (b) the production server ------------------------------------------------------------------

type PageFigures = {
  path: string;
  status: number;
  htmlBytes: number;
  /** time to the response's headers (Next streams the rest) */
  ttfbMs: number;
  /** time to the whole body */
  fullMs: number;
  warmupMs: number;
  runsMs: number[];
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function startApp(dbFile: string) {
  const port = await freePort();
  const nextBin = createRequire(path.join(appDir, "package.json")).resolve("next/dist/bin/next");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production",
    JURY_DB: dbFile,
    JURY_HOST: "127.0.0.1",
    PORT: String(port),
  };
  delete env.JURY_ACCESS_TOKEN;
  const child = spawn(
    process.execPath,
    [nextBin, "start", "--hostname", "127.0.0.1", "--port", String(port)],
    {
      cwd: appDir,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const unreap = reap(child);
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`next start exited with ${child.exitCode}: ${stderr.slice(-2000)}`);
    try {
      await fetch(`${url}/favicon.ico`);
      break;
    } catch {
      if (performance.now() - t0 > 60_000) throw new Error(`next start did not answer in 60 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    startMs: performance.now() - t0,
    async close() {
      unreap();
      await exited(child);
    },
  };
}

async function get(url: string) {
  const t0 = performance.now();
  const res = await fetch(url);
  const ttfb = performance.now() - t0;
  const body = await res.text();
  return { status: res.status, ttfb, full: performance.now() - t0, bytes: Buffer.byteLength(body) };
}

async function timePage(base: string, p: string): Promise<PageFigures> {
  const warm = await get(base + p);
  if (warm.status !== 200) throw new Error(`GET ${p} answered ${warm.status}`);
  const runs: Awaited<ReturnType<typeof get>>[] = [];
  for (let i = 0; i < REQUESTS; i++) runs.push(await get(base + p));
  return {
    path: p,
    status: warm.status,
    htmlBytes: warm.bytes,
    ttfbMs: round(median(runs.map((r) => r.ttfb))),
    fullMs: round(median(runs.map((r) => r.full))),
    warmupMs: round(warm.full),
    runsMs: runs.map((r) => round(r.full)),
  };
}

async function pagesAt(r: RunFigures) {
  const app = await startApp(r.db.file);
  try {
    log(`[${r.size}] next start on ${app.url} (${(app.startMs / 1000).toFixed(1)} s to answer)`);
    const runPage = await timePage(app.url, `/runs/${r.runId}`);
    const runsList = await timePage(app.url, "/runs");
    log(
      `[${r.size}] GET /runs/<id> ${runPage.fullMs} ms (${(runPage.htmlBytes / 2 ** 20).toFixed(2)} MiB HTML), GET /runs ${runsList.fullMs} ms`,
    );
    return { runPage, runsList };
  } finally {
    await app.close();
  }
}

// --- report -------------------------------------------------------------------------------------

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((x) => x[c].length)));
  return rows
    .map((x) =>
      x
        .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

async function main() {
  if (!SIZES.length || SIZES.some((s) => !Number.isInteger(s) || s < PER_CASE))
    throw new Error(`--sizes must be whole numbers ≥ ${PER_CASE}, comma-separated`);
  if (!Number.isInteger(REQUESTS) || REQUESTS < 1) throw new Error("--requests must be a whole number ≥ 1");
  const built = fs.existsSync(path.join(appDir, ".next", "BUILD_ID"));
  if (!built)
    log(
      `no production build in ${appDir} (.next/BUILD_ID): the page timings (b) are skipped; run \`npm run build\` there or pass --app-dir`,
    );

  const server = await scriptedServer();
  const results = [];
  try {
    // a small warm-up run, not reported: the first run pays for module compilation and the worker
    await runAt(server, PER_CASE * 10).then((w) => fs.rmSync(path.dirname(w.db.file), { recursive: true }));
    for (const size of SIZES) {
      const run = await runAt(server, size);
      const phases = await inProcessPhases(run.db.file, run.runId);
      const pages = built ? await pagesAt(run) : undefined;
      if (!keep) fs.rmSync(path.dirname(run.db.file), { recursive: true, force: true });
      results.push({ ...run, phases, pages });
    }
  } finally {
    await server.close();
  }

  const figures = {
    shape: { judges: JUDGES, llmCriteria: LLM_CRITERIA, n: N, llmSamplesPerCase: PER_CASE },
    latencyMs: LATENCY_MS,
    concurrency: CONCURRENCY,
    perProviderConcurrency: CONCURRENCY,
    requests: REQUESTS,
    appDir: built ? appDir : null,
    sizes: results.map((r) => ({
      ...r,
      wallMs: round(r.wallMs),
      samplesPerSec: round(r.samplesPerSec, 0),
      cpuMsPerSample: round(r.cpuMsPerSample, 3),
      dbMiB: round((r.db.fileBytes + r.db.walBytes) / 2 ** 20, 2),
    })),
  };
  if (json) {
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    return;
  }
  const ms = (x: number | undefined) => (x === undefined ? "skipped" : x.toFixed(0));
  console.log(
    `\nRuns at scale: ${JUDGES.length} judges × ${LLM_CRITERIA} LLM criteria × N=${N} (${PER_CASE} LLM samples a case, + 1 deterministic),` +
      ` scripted server at ${LATENCY_MS} ms, concurrency ${CONCURRENCY}, perProviderConcurrency ${CONCURRENCY}\n`,
  );
  console.log(
    table([
      [
        "LLM samples",
        "cases",
        "run wall s",
        "ideal s",
        "samples/s",
        "CPU ms/sample",
        "run page ms",
        "HTML MiB",
        "runs list ms",
        "db MiB",
      ],
      ...figures.sizes.map((r) => [
        r.llmSamples.toLocaleString("en"),
        String(r.cases),
        (r.wallMs / 1000).toFixed(2),
        (r.idealMs / 1000).toFixed(2),
        r.samplesPerSec.toFixed(0),
        r.cpuMsPerSample.toFixed(3),
        ms(r.pages?.runPage.fullMs),
        r.pages ? (r.pages.runPage.htmlBytes / 2 ** 20).toFixed(2) : "",
        ms(r.pages?.runsList.fullMs),
        r.dbMiB.toFixed(1),
      ]),
    ]),
  );
  console.log(
    "\nWhere the run page's and the runs list's time goes (their queries and computations, in this process, ms):",
  );
  for (const r of figures.sizes)
    console.log(
      `  ${r.llmSamples.toLocaleString("en")}: run page ${JSON.stringify(r.phases.runPage)}\n${" ".repeat(r.llmSamples.toLocaleString("en").length + 4)}runs list ${JSON.stringify(r.phases.runsList)}`,
    );
  console.log("\nRows:");
  for (const r of figures.sizes)
    console.log(`  ${r.llmSamples.toLocaleString("en")}: ${JSON.stringify(r.db.rows)}`);
  console.log(
    `\nrun wall = executeRun (incl. finalizeRun) on a fresh database; ideal = ⌈calls / ${CONCURRENCY}⌉ × ${LATENCY_MS} ms.` +
      `\npage ms = GET of the whole HTML from \`next start\` (${built ? appDir : "no build"}), median of ${REQUESTS} after one warm-up.` +
      "\ndb MiB = the database file plus its -wal after a checkpoint (TRUNCATE).",
  );
  if (!built)
    console.log(
      "Page timings skipped: no .next/BUILD_ID in the app dir (pass --app-dir=<a built checkout>).",
    );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
