/**
 * Starts an agreement import or report in its own process (`jury agreement _job …`), so the
 * dashboard's server never parses or computes on its request thread: the page follows the job row
 * through /api/progress/<job id>, and cancel goes through the row as for every job.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Db } from "@/db/client";
import { installRoot, resolveDbPath } from "@/db/path";
import { failQueuedJob } from "@/db/queries/jobs";

/**
 * `jobId`: the job the process works; if the process ends before claiming it (it could not start,
 * or refused its arguments), the job is marked failed with what the process said.
 */
export async function startAgreementProcess(db: Db, jobId: string, args: readonly string[]): Promise<void> {
  const bin = path.join(installRoot(), "bin", "jury.cjs");
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: the dashboard starts imports with it`);
  const child = spawn(process.execPath, [bin, "agreement", "_job", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, JURY_DB: path.resolve(resolveDbPath()) },
  });
  // a background job yields the CPU to the server's requests (the dashboard answers while it runs)
  try {
    if (child.pid !== undefined) os.setPriority(child.pid, 15);
  } catch {}
  let stderr = "";
  child.stderr?.on("data", (b: Buffer) => {
    if (stderr.length < 4000) stderr += b.toString("utf8");
  });
  child.on("error", (err) =>
    console.error(`jury: agreement job ${args.join(" ")} did not start:`, err.message),
  );
  child.on("exit", async (code) => {
    if (code === 0) return;
    const why = stderr.trim().slice(0, 2000) || `the process exited ${code}`;
    console.error(`jury: agreement job ${args.join(" ")} exited ${code}: ${why}`);
    try {
      await failQueuedJob(db, { id: jobId, error: why });
    } catch {}
  });
  child.unref();
}
