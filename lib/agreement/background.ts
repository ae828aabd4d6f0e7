/**
 * Starts an agreement import or report in its own process (`jury agreement _job …`), so the
 * dashboard's server never parses or computes on its request thread: the page follows the job row
 * through /api/progress/<job id>, and cancel goes through the row as for every job.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { installRoot, resolveDbPath } from "@/db/path";

export function startAgreementProcess(args: readonly string[]): void {
  const bin = path.join(installRoot(), "bin", "jury.cjs");
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: the dashboard starts imports with it`);
  const child = spawn(process.execPath, [bin, "agreement", "_job", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, JURY_DB: path.resolve(resolveDbPath()) },
  });
  let stderr = "";
  child.stderr?.on("data", (b: Buffer) => {
    if (stderr.length < 4000) stderr += b.toString("utf8");
  });
  child.on("error", (err) =>
    console.error(`jury: agreement job ${args.join(" ")} did not start:`, err.message),
  );
  child.on("exit", (code) => {
    if (code !== 0 && code !== 2)
      console.error(`jury: agreement job ${args.join(" ")} exited ${code}: ${stderr.trim().slice(0, 2000)}`);
  });
  child.unref();
}
