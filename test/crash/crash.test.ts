// The crash suite in small: 4 trials (2 SIGKILLs of the CLI, 2 of the dashboard server) plus the final
// dashboard check. The full 20-trial run is `node scripts/crash-suite.mjs`.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "../..");
const hasBuild = fs.existsSync(path.join(root, ".next", "BUILD_ID"));

type Summary = {
  ok: boolean;
  trials: number;
  cliTrials: number;
  serverTrials: number;
  serverTrialsSkipped: number;
  serverSkipReason: string | null;
  kills: { cli: number; server: number; afterFinish: number };
  resumed: { cli: number; ui: number };
  runs: number;
  tasksChecked: number;
  samplesChecked: number;
  lost: number;
  duplicated: number;
  redone: number;
  stuckRunning: number;
  busyErrors: number;
  integrity: string;
  dashboard: {
    checked: boolean;
    runPageWithServerUp?: string | null;
    runsListed?: number;
    runningShown?: number;
    interruptedShown?: number;
    afterResume?: string[];
    skipped?: string;
  };
  violations: string[];
  trialLog: string[];
};

function crashSuite(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "scripts/crash-suite.mjs"), ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    // the suite bounds itself; this is the backstop (it kills its own process groups on SIGTERM)
    const timer = setTimeout(() => child.kill("SIGTERM"), 140_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("crash suite", () => {
  it(hasBuild
    ? "SIGKILLs the CLI and the server mid-run: no sample lost or duplicated, the file intact, no run stuck as running"
    : "SIGKILLs the CLI mid-run (server trials SKIPPED: no .next/BUILD_ID, run `npm run build`): no sample lost or duplicated, the file intact", async () => {
    const r = await crashSuite(["--trials", "4", "--json"]);
    let s: Summary;
    try {
      s = JSON.parse(r.stdout);
    } catch {
      throw new Error(`no JSON summary (exit ${r.code}):\n${r.stdout}\n${r.stderr.slice(-4000)}`);
    }
    // the violations first: on failure they say what went wrong
    expect(s.violations).toEqual([]);
    expect(r.code).toBe(0);
    expect(s.ok).toBe(true);
    expect(s.trials).toBe(4);
    expect(s.lost).toBe(0);
    expect(s.duplicated).toBe(0);
    expect(s.redone).toBe(0);
    expect(s.busyErrors).toBe(0);
    expect(s.stuckRunning).toBe(0);
    expect(s.integrity).toBe("ok");
    expect(s.samplesChecked).toBeGreaterThan(0);
    expect(s.samplesChecked).toBe(s.tasksChecked);
    // 2 CLI trials + the final unresumed run
    expect(s.cliTrials).toBe(2);
    expect(s.kills.cli).toBeGreaterThanOrEqual(3);
    if (hasBuild) {
      expect(s.serverTrials).toBe(2);
      expect(s.serverTrialsSkipped).toBe(0);
      expect(s.kills.server).toBe(2);
      expect(s.dashboard.checked).toBe(true);
      expect(s.dashboard.runPageWithServerUp).toBe("interrupted");
      expect(s.dashboard.runningShown).toBe(0);
      expect(s.dashboard.interruptedShown).toBe(1);
      expect(s.dashboard.runsListed).toBe(s.runs);
      expect(s.dashboard.afterResume).toEqual(["done"]);
    } else {
      // skipped, visibly
      expect(s.serverTrials).toBe(0);
      expect(s.serverTrialsSkipped).toBe(2);
      expect(s.serverSkipReason).toMatch(/BUILD_ID/);
      expect(s.dashboard.checked).toBe(false);
      console.warn(`crash suite: server trials SKIPPED: ${s.serverSkipReason}`);
    }
  }, 150_000);
});
