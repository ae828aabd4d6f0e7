import type { Db } from "@/db/client";
import { loadProjectCriteria } from "../criteria/load";
import { readSettings } from "../settings/store";
import { executeRun } from "./execute-run";

const globalForJobs = globalThis as unknown as { __juryJobs?: Map<string, Promise<unknown>> };
if (!globalForJobs.__juryJobs) globalForJobs.__juryJobs = new Map();
const jobs = globalForJobs.__juryJobs;

/**
 * Starts (or resumes) a run inside this server process without waiting for it: the promise settles
 * once it is started (its settings and criteria read, whose failure it throws), not when it ends.
 */
export async function startRunInBackground(db: Db, runId: string): Promise<void> {
  if (jobs.has(runId)) return;
  // registered before the first await: a second call meanwhile sees it and starts nothing
  const setup = (async () => ({ settings: await readSettings(db), registry: loadProjectCriteria() }))();
  const job = setup
    .then(({ settings, registry }) => executeRun(db, runId, { settings, registry, workerKind: "dashboard" }))
    .catch((err) => console.error(`run ${runId} failed:`, err instanceof Error ? err.message : err))
    .finally(() => jobs.delete(runId));
  jobs.set(runId, job);
  await setup;
}
