// Running the built `jury` command (bin/jury.cjs → dist/) from tests, as a user would.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import path from "node:path";

export const JURY_BIN = path.resolve(__dirname, "../../bin/jury.cjs");

export type JuryResult = { code: number | null; stdout: string; stderr: string };
export type JuryOptions = { env?: Record<string, string>; cwd?: string; input?: string | Buffer };

/** Starts `jury …` (the child stays reachable, to kill it); `out` settles when it has exited. */
export function spawnJury(
  args: string[],
  opts: JuryOptions = {},
): ChildProcess & { out: Promise<JuryResult> } {
  const child = spawn(process.execPath, [JURY_BIN, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => (stdout += d));
  child.stderr?.on("data", (d) => (stderr += d));
  child.stdin?.end(opts.input);
  const out = new Promise<JuryResult>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return Object.assign(child, { out });
}

/** `jury …` to its end, without blocking this process (an in-process scripted server keeps answering). */
export const runJury = (args: string[], opts: JuryOptions = {}): Promise<JuryResult> =>
  spawnJury(args, opts).out;

/** `jury …` to its end, blocking: only when nothing in this process has to answer it. */
export function runJurySync(args: string[], opts: JuryOptions = {}): JuryResult {
  const r = spawnSync(process.execPath, [JURY_BIN, ...args], {
    cwd: opts.cwd,
    input: opts.input,
    env: { ...process.env, ...opts.env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
