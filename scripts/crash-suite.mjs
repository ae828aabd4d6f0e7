#!/usr/bin/env node
// Crash suite: SIGKILLs the `jury` CLI and the dashboard server at random points during runs, resumes
// the runs, and checks that no sample was lost or duplicated, that the SQLite file is intact and that
// the dashboard never shows a run stuck as "running".
//
//   node scripts/crash-suite.mjs [--trials N] [--json] [--seed S] [--keep]
//
// Odd trials kill the CLI (`jury eval … --no-cache`, resumed with `jury eval --resume <id>`); even
// trials kill the server (`npx next start`): the run is started by clicking "Start run" on /runs in
// Chromium (playwright-core), the server's process group is SIGKILLed, the server restarted, the run
// page must say "interrupted", and the run is resumed by clicking "Resume" on /runs/<id>. A trial whose
// kill lands after its run finished is repeated (at most 3 attempts). After the trials one more CLI run
// is killed and left alone: its run page on a server that was up during the kill, then /runs on a fresh
// server, must show it as "interrupted" and nothing as "running"; then it is resumed too.
//
// Needs dist/ (`node scripts/build-cli.mjs`). The server trials need a production build
// (.next/BUILD_ID: `npm run build`) and Chromium (/usr/bin/chromium or CHROMIUM_PATH); without them they
// are skipped and the summary says so. Ports: the dashboard in 3600–3699, the scripted server where the OS puts it. Exit 1 on any violation.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const started = Date.now();

const { values: args } = parseArgs({
  options: {
    trials: { type: "string" },
    json: { type: "boolean" },
    seed: { type: "string" },
    keep: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
});
if (args.help) {
  process.stdout.write(
    "Usage: node scripts/crash-suite.mjs [--trials N (1-200, default 20)] [--json] [--seed S] [--keep]\n",
  );
  process.exit(0);
}
const trials = Number(args.trials ?? 20);
if (!Number.isInteger(trials) || trials < 1 || trials > 200) {
  process.stderr.write(`--trials must be a whole number from 1 to 200, got "${args.trials}"\n`);
  process.exit(2);
}
const seed = args.seed !== undefined ? Number(args.seed) >>> 0 : (Date.now() ^ (process.pid << 8)) >>> 0;

// ─── small utilities ─────────────────────────────────────────────────────────
/** mulberry32: the kill points are reproducible with --seed (the timing around them is not) */
const rand = (() => {
  let a = seed || 1;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** a timer that does not keep the process alive (for races) */
const later = (ms) => new Promise((r) => setTimeout(r, ms).unref());
const log = (msg) => process.stderr.write(`[crash-suite] ${msg}\n`);
const BUSY = /SQLITE_BUSY|database is locked/i;
const GLOBAL_DEADLINE = started + trials * 60_000 + 180_000;

class Violation extends Error {}
const violations = [];
const violate = (msg) => {
  violations.push(msg);
  log(`VIOLATION: ${msg}`);
};
const busyHits = [];

/** Polls `fn` every `everyMs` until it returns a truthy value; throws after `ms`. Always bounded. */
async function waitFor(what, fn, { ms = 30_000, everyMs = 50 } = {}) {
  const deadline = Math.min(Date.now() + ms, GLOBAL_DEADLINE);
  for (let i = 0; i < 1_000_000; i++) {
    const v = await fn();
    if (v) return v;
    if (Date.now() >= deadline) break;
    await sleep(everyMs);
  }
  throw new Violation(`timed out after ${ms} ms waiting for ${what}`);
}

// ─── processes: each child leads its own process group; every group is killed on exit ─────
const groups = new Set();

function startProcess(name, cmd, argv, env) {
  const child = spawn(cmd, argv, {
    cwd: root,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid) groups.add(child.pid);
  child.name = name;
  child.stdoutText = "";
  child.stderrText = "";
  let tail = "";
  const collect = (key) => (d) => {
    const s = String(d);
    if (child[key].length < 1_000_000) child[key] += s;
    const hit = BUSY.exec(tail + s);
    if (hit) busyHits.push(`${name}: …${(tail + s).slice(Math.max(0, hit.index - 80), hit.index + 120)}…`);
    tail = s.slice(-64);
  };
  child.stdout.on("data", collect("stdoutText"));
  child.stderr.on("data", collect("stderrText"));
  child.exited = new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
    child.on("error", (err) => {
      child.stderrText += String(err);
      resolve({ code: -1, signal: null });
    });
  });
  return child;
}

const isRunning = (child) => child.exitCode === null && child.signalCode === null;

function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
/** true while any process of the group is left (next-server outlives npm on SIGTERM, for one) */
const groupAlive = (pgid) => signalGroup(pgid, 0);

async function waitGroupGone(pgid, ms) {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid) && Date.now() < deadline) await sleep(20);
  if (groupAlive(pgid)) return false;
  groups.delete(pgid);
  return true;
}

/** SIGKILLs the whole group and waits until every process of it is gone. */
async function killHard(child) {
  signalGroup(child.pid, "SIGKILL");
  await Promise.race([child.exited, later(10_000)]);
  if (!(await waitGroupGone(child.pid, 10_000)))
    throw new Violation(`process group ${child.pid} (${child.name}) survived SIGKILL for 10 s`);
}

async function waitExit(child, ms) {
  const r = await Promise.race([child.exited, later(ms).then(() => null)]);
  if (r) {
    await waitGroupGone(child.pid, 5_000);
    return r;
  }
  await killHard(child);
  return null;
}

const pidAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
};

function killEverything() {
  for (const g of groups) signalGroup(g, "SIGKILL");
}
process.on("exit", killEverything);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"])
  process.on(sig, () => {
    killEverything();
    process.exit(130);
  });

function canListen(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}
async function freePort(taken) {
  for (let i = 0; i < 200; i++) {
    const p = 3600 + Math.floor(Math.random() * 100);
    if (!taken.has(p) && (await canListen(p))) {
      taken.add(p);
      return p;
    }
  }
  throw new Error("no free port in 3600–3699");
}

// ─── preconditions ───────────────────────────────────────────────────────────
for (const f of ["dist/cli.cjs", "dist/scripted-server.mjs"])
  if (!fs.existsSync(path.join(root, f))) {
    process.stderr.write(`crash-suite: ${f} is missing: run \`node scripts/build-cli.mjs\` first.\n`);
    process.exit(2);
  }
const chromiumPath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
let serverSkipReason = null;
if (!fs.existsSync(path.join(root, ".next", "BUILD_ID")))
  serverSkipReason =
    "no production build (.next/BUILD_ID is missing): run `npm run build` for the server trials";
else if (!fs.existsSync(chromiumPath))
  serverSkipReason = `no Chromium at ${chromiumPath} (set CHROMIUM_PATH) to drive the dashboard`;
if (serverSkipReason) log(`SERVER TRIALS SKIPPED: ${serverSkipReason}`);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "jury-crash-"));
const dbFile = path.join(scratch, "jury.db");
const ports = new Set();
const SUITE = "examples/suites/qa";
const JUDGES = ["local:a", "local:b"];
const EVAL_ARGS = [
  "eval",
  SUITE,
  "--judges",
  JUDGES.join(","),
  "--n",
  "3",
  "--no-cache",
  "--concurrency",
  "4",
];
const MAX_ATTEMPTS = 3;

const stats = {
  lost: 0,
  duplicated: 0,
  redone: 0,
  stuckRunning: 0,
  killsCli: 0,
  killsServer: 0,
  killsAfterFinish: 0,
  cliTrials: 0,
  serverTrials: 0,
  serverTrialsSkipped: 0,
  resumedByCli: 0,
  resumedByUi: 0,
};
const trialLog = [];
let env;

// ─── the database, read by the harness (read-only, except the settings row) ───
let ro;
const rdb = () => {
  ro ??= new Database(dbFile, { readonly: true, fileMustExist: true, timeout: 10_000 });
  return ro;
};
const q = {
  finished: (runId) =>
    rdb().prepare("select count(*) from tasks where run_id = ? and status != 'pending'").pluck().get(runId),
  total: (runId) => rdb().prepare("select count(*) from tasks where run_id = ?").pluck().get(runId),
  run: (runId) => rdb().prepare("select id, status, owner_pid as ownerPid from runs where id = ?").get(runId),
  runIds: () => rdb().prepare("select id from runs order by created_at, id").pluck().all(),
  samples: (runId) =>
    rdb()
      .prepare(
        "select id, task_id as taskId, score, error, raw_text as rawText from samples where run_id = ? order by id",
      )
      .all(runId),
};

/** Per-run invariants: one sample per finished task, none for pending ones, none twice. */
function checkRun(runId, where) {
  const r = rdb()
    .prepare(
      `select
         (select count(*) from tasks where run_id = $id) as total,
         (select total_tasks from runs where id = $id) as totalTasks,
         (select count(*) from tasks where run_id = $id and status != 'pending') as finished,
         (select count(*) from samples where run_id = $id) as samples,
         (select coalesce(sum(c - 1), 0) from (select count(*) as c from samples where run_id = $id
            group by task_id having count(*) > 1)) as duplicated,
         (select count(*) from tasks t where t.run_id = $id and t.status != 'pending'
            and (select count(*) from samples s where s.task_id = t.id) = 0) as finishedWithoutSample,
         (select count(*) from samples s join tasks t on t.id = s.task_id
            where s.run_id = $id and t.status = 'pending') as sampleOfPending,
         (select count(*) from samples s left join tasks t on t.id = s.task_id
            where s.run_id = $id and (t.id is null or t.run_id != s.run_id)) as orphan,
         (select count(*) from samples s join tasks t on t.id = s.task_id where s.run_id = $id
            and ((t.status = 'error') != (s.error is not null))) as statusMismatch`,
    )
    .get({ id: runId });
  const bad = [];
  if (r.samples !== r.finished) bad.push(`${r.samples} samples for ${r.finished} finished tasks`);
  if (r.total !== r.totalTasks) bad.push(`${r.total} task rows but total_tasks ${r.totalTasks}`);
  if (r.duplicated) bad.push(`${r.duplicated} duplicated samples`);
  if (r.finishedWithoutSample) bad.push(`${r.finishedWithoutSample} finished tasks without a sample`);
  if (r.sampleOfPending) bad.push(`${r.sampleOfPending} samples of pending tasks`);
  if (r.orphan) bad.push(`${r.orphan} samples without their task`);
  if (r.statusMismatch) bad.push(`${r.statusMismatch} tasks whose status disagrees with their sample`);
  for (const b of bad) violate(`${runId} (${where}): ${b}`);
  stats.duplicated += r.duplicated;
  stats.lost += r.finishedWithoutSample;
  return r;
}

/** Every sample stored before the kill is still there, unchanged, after the resume. */
function checkSnapshot(runId, before) {
  const after = new Map(q.samples(runId).map((s) => [s.id, JSON.stringify(s)]));
  let lost = 0;
  for (const s of before) if (after.get(s.id) !== JSON.stringify(s)) lost++;
  if (lost) violate(`${runId}: ${lost} samples stored before the kill are gone or changed after the resume`);
  stats.lost += lost;
}

function writeSettings(temperature) {
  // What saving the Settings page does: local judges a and b on, the mock off, N = 3, concurrency 4.
  // A temperature of its own per server run keeps the response cache from answering the whole run.
  const data = {
    providers: { local: { enabled: true, models: ["a", "b"] }, mock: { enabled: false, models: ["judge"] } },
    judging: { samples: 3, temperature, concurrency: 4, perProviderConcurrency: 4 },
  };
  const w = new Database(dbFile, { timeout: 10_000 });
  try {
    w.prepare(
      "insert into settings (id, data, updated_at) values (1, ?, ?) on conflict(id) do update set data = excluded.data, updated_at = excluded.updated_at",
    ).run(JSON.stringify(data), Date.now());
  } finally {
    w.close();
  }
}

// ─── the pieces: scripted model server, CLI, app server, browser ─────────────
async function startScripted() {
  // port 0: the OS picks one, so no other suite running beside this one can race for it
  const child = startProcess(
    "scripted-server",
    process.execPath,
    [path.join(root, "dist/scripted-server.mjs")],
    { SCRIPTED_PORT: "0", SCRIPTED_LATENCY_MS: process.env.SCRIPTED_LATENCY_MS ?? "30" },
  );
  const info = await waitFor(
    "the scripted server",
    () => {
      if (!isRunning(child)) throw new Error(`scripted server exited: ${child.stderrText}`);
      return child.stdoutText.includes("\n") ? JSON.parse(child.stdoutText.split("\n")[0]) : null;
    },
    { ms: 15_000 },
  );
  return { child, baseURL: info.baseURL };
}

const jury = (name, argv) =>
  startProcess(name, process.execPath, [path.join(root, "bin/jury.cjs"), ...argv], env);

/**
 * A random kill point: usually after 1–90 % of the tasks; one time in six right when the last task
 * finishes, which lands in the run's last step (aggregating the verdicts, marking it done) or just after.
 */
const killTarget = (total, attempt = 1) =>
  attempt === 1 && rand() < 1 / 6 ? total : Math.max(1, Math.round(rand() * 0.9 * total));

/** Waits until the run has `target` finished tasks (or its process is gone), then SIGKILLs the group. */
async function killAt(child, runId, target, kind) {
  const total = q.total(runId);
  await waitFor(
    `${target} finished tasks of ${runId}`,
    () => !isRunning(child) || q.finished(runId) >= target,
    {
      ms: 60_000,
      everyMs: 4,
    },
  );
  const jitter = Math.floor(rand() * 15);
  if (jitter) await sleep(jitter);
  const aliveAtKill = isRunning(child);
  await killHard(child);
  const finished = q.finished(runId);
  const run = q.run(runId);
  const landed = aliveAtKill && run.status !== "done";
  if (landed) {
    if (kind === "cli") stats.killsCli++;
    else stats.killsServer++;
  } else {
    stats.killsAfterFinish++;
    log(`  ${runId} had already finished when the kill landed`);
  }
  return { finished, total, run, landed };
}

let appPort;
async function startApp() {
  appPort ??= await freePort(ports);
  await waitFor(`port ${appPort} to be free`, () => canListen(appPort), { ms: 15_000, everyMs: 100 });
  const child = startProcess(
    "app-server",
    "npx",
    ["next", "start", "--hostname", "127.0.0.1", "--port", String(appPort)],
    env,
  );
  await waitFor(
    "the app server",
    async () => {
      if (!isRunning(child)) throw new Error(`app server exited:\n${child.stdoutText}${child.stderrText}`);
      try {
        return (await fetch(`http://127.0.0.1:${appPort}/`)).ok;
      } catch {
        return false;
      }
    },
    { ms: 60_000, everyMs: 100 },
  );
  await newPage(); // a new browser context: no keep-alive connection to an earlier server survives
  return child;
}

/** SIGTERM, then SIGKILL if any process of the group is still there after 8 s. */
async function stopApp(child) {
  if (!child || !groups.has(child.pid)) return;
  // the browser's keep-alive connections would hold next-server's graceful shutdown open
  await context?.close().catch(() => {});
  context = undefined;
  signalGroup(child.pid, "SIGTERM");
  if (!(await waitGroupGone(child.pid, 8_000))) await killHard(child);
}

let browser;
let context;
let page;
async function newPage() {
  if (!browser) {
    const { chromium } = await import("@playwright/test");
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
      ],
    });
  }
  await context?.close().catch(() => {});
  context = await browser.newContext();
  page = await context.newPage();
  page.setDefaultTimeout(30_000);
  return page;
}
const url = (p) => `http://127.0.0.1:${appPort}${p}`;
async function scanPage() {
  const text = await page.content().catch(() => "");
  const hit = BUSY.exec(text);
  if (hit)
    busyHits.push(`dashboard ${page.url()}: …${text.slice(Math.max(0, hit.index - 80), hit.index + 120)}…`);
}
async function shownStatus() {
  const s = (await page.getByTestId("run-status").first().textContent())?.trim();
  await scanPage();
  return s;
}

/** Waits for the killed owner to be really gone, so a restarted server sees a dead owner pid. */
async function ownerGone(runId) {
  const pid = q.run(runId)?.ownerPid;
  if (pid) await waitFor(`owner pid ${pid} to be gone`, () => !pidAlive(pid), { ms: 10_000, everyMs: 20 });
}

async function startCliRun(name) {
  const child = jury(name, EVAL_ARGS);
  const m = await waitFor(
    "the run id on the CLI's stderr",
    () => {
      if (!isRunning(child)) throw new Violation(`jury eval exited ${child.exitCode}: ${child.stderrText}`);
      return /run (run_\S+): (\d+) of (\d+) tasks to do/.exec(child.stderrText);
    },
    { ms: 30_000, everyMs: 5 },
  );
  return { child, runId: m[1], total: Number(m[3]) };
}

async function resumeWithCli(runId, name, pendingExpected) {
  const r = jury(name, ["eval", "--resume", runId]);
  const exit = await waitExit(r, 90_000);
  if (!exit) throw new Violation(`jury eval --resume ${runId} did not finish in 90 s`);
  if (exit.code !== 0 && exit.code !== 1)
    violate(`jury eval --resume ${runId} exited ${exit.code}: ${r.stderrText.slice(-2000)}`);
  const todo = /run \S+: (\d+) of (\d+) tasks to do/.exec(r.stderrText);
  if (pendingExpected !== undefined && todo && Number(todo[1]) !== pendingExpected) {
    violate(`${runId}: the resume had ${todo[1]} tasks to do, ${pendingExpected} were pending at the kill`);
    stats.redone += Math.max(0, Number(todo[1]) - pendingExpected);
  }
  stats.resumedByCli++;
  const run = q.run(runId);
  if (run.status !== "done") violate(`${runId}: "${run.status}" after jury eval --resume, expected "done"`);
  checkRun(runId, "after the resume");
  return run.status;
}

async function startRunInUi(known) {
  await page.goto(url("/runs"));
  await page.getByTestId("start-run-form").waitFor();
  await page.waitForLoadState("networkidle").catch(() => {});
  const select = page.locator("#suiteDir");
  const value = await select
    .locator("option", { hasText: /Question answering/i })
    .first()
    .getAttribute("value");
  await select.selectOption(value ?? "");
  await page.locator("#n").fill("3");
  const judges = await page
    .locator('input[name="judges"]:checked')
    .evaluateAll((els) => els.map((e) => e.value));
  if (judges.join(",") !== JUDGES.join(","))
    throw new Violation(`the form offers judges ${judges.join(", ")}`);
  await page.getByTestId("start-run").click();
  // The run id from the database, not the URL: the kill may land before the page navigates.
  return waitFor("the run started from the dashboard", () => q.runIds().find((id) => !known.has(id)), {
    ms: 30_000,
    everyMs: 5,
  });
}

async function resumeInUi(runId) {
  await page.goto(url(`/runs/${runId}`));
  await page.getByTestId("run-progress").waitFor();
  if ((await page.getByTestId("resume-run").count()) === 0) {
    const p = (await page.getByTestId("progress-count").textContent())?.trim();
    violate(
      `/runs/${runId} shows "${await shownStatus()}" (${p}) and no Resume button: the kill landed after the last sample, before the run was finalized; resumed with the CLI instead`,
    );
    await resumeWithCli(runId, "cli-resume-fallback", 0);
    return "CLI (no Resume button)";
  }
  await page.getByTestId("resume-run").click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="run-status"]')?.textContent?.trim() === "done",
    null,
    { timeout: 90_000, polling: 200 },
  );
  await scanPage();
  stats.resumedByUi++;
  return "UI";
}

// ─── trials ──────────────────────────────────────────────────────────────────
async function cliTrial(n) {
  stats.cliTrials++;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const { child, runId, total } = await startCliRun(`cli-${n}`);
    const k = await killAt(child, runId, killTarget(total, attempt), "cli");
    checkRun(runId, "after the CLI kill");
    if (k.landed && k.run.status !== "running")
      violate(`${runId}: "${k.run.status}" after SIGKILL, expected "running" (the owner is dead)`);
    const before = q.samples(runId);
    const resumed = k.landed
      ? await resumeWithCli(runId, `cli-resume-${n}`, total - k.finished)
      : "not needed";
    checkSnapshot(runId, before);
    const entry = `trial ${n} cli: ${runId} ${k.landed ? "killed" : "finished before the kill"} at ${k.finished}/${total}; resumed (CLI) → ${resumed}`;
    trialLog.push(entry);
    log(entry);
    if (k.landed) return;
  }
}

async function serverTrial(n) {
  if (serverSkipReason) {
    stats.serverTrialsSkipped++;
    trialLog.push(`trial ${n} server: SKIPPED (${serverSkipReason})`);
    return;
  }
  stats.serverTrials++;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    writeSettings(Math.round((0.2 + 0.01 * n + 0.001 * attempt) * 1000) / 1000);
    let app = await startApp();
    try {
      const runId = await startRunInUi(new Set(q.runIds()));
      const total = q.total(runId);
      const k = await killAt(app, runId, killTarget(total, attempt), "server");
      await ownerGone(runId);
      checkRun(runId, "after the server kill");
      const before = q.samples(runId);
      app = await startApp();
      let shown = "done";
      let how = "not needed";
      if (k.run.status !== "done") {
        await page.goto(url(`/runs/${runId}`));
        shown = await shownStatus();
        if (shown !== "interrupted") {
          violate(`${runId}: the run page of the restarted server shows "${shown}", expected "interrupted"`);
          if (shown === "running") stats.stuckRunning++;
        }
        how = await resumeInUi(runId);
      }
      const run = q.run(runId);
      if (run.status !== "done") violate(`${runId}: "${run.status}" after Resume, expected "done"`);
      checkRun(runId, "after the resume");
      checkSnapshot(runId, before);
      const entry = `trial ${n} server: ${runId} ${k.landed ? "killed" : "finished before the kill"} at ${k.finished}/${total}; restarted, shown "${shown}"; resumed (${how}) → ${run.status}`;
      trialLog.push(entry);
      log(entry);
      if (k.landed) return;
    } finally {
      await stopApp(app);
    }
  }
}

/**
 * After the trials, one more CLI run is killed mid-run and left alone.
 * (1) On a server that was already up during the kill, its run page must not show it as "running".
 * (2) A fresh server must list it as "interrupted" on /runs, and nothing as "running".
 * Then it is resumed (from the dashboard) and /runs must show every run done.
 */
async function dashboardCheck() {
  const out = {
    checked: false,
    unresumedRun: null,
    runPageWithServerUp: null,
    runsListed: 0,
    runningShown: 0,
    interruptedShown: 0,
  };
  const app1 = serverSkipReason ? null : await startApp();
  try {
    let k;
    let runId;
    for (let attempt = 2; attempt <= MAX_ATTEMPTS + 1; attempt++) {
      const r = await startCliRun("cli-final");
      runId = r.runId;
      k = await killAt(r.child, runId, killTarget(r.total, attempt), "cli");
      if (k.landed) break;
    }
    out.unresumedRun = runId;
    out.killedAt = `${k.finished}/${k.total}`;
    await ownerGone(runId);
    checkRun(runId, "after the final CLI kill");
    if (k.landed && q.run(runId).status !== "running")
      violate(`${runId}: "${q.run(runId).status}" after SIGKILL, expected "running" (the owner is dead)`);
    const before = q.samples(runId);

    if (serverSkipReason) {
      out.skipped = serverSkipReason;
      if (k.landed) await resumeWithCli(runId, "cli-resume-final", k.total - k.finished);
    } else {
      if (k.landed) {
        // (1) the server was up before the CLI died: open the run page, as a user following the run would
        await page.goto(url(`/runs/${runId}`));
        await sleep(2_500); // the page refreshes itself every second while it believes the run is live
        await page.reload();
        out.runPageWithServerUp = await shownStatus();
        if (out.runPageWithServerUp !== "interrupted") {
          violate(
            `/runs/${runId} on a server that was up when the CLI running it was SIGKILLed shows "${out.runPageWithServerUp}" (2.5 s after the kill, owner pid gone), expected "interrupted"`,
          );
          if (out.runPageWithServerUp === "running") stats.stuckRunning++;
        }
      }
      await stopApp(app1);
      // (2) a fresh server: /runs
      const app2 = await startApp();
      try {
        await page.goto(url("/runs"));
        await page.getByTestId("runs-table").waitFor();
        const rows = await page
          .locator('[data-testid="runs-table"] tbody tr')
          .evaluateAll((trs) =>
            trs.map((tr) => [
              tr.querySelector("a")?.textContent?.trim(),
              tr.querySelector('[data-testid="run-status"]')?.textContent?.trim(),
            ]),
          );
        await scanPage();
        out.checked = true;
        out.runsListed = rows.length;
        out.runningShown = rows.filter((r) => r[1] === "running").length;
        out.interruptedShown = rows.filter((r) => r[1] === "interrupted").length;
        const dbRuns = q.runIds();
        if (rows.length !== dbRuns.length)
          violate(`/runs lists ${rows.length} runs, the database has ${dbRuns.length}`);
        for (const [id, status] of rows) {
          const expected = id === runId && k.landed ? "interrupted" : "done";
          if (status !== expected)
            violate(`/runs on a fresh server shows ${id} as "${status}", expected "${expected}"`);
        }
        stats.stuckRunning += out.runningShown;
        if (k.landed) out.resumedWith = await resumeInUi(runId);
        await page.goto(url("/runs"));
        const after = await page.getByTestId("runs-table").getByTestId("run-status").allTextContents();
        out.afterResume = [...new Set(after.map((s) => s.trim()))];
        if (after.some((s) => s.trim() !== "done"))
          violate(`/runs after the last resume shows ${out.afterResume.join(", ")}`);
      } finally {
        await stopApp(app2);
      }
    }
    const run = q.run(runId);
    if (run.status !== "done") violate(`${runId}: "${run.status}" after the final resume, expected "done"`);
    checkRun(runId, "after the final resume");
    checkSnapshot(runId, before);
  } finally {
    await stopApp(app1);
  }
  return out;
}

// ─── main ────────────────────────────────────────────────────────────────────
let dashboard = { checked: false };
let integrity = "not checked";
const totals = { runs: 0, samples: 0, tasks: 0, results: 0 };
let fatal = null;
try {
  log(`seed ${seed}, ${trials} trials, scratch ${scratch}`);
  const scripted = await startScripted();
  env = {
    JURY_DB: dbFile,
    JURY_LOCAL_BASE_URL: scripted.baseURL,
    JURY_SUITES_DIR: path.join(root, "examples/suites"),
    NEXT_TELEMETRY_DISABLED: "1",
  };
  const mig = jury("migrate", ["db", "migrate"]);
  const me = await waitExit(mig, 60_000);
  if (me?.code !== 0) throw new Error(`jury db migrate failed: ${mig.stderrText}`);
  // the judges a run calls must be enabled in Settings (no provider is by default, the mock included)
  writeSettings(0.8);
  for (let n = 1; n <= trials; n++) {
    if (Date.now() > GLOBAL_DEADLINE) throw new Violation("the suite ran out of time");
    if (n % 2 === 1) await cliTrial(n);
    else await serverTrial(n);
  }
  dashboard = await dashboardCheck();
} catch (err) {
  fatal = err instanceof Error ? (err.stack ?? err.message) : String(err);
  violate(`aborted: ${err instanceof Error ? err.message : err}`);
} finally {
  await browser?.close().catch(() => {});
  for (const g of [...groups]) {
    signalGroup(g, "SIGKILL");
    await waitGroupGone(g, 5_000);
  }
}

// final checks, with nothing else running
try {
  if (!fs.existsSync(dbFile)) throw new Error("no database was created");
  for (const id of q.runIds()) {
    const r = checkRun(id, "final");
    const run = q.run(id);
    if (run.status !== "done" && run.status !== "cancelled")
      violate(`${id}: "${run.status}" at the end, expected "done"`);
    if (run.status === "done" && r.samples !== r.total) {
      violate(`${id}: done with ${r.samples} samples for ${r.total} tasks`);
      stats.lost += Math.max(0, r.total - r.samples);
    }
    const busyRows = rdb()
      .prepare(
        `select (select count(*) from samples where run_id = $id and (error like '%SQLITE_BUSY%' or error like '%database is locked%'))
              + (select count(*) from runs where id = $id and (error like '%SQLITE_BUSY%' or error like '%database is locked%'))`,
      )
      .pluck()
      .get({ id });
    if (busyRows) busyHits.push(`${id}: ${busyRows} stored errors say SQLITE_BUSY / database is locked`);
    totals.runs++;
    totals.samples += r.samples;
    totals.tasks += r.total;
  }
  ro?.close();
  ro = undefined;
  const w = new Database(dbFile, { timeout: 10_000 });
  integrity = w.pragma("integrity_check", { simple: true });
  const fk = w.pragma("foreign_key_check");
  totals.results = w.prepare("select count(*) from results").pluck().get();
  w.close();
  if (integrity !== "ok") violate(`PRAGMA integrity_check: ${integrity}`);
  if (fk.length) violate(`PRAGMA foreign_key_check: ${fk.length} rows`);
} catch (err) {
  violate(`final check failed: ${err instanceof Error ? err.message : err}`);
}
for (const b of busyHits) violate(`SQLITE_BUSY reached a user: ${b}`);

const summary = {
  ok: violations.length === 0,
  trials,
  seed,
  cliTrials: stats.cliTrials,
  serverTrials: stats.serverTrials,
  serverTrialsSkipped: stats.serverTrialsSkipped,
  serverSkipReason,
  kills: { cli: stats.killsCli, server: stats.killsServer, afterFinish: stats.killsAfterFinish },
  resumed: { cli: stats.resumedByCli, ui: stats.resumedByUi },
  runs: totals.runs,
  tasksChecked: totals.tasks,
  samplesChecked: totals.samples,
  lost: stats.lost,
  duplicated: stats.duplicated,
  redone: stats.redone,
  stuckRunning: stats.stuckRunning,
  busyErrors: busyHits.length,
  integrity,
  dashboard,
  violations,
  trialLog,
  durationMs: Date.now() - started,
  scratch: args.keep || violations.length ? scratch : null,
};
if (fatal) summary.fatal = fatal;
if (!summary.scratch) fs.rmSync(scratch, { recursive: true, force: true });

if (args.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
else {
  const skipped = stats.serverTrialsSkipped
    ? `, ${stats.serverTrialsSkipped} server trials SKIPPED: ${serverSkipReason}`
    : "";
  const d = dashboard;
  const lines = [
    `crash suite: ${trials} trials (${stats.cliTrials} CLI, ${stats.serverTrials} server${skipped}), seed ${seed}, ${(summary.durationMs / 1000).toFixed(1)} s`,
    `  SIGKILLs mid-run: CLI ${stats.killsCli}, server ${stats.killsServer} (${stats.killsAfterFinish} more landed after the run had finished; those trials were repeated)`,
    `  resumed: ${stats.resumedByCli} with jury eval --resume, ${stats.resumedByUi} with Resume in the dashboard`,
    `  runs: ${totals.runs}, tasks checked: ${totals.tasks}, samples checked: ${totals.samples}, verdicts stored: ${totals.results}`,
    `  lost ${stats.lost}, duplicated ${stats.duplicated}, redone ${stats.redone}, stuck running ${stats.stuckRunning}, SQLITE_BUSY ${busyHits.length}`,
    `  integrity_check: ${integrity}`,
    d.checked
      ? `  dashboard: ${d.unresumedRun} killed at ${d.killedAt} by SIGKILL of its CLI; its run page on the server that was up shows "${d.runPageWithServerUp}"; /runs on a fresh server: ${d.runsListed} runs, ${d.runningShown} running, ${d.interruptedShown} interrupted; after Resume: ${d.afterResume?.join("/")}`
      : `  dashboard: NOT CHECKED${d.skipped ? ` (${d.skipped})` : ""}`,
    violations.length ? `FAILED: ${violations.length} violations:\n  - ${violations.join("\n  - ")}` : "OK",
  ];
  if (summary.scratch) lines.push(`scratch kept: ${summary.scratch}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}
process.exitCode = violations.length ? 1 : 0;
