/** What the CLI and the dashboard call: a run's or an import's panel optimization, by id. */
import type { Db } from "@/db/client";
import { getAgreementSet } from "@/db/queries/agreement";
import { getRunById } from "@/db/queries/runs";
import { JuryError } from "../errors";
import { readSettings } from "../settings/store";
import { type ImportPanelReport, optimizeImport } from "./import-panel";
import { optimizeRun, type RunPanelReport } from "./run-panel";

export type PanelOptimization = RunPanelReport | ImportPanelReport;

export async function optimize(
  db: Db,
  id: string,
  opts: { margin?: number; criterion?: string } = {},
): Promise<PanelOptimization> {
  if (await getRunById(db, { id }))
    return await optimizeRun(db, id, { ...opts, prices: (await readSettings(db)).prices });
  if (await getAgreementSet(db, id)) return await optimizeImport(db, id, opts);
  throw new JuryError(
    "not_found",
    `No run or import with id "${id}" (jury runs list and jury agreement list show them)`,
  );
}
