// The whole-process cases of the judge bench: the built `jury eval` run as a user runs it, timed from
// outside (start-up, loading, planning, the run, the summary and exit all count), against the same
// scripted server. Process CPU and peak RSS come from /usr/bin/time when it is installed.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { llmDefinition, tempDir, writeJson } from "@/lib/testing/fixtures";
import { enableProviders } from "@/lib/testing/settings-db";

const TIME = "/usr/bin/time";
/** bin/jury.cjs: beside dist/ when this runs from the bundle (dist/bench.mjs), else under the cwd */
const JURY_BIN = [new URL("../bin/jury.cjs", import.meta.url).pathname, path.resolve("bin/jury.cjs")].find(
  (f) => fs.existsSync(f),
) as string;

export type ProcessMeasurement = {
  wallMs: number;
  /** user + system CPU of the `jury` process; null without /usr/bin/time */
  cpuMs: number | null;
  peakRssMiB: number | null;
};

type Run = { args: string[]; env: Record<string, string> };

/** Runs `jury …` to its end; the exit code must be 0 or 1 (verdicts passed or failed) and stdout JSON. */
function timeJury(run: Run): Promise<ProcessMeasurement & { out: unknown }> {
  const timed = fs.existsSync(TIME);
  const statsFile = path.join(tempDir("jury-time-"), "stats");
  const [cmd, args] = timed
    ? [TIME, ["-f", "%U %S %M", "-o", statsFile, process.execPath, JURY_BIN, ...run.args]]
    : [process.execPath, [JURY_BIN, ...run.args]];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, {
      env: { ...process.env, ...run.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - t0;
      if (code !== 0 && code !== 1)
        return reject(new Error(`jury ${run.args.join(" ")} exited ${code}: ${stderr.slice(-1500)}`));
      let cpuMs: number | null = null;
      let peakRssMiB: number | null = null;
      if (timed) {
        // the last line: time writes "Command exited with non-zero status 1" before it on exit 1
        const last = fs.readFileSync(statsFile, "utf8").trim().split("\n").pop() ?? "";
        const [user, sys, kb] = last.split(/\s+/).map(Number);
        cpuMs = (user + sys) * 1000;
        peakRssMiB = kb / 1024;
      }
      try {
        resolve({ wallMs, cpuMs, peakRssMiB, out: JSON.parse(stdout) });
      } catch {
        reject(new Error(`jury ${run.args.join(" ")} printed no JSON: ${stdout.slice(0, 300)}`));
      }
    });
  });
}

/** A criteria folder of LLM criteria only, and a suite of `cases` cases judged on `criteria`. */
function fixture(cases: number, criteria: string[]) {
  const criteriaDir = tempDir("jury-bench-criteria-");
  writeJson(path.join(criteriaDir, "helpful", "definition.json"), llmDefinition("helpful"));
  writeJson(path.join(criteriaDir, "brief", "definition.json"), llmDefinition("brief", [1, 5], 3));
  const suiteDir = tempDir("jury-bench-suite-");
  writeJson(path.join(suiteDir, "suite.json"), { name: "Bench", criteria: criteria.map((id) => ({ id })) });
  for (let i = 0; i < cases; i++)
    writeJson(path.join(suiteDir, "cases", `case${i}.json`), {
      id: `case${i}`,
      name: `Case ${i}`,
      input: { prompt: `Question ${i}?` },
      output: `Answer ${i}, probably.`,
    });
  return { criteriaDir, suiteDir };
}

/**
 * `jury eval` on a suite of `cases` cases × `criteria` × one judge × `n`, `repeats` times, each on a
 * fresh database; checks that every call was answered.
 */
export async function timeEval(opts: {
  baseURL: string;
  cases: number;
  criteria: string[];
  n: number;
  concurrency: number;
  repeats: number;
}): Promise<ProcessMeasurement[]> {
  const { criteriaDir, suiteDir } = fixture(opts.cases, opts.criteria);
  const calls = opts.cases * opts.criteria.length * opts.n;
  const out: ProcessMeasurement[] = [];
  for (let i = 0; i < opts.repeats; i++) {
    const db = enableProviders(path.join(tempDir("jury-bench-db-"), "jury.db"));
    const c = String(opts.concurrency);
    const r = await timeJury({
      args: ["eval", suiteDir, "--judges", "local:a", "--n", String(opts.n), "--no-cache", "--json"].concat([
        "--concurrency",
        c,
        "--provider-concurrency",
        c,
      ]),
      env: { JURY_DB: db, JURY_LOCAL_BASE_URL: opts.baseURL, JURY_CRITERIA_DIR: criteriaDir },
    });
    const answered = (r.out as { coverage?: { samples_answered?: number } }).coverage?.samples_answered;
    if (answered !== calls) throw new Error(`jury eval answered ${answered} of ${calls} calls`);
    out.push({ wallMs: r.wallMs, cpuMs: r.cpuMs, peakRssMiB: r.peakRssMiB });
  }
  return out;
}

/** `node -e 0` on this machine, the floor under any process's start-up. */
export async function timeNodeStart(repeats: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await new Promise((resolve) => spawn(process.execPath, ["-e", "0"]).on("close", resolve));
    out.push(performance.now() - t0);
  }
  return out;
}
