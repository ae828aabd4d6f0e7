import type { Db } from "@/db/client";
import type { RetrievalConfig } from "@/db/schema";
import type { Settings } from "../settings/schema";
import { createExperiment, executeExperiment } from "./experiment";

/** Starts an experiment inside the server process without waiting; it writes each query's result as it goes. */
export async function startExperimentInBackground(
  db: Db,
  collection: string,
  config: RetrievalConfig,
  settings: Settings,
  createdBy?: string,
): Promise<string> {
  const id = await createExperiment(db, { collection, config, createdBy });
  executeExperiment(db, id, { collection, config, settings }).catch((err) =>
    console.error(`experiment ${id} failed:`, err instanceof Error ? err.message : err),
  );
  return id;
}
