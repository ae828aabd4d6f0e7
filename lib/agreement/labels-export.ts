/**
 * A run's verdict labels as a file, with who gave each: CSV (one row per labelled case × criterion)
 * or JSON (the same rows as an array). CSV text is guarded against spreadsheet formulas (lib/csv.ts).
 */
import type { Db } from "@/db/client";
import { listVerdictLabels } from "@/db/queries/labels";
import { getRunById } from "@/db/queries/runs";
import { rowsToCsv } from "../csv";
import { JuryError } from "../errors";

export const labelExportFormats = ["csv", "json"] as const;
export type LabelExportFormat = (typeof labelExportFormats)[number];

export const VERDICT_LABEL_COLUMNS = [
  "run_id",
  "case_id",
  "criterion_id",
  "passed",
  "score",
  "source",
  "author",
  "labeller",
  "note",
  "updated_at",
] as const;

type Row = Record<(typeof VERDICT_LABEL_COLUMNS)[number], string | number | boolean | null>;

export async function exportVerdictLabels(
  db: Db,
  runId: string,
  format: LabelExportFormat,
): Promise<{ body: string; contentType: string; filename: string }> {
  if (!(await getRunById(db, { id: runId })))
    throw new JuryError("not_found:run", `No run with id "${runId}"`);
  const rows: Row[] = (await listVerdictLabels(db, runId)).map((l) => ({
    run_id: l.runId,
    case_id: l.caseId,
    criterion_id: l.criterionId,
    passed: l.passed,
    score: l.score,
    source: l.source,
    author: l.author,
    labeller: l.labeller,
    note: l.note,
    updated_at: l.updatedAt.toISOString(),
  }));
  if (format === "json")
    return {
      body: `${JSON.stringify(rows, null, 2)}\n`,
      contentType: "application/json; charset=utf-8",
      filename: `${runId}-labels.json`,
    };
  return {
    body: rowsToCsv(VERDICT_LABEL_COLUMNS, rows),
    contentType: "text/csv; charset=utf-8",
    filename: `${runId}-labels.csv`,
  };
}
