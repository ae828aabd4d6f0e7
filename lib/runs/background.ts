import type { Db } from "@/db/client";
import { loadProjectCriteria } from "../criteria/load";
import { readSettings } from "../settings/store";
import { executeRun } from "./execute-run";

const globalForJobs = globalThis as unknown as { __juryJobs?: Map<string, Promise<unknown>> };
if (!globalForJobs.__juryJobs) globalForJobs.__juryJobs = new Map();
const jobs = globalForJobs.__juryJobs;

/** Starts (or resumes) a run inside this server process without waiting for it. */
export function startRunInBackground(db: Db, runId: string): void {
  if (jobs.has(runId)) return;
  const settings = readSettings(db);
  const registry = loadProjectCriteria();
  const job = executeRun(db, runId, { settings, registry, workerKind: "dashboard" })
    .catch((err) => console.error(`run ${runId} failed:`, err instanceof Error ? err.message : err))
    .finally(() => jobs.delete(runId));
  jobs.set(runId, job);
}
