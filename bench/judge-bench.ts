// Judge panel engine benchmark: 2,000 judge calls at concurrency 32 against the scripted server
// with a fixed 50 ms latency. Prints wall time against the ideal, CPU per judgment and peak RSS.
//
//   npm run bench              (builds dist/, then runs dist/bench.mjs)
//   node dist/bench.mjs --json (figures as JSON on stdout; progress goes to stderr)
//   options: --mode=child|in-process (one mode only), --repeats=N (default 3), --no-process,
//            --profile=DIR (a .cpuprofile of each measured run, warm-up excluded)
//
// Each measurement is done twice over: with the scripted server in a child process (the headline:
// the CPU counted is only the client's, i.e. engine + SQLite write + AI SDK + HTTP client) and with
// the server in this process (its CPU share then counts too). Timings are noisy on small machines,
// so every measurement is repeated and the median reported.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getRunById, getRunSamples } from "@/db/queries/runs";
import type { RunOptions } from "@/db/schema";
import type { CriteriaRegistry } from "@/lib/criteria/registry";
import { hashString } from "@/lib/providers/mock-model";
import { executeRun } from "@/lib/runs/execute-run";
import { createRun, DETERMINISTIC_JUDGE } from "@/lib/runs/plan-run";
import { loadSuite, type Suite } from "@/lib/suites/load-suite";
import { settingsFor, tempDb, testRegistry, testSuite } from "@/lib/testing/fixtures";
import { type ScriptRequest, startScriptedServer } from "@/lib/testing/scripted-server";
import { type ProcessMeasurement, timeEval, timeNodeStart } from "./eval-process";

const LATENCY_MS = 50;
const CONCURRENCY = 32;
const JUDGE = "local:a";
const LLM_CRITERIA = 2; // the test registry's "helpful" (1–10) and "brief" (1–5)
const N = 10;
const CASES = 100;
const CALLS = CASES * LLM_CRITERIA * N; // 2,000: one judge
const WARMUP_CASES = 32;
const WARMUP_N = 10; // 32 cases × 2 criteria × 10 = 640 calls
const TARGET_RATIO = 1.05;
const TARGET_CPU_MS = 1;
/** the whole `jury eval` process on the same 2,000 calls, start-up included */
const TARGET_PROCESS_RATIO = 1.25;
/** `jury eval` of one case × one criterion × one judge × N=1: one call of LATENCY_MS */
const TARGET_ONE_ITEM_MS = 300;

type Mode = "child" | "in-process";

type Measurement = {
  wallMs: number;
  idealMs: number;
  ratio: number;
  cpuMs: number;
  cpuMsPerJudgment: number;
  peakRssMiB: number;
  /** extra attempts after timeouts: 0 on a machine that is not overloaded */
  retries: number;
};

type Server = { baseURL: string; url: string; requestCount(): Promise<number>; close(): Promise<void> };

const args = process.argv.slice(2);
const json = args.includes("--json");
/** --mode=child or --mode=in-process runs one mode only (for profiling) */
const onlyMode = args.find((a) => a.startsWith("--mode="))?.slice("--mode=".length) as Mode | undefined;
/** --repeats=N measures the main run N times (default 3) */
const REPEATS = Number(args.find((a) => a.startsWith("--repeats="))?.slice("--repeats=".length) ?? 3);
/** --no-process skips the whole-process cases (the built `jury eval`) */
const withProcess = !args.includes("--no-process");
/** --profile=DIR writes a CPU profile of each measured run (not the warm-up) to DIR */
const profileDir = args.find((a) => a.startsWith("--profile="))?.slice("--profile=".length);
const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** In-scale judge answer, the same as the child server's default script. */
function judge(req: ScriptRequest) {
  const m = /scale of\s*(-?\d+)\s*-\s*(-?\d+)/.exec(req.text);
  const [lo, hi] = m ? [Number(m[1]), Number(m[2])] : [1, 10];
  const score = lo + (hashString(`${req.text}#${req.index}`) % (hi - lo + 1));
  return { delayMs: LATENCY_MS, json: { score, reasoning: `bench call ${req.index}: ${score} of ${hi}` } };
}

async function inProcessServer(): Promise<Server> {
  const s = await startScriptedServer(judge);
  return {
    baseURL: s.baseURL,
    url: s.url,
    async requestCount() {
      const n = s.requests.length;
      s.requests.length = 0; // the server keeps every request: drop them so they do not inflate RSS
      return n;
    },
    close: () => s.close(),
  };
}

function childServerScript(): string {
  const candidates = [
    fileURLToPath(new URL("./scripted-server.mjs", import.meta.url)),
    path.resolve("dist/scripted-server.mjs"),
  ];
  const found = candidates.find((f) => fs.existsSync(f));
  if (!found) throw new Error(`dist/scripted-server.mjs not found: run node scripts/build-cli.mjs first`);
  return found;
}

async function childServer(): Promise<Server> {
  const child = spawn(process.execPath, [childServerScript()], {
    env: { ...process.env, SCRIPTED_PORT: "0", SCRIPTED_LATENCY_MS: String(LATENCY_MS) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const info = await new Promise<{ url: string; baseURL: string }>((resolve, reject) => {
    let buf = "";
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`scripted server exited with ${code} before it started`)));
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString("utf8");
      const nl = buf.indexOf("\n");
      if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
    });
  });
  child.removeAllListeners("exit");
  const killChild = () => child.kill("SIGTERM");
  process.once("exit", killChild); // never leave the server behind, even when the bench fails
  let seen = 0;
  return {
    ...info,
    async requestCount() {
      const r = await fetch(`${info.url}/__requests`);
      const total = ((await r.json()) as { count: number }).count;
      const n = total - seen;
      seen = total;
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        process.off("exit", killChild);
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

const runOptions = (n: number): RunOptions => ({
  judges: [JUDGE],
  n,
  temperature: 0.8,
  concurrency: CONCURRENCY,
  noCache: true,
});

/** One run on a fresh database; verifies it and returns its figures. */
async function measure(
  server: Server,
  registry: CriteriaRegistry,
  suite: Suite,
  n: number,
  profileTo?: string,
) {
  const calls = suite.cases.length * LLM_CRITERIA * n;
  const settings = settingsFor(server.baseURL, {
    concurrency: CONCURRENCY,
    perProviderConcurrency: CONCURRENCY,
  });
  const { db } = tempDb();
  const runId = await createRun(db, suite, registry, runOptions(n));
  await server.requestCount(); // reset the counter

  const session = profileTo ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  }
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const status = await executeRun(db, runId, { settings, registry });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (session && profileTo) {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    fs.mkdirSync(path.dirname(profileTo), { recursive: true });
    fs.writeFileSync(profileTo, JSON.stringify(profile));
    log(`CPU profile: ${profileTo}`);
  }
  const peakRssMiB = process.resourceUsage().maxRSS / 1024;

  const problems: string[] = [];
  if (status !== "done") problems.push(`status ${status} (${getRunById(db, { id: runId })?.error ?? ""})`);
  const llm = getRunSamples(db, { runId }).filter((s) => s.judge !== DETERMINISTIC_JUDGE);
  if (llm.length !== calls) problems.push(`${llm.length} LLM samples, expected ${calls}`);
  const bad = llm.filter((s) => s.error !== null || s.score === null);
  if (bad.length) problems.push(`${bad.length} samples with errors, e.g. ${bad[0].error}`);
  // Retries (a 2 s timeout hit on an overloaded machine) are not failures, but they add requests:
  // counted and shown, so a measurement that needed them is not taken for a clean one.
  const requests = await server.requestCount();
  const retries = llm.reduce((a, s) => a + s.attempts - 1, 0);
  if (requests !== calls + retries)
    problems.push(`server saw ${requests} requests, expected ${calls} calls + ${retries} retries`);
  db.$client.close();
  if (problems.length) throw new Error(`run ${runId}: ${problems.join("; ")}`);

  const cpuMs = (cpu.user + cpu.system) / 1000;
  const idealMs = Math.ceil(calls / CONCURRENCY) * LATENCY_MS;
  return {
    wallMs,
    idealMs,
    ratio: wallMs / idealMs,
    cpuMs,
    cpuMsPerJudgment: cpuMs / calls,
    peakRssMiB,
    retries,
  } satisfies Measurement;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function medianOf(ms: Measurement[]): Measurement {
  const out = {} as Measurement;
  for (const k of Object.keys(ms[0]) as (keyof Measurement)[]) out[k] = median(ms.map((m) => m[k]));
  return out;
}

async function runMode(mode: Mode, registry: CriteriaRegistry, main: Suite, warm: Suite) {
  const server = mode === "child" ? await childServer() : await inProcessServer();
  try {
    log(`[${mode}] warm-up: ${warm.cases.length * LLM_CRITERIA * WARMUP_N} calls`);
    await measure(server, registry, warm, WARMUP_N);
    const runs: Measurement[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const prof = profileDir ? path.resolve(profileDir, `${mode}-run${i + 1}.cpuprofile`) : undefined;
      const m = await measure(server, registry, main, N, prof);
      log(
        `[${mode}] run ${i + 1}/${REPEATS}: ${m.wallMs.toFixed(0)} ms wall, ${m.cpuMsPerJudgment.toFixed(3)} CPU ms/judgment`,
      );
      runs.push(m);
    }
    return { median: medianOf(runs), runs };
  } finally {
    await server.close();
  }
}

function table(title: string, r: { median: Measurement; runs: Measurement[] }, cpuLabel: string): string {
  const cols = [r.median, ...r.runs];
  const head = ["", "median", ...r.runs.map((_, i) => `run ${i + 1}`), "target", ""];
  const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");
  const row = (label: string, f: (m: Measurement) => string, target = "", pass = "") => [
    label,
    ...cols.map(f),
    target,
    pass,
  ];
  const rows = [
    head,
    row("calls", () => String(CALLS)),
    row("concurrency", () => String(CONCURRENCY)),
    row("latency ms", () => String(LATENCY_MS)),
    row("wall ms", (m) => m.wallMs.toFixed(0)),
    row("ideal ms", (m) => m.idealMs.toFixed(0)),
    row("ratio", (m) => m.ratio.toFixed(3), `≤ ${TARGET_RATIO}`, verdict(r.median.ratio <= TARGET_RATIO)),
    row(
      cpuLabel,
      (m) => m.cpuMsPerJudgment.toFixed(3),
      `≤ ${TARGET_CPU_MS} ms`,
      verdict(r.median.cpuMsPerJudgment <= TARGET_CPU_MS),
    ),
    row("peak RSS MiB", (m) => m.peakRssMiB.toFixed(1)),
    row("retried calls", (m) => String(m.retries), "0"),
  ];
  const widths = head.map((_, c) => Math.max(...rows.map((x) => x[c].length)));
  const line = (x: string[]) =>
    x
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
      .join("  ")
      .trimEnd();
  return [title, ...rows.map(line)].join("\n");
}

async function main() {
  if (onlyMode && onlyMode !== "child" && onlyMode !== "in-process")
    throw new Error(`--mode must be child or in-process, not ${onlyMode}`);
  if (!Number.isInteger(REPEATS) || REPEATS < 1) throw new Error("--repeats must be a whole number ≥ 1");
  const { registry } = testRegistry();
  const mainSuite = loadSuite(testSuite(CASES));
  const warmSuite = loadSuite(testSuite(WARMUP_CASES));
  // The child-process mode goes first so its peak RSS is not raised by the in-process server.
  const child =
    onlyMode !== "in-process" ? await runMode("child", registry, mainSuite, warmSuite) : undefined;
  const inProcess =
    onlyMode !== "child" ? await runMode("in-process", registry, mainSuite, warmSuite) : undefined;
  const headline = child ?? inProcess;
  if (!headline) throw new Error("no mode ran");
  const whole = withProcess ? await processCases() : undefined;

  const figures = {
    calls: CALLS,
    concurrency: CONCURRENCY,
    latencyMs: LATENCY_MS,
    shape: { cases: CASES, llmCriteria: LLM_CRITERIA, judges: [JUDGE], n: N },
    targets: { ratio: TARGET_RATIO, cpuMsPerJudgment: TARGET_CPU_MS },
    headline: {
      server: child ? "child" : "in-process",
      ratio: headline.median.ratio,
      ratioPass: headline.median.ratio <= TARGET_RATIO,
      cpuMsPerJudgment: headline.median.cpuMsPerJudgment,
      cpuPass: headline.median.cpuMsPerJudgment <= TARGET_CPU_MS,
      peakRssMiB: headline.median.peakRssMiB,
    },
    childServer: child,
    inProcessServer: inProcess,
    process: whole,
  };
  if (json) {
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    return;
  }
  const shape = `${CASES} cases × ${LLM_CRITERIA} LLM criteria × 1 judge (${JUDGE}) × N=${N}; deterministic tasks not counted`;
  console.log(`\nJudge panel bench: ${CALLS} calls (${shape})`);
  if (child) {
    console.log(
      `\n${table(
        "Scripted server in a child process (headline)",
        child,
        "client-side CPU ms/judgment (engine + SQLite write + AI SDK + HTTP client)",
      )}`,
    );
  }
  if (inProcess) {
    console.log(
      `\n${table("Scripted server in this process (its CPU counted too)", inProcess, "CPU ms/judgment incl. server")}`,
    );
  }
  if (whole) console.log(`\n${processTable(whole)}`);
  console.log(
    "\nCPU = process.cpuUsage() user+system over executeRun (incl. finalizeRun), divided by LLM calls." +
      "\nPeak RSS = process.resourceUsage().maxRSS, a process-lifetime peak.",
  );
}

type ProcessCases = Awaited<ReturnType<typeof processCases>>;

/** The built `jury eval`, timed from outside: the 2,000-call panel and a one-item eval. */
async function processCases() {
  const server = await childServer();
  try {
    const repeats = REPEATS;
    log(`[process] node -e 0 ×${repeats}, then jury eval: ${CALLS} calls ×${repeats}, one item ×${repeats}`);
    const nodeStartMs = median(await timeNodeStart(repeats));
    const panelRuns = await timeEval({
      baseURL: server.baseURL,
      cases: CASES,
      criteria: ["helpful", "brief"],
      n: N,
      concurrency: CONCURRENCY,
      repeats,
    });
    // warm the file cache for the one-item case the way a user's second command is
    const oneRuns = await timeEval({
      baseURL: server.baseURL,
      cases: 1,
      criteria: ["helpful"],
      n: 1,
      concurrency: 1,
      repeats,
    });
    const idealMs = Math.ceil(CALLS / CONCURRENCY) * LATENCY_MS;
    const med = (xs: ProcessMeasurement[], k: keyof ProcessMeasurement) => {
      const v = xs.map((x) => x[k]).filter((x): x is number => x !== null);
      return v.length ? median(v) : null;
    };
    const panelWall = med(panelRuns, "wallMs") as number;
    const panelCpu = med(panelRuns, "cpuMs");
    const oneWall = med(oneRuns, "wallMs") as number;
    return {
      nodeStartMs,
      panel: {
        calls: CALLS,
        wallMs: panelWall,
        idealMs,
        ratio: panelWall / idealMs,
        ratioPass: panelWall / idealMs <= TARGET_PROCESS_RATIO,
        cpuMsPerJudgment: panelCpu === null ? null : panelCpu / CALLS,
        peakRssMiB: med(panelRuns, "peakRssMiB"),
        runs: panelRuns,
      },
      oneItem: {
        calls: 1,
        latencyMs: LATENCY_MS,
        wallMs: oneWall,
        pass: oneWall <= TARGET_ONE_ITEM_MS,
        cpuMs: med(oneRuns, "cpuMs"),
        peakRssMiB: med(oneRuns, "peakRssMiB"),
        runs: oneRuns,
      },
      targets: { ratio: TARGET_PROCESS_RATIO, oneItemMs: TARGET_ONE_ITEM_MS },
    };
  } finally {
    await server.close();
  }
}

function processTable(w: ProcessCases): string {
  const f = (x: number | null, d = 0) => (x === null ? "n/a" : x.toFixed(d));
  const ok = (b: boolean) => (b ? "PASS" : "MISS");
  const rows = [
    ["", "median", "runs", "target", ""],
    [
      `jury eval, ${CALLS} calls: wall ms`,
      f(w.panel.wallMs),
      w.panel.runs.map((r) => f(r.wallMs)).join(" / "),
      "",
      "",
    ],
    [
      `  ÷ ideal (${w.panel.idealMs} ms)`,
      f(w.panel.ratio, 3),
      w.panel.runs.map((r) => f(r.wallMs / w.panel.idealMs, 3)).join(" / "),
      `≤ ${TARGET_PROCESS_RATIO}`,
      ok(w.panel.ratioPass),
    ],
    ["  process CPU ms/judgment", f(w.panel.cpuMsPerJudgment, 3), "", "", ""],
    ["  peak RSS MiB", f(w.panel.peakRssMiB, 1), "", "", ""],
    [
      `jury eval, one item (1 call, ${LATENCY_MS} ms): wall ms`,
      f(w.oneItem.wallMs),
      w.oneItem.runs.map((r) => f(r.wallMs)).join(" / "),
      `≤ ${TARGET_ONE_ITEM_MS}`,
      ok(w.oneItem.pass),
    ],
    ["  process CPU ms", f(w.oneItem.cpuMs), "", "", ""],
    ["node -e 0: wall ms", f(w.nodeStartMs), "", "", ""],
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((x) => x[c].length)));
  const line = (x: string[]) =>
    x
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
      .join("  ")
      .trimEnd();
  return [
    "The whole process: the built `jury eval` timed from outside (start-up, planning, run, summary, exit)",
    ...rows.map(line),
  ].join("\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
