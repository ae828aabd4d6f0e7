import type { Db } from "@/db/client";
import { getRunById, getRunCases, getRunResults, getRunSampleHistory } from "@/db/queries/runs";
import { rowsToCsv } from "../csv";
import { JuryError } from "../errors";
import { redactSecrets } from "../redact";

/**
 * A run's samples and verdicts as CSV or JSON: one row per stored sample (superseded ones included,
 * marked), with its item's verdict beside it. The dashboard's export route and `jury runs export`
 * both call exportRun, so the two give the same bytes. Text that may echo a key (reasoning, errors,
 * names) passes through redactSecrets; CSV text is guarded against spreadsheet formulas (lib/csv.ts).
 */

export const exportFormats = ["csv", "json"] as const;
export type ExportFormat = (typeof exportFormats)[number];

/** The columns, in order: the CSV header and the JSON rows' keys. */
export const EXPORT_COLUMNS = [
  "run_id",
  "case_id",
  "case_name",
  "criterion_id",
  "judge",
  "sample_index",
  "sample_id",
  "score",
  "passed",
  "threshold",
  "reasoning",
  "input_tokens",
  "output_tokens",
  "cost_usd",
  "latency_ms",
  "attempts",
  "cached",
  "error",
  "superseded",
  "verdict_score",
  "verdict_passed",
] as const;

export type ExportRow = {
  run_id: string;
  case_id: string;
  case_name: string;
  criterion_id: string;
  judge: string;
  sample_index: number;
  sample_id: number;
  score: number | null;
  /** the sample's own score against its item's threshold; null for a failed sample */
  passed: boolean | null;
  threshold: number | null;
  reasoning: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  latency_ms: number;
  attempts: number;
  cached: boolean;
  error: string | null;
  /** "retried" or "resampled" for a sample a newer one replaced (in no figure); null for a current one */
  superseded: "retried" | "resampled" | null;
  /** the item's verdict (its final score and pass), the same on every row of the item */
  verdict_score: number | null;
  verdict_passed: boolean | null;
};

export type RunExport = {
  run: {
    id: string;
    suite: string;
    suite_path: string;
    status: string;
    judges: string[];
    n: number;
    temperature: number;
    created_at: string;
  };
  samples: ExportRow[];
};

const clean = (t: string | null) => (t === null ? null : redactSecrets(t));

/** The rows of a run's export, in stored order. Throws `not_found:run` for an unknown id. */
export async function runExportData(db: Db, runId: string): Promise<RunExport> {
  const run = await getRunById(db, { id: runId });
  if (!run) throw new JuryError("not_found:run", `No run with id "${runId}" (jury runs list shows them)`);
  const cases = new Map((await getRunCases(db, { runId })).map((c) => [c.caseId, c]));
  const key = (c: string, k: string) => `${c}\u0000${k}`;
  const verdicts = new Map(
    (await getRunResults(db, { runId })).map((r) => [key(r.caseId, r.criterionId), r]),
  );
  const samples = (await getRunSampleHistory(db, { runId })).map((s): ExportRow => {
    const c = cases.get(s.caseId);
    const threshold = c?.criteria.find((x) => x.id === s.criterionId)?.threshold ?? null;
    const v = verdicts.get(key(s.caseId, s.criterionId));
    const ok = s.score !== null && !s.error;
    return {
      run_id: run.id,
      case_id: s.caseId,
      case_name: redactSecrets(c?.name ?? ""),
      criterion_id: s.criterionId,
      judge: s.judge,
      sample_index: s.sampleIndex,
      sample_id: s.id,
      score: s.score,
      passed: ok && threshold !== null ? (s.score as number) >= threshold : null,
      threshold,
      reasoning: clean(s.reasoning),
      input_tokens: s.inputTokens,
      output_tokens: s.outputTokens,
      cost_usd: s.costUsd,
      latency_ms: s.latencyMs,
      attempts: s.attempts,
      cached: s.cached,
      error: clean(s.error),
      superseded: s.supersededAt ? (s.supersededReason ?? "retried") : null,
      verdict_score: v?.finalScore ?? null,
      verdict_passed: v ? v.passed : null,
    };
  });
  return {
    run: {
      id: run.id,
      suite: run.suiteName,
      suite_path: run.suitePath,
      status: run.status,
      judges: run.options.judges,
      n: run.options.n,
      temperature: run.options.temperature,
      created_at: run.createdAt.toISOString(),
    },
    samples,
  };
}

/** The rows as CSV: a header, then one line per sample (CRLF line ends, as RFC 4180 writes them). */
export function toCsv(rows: readonly ExportRow[]): string {
  return rowsToCsv(EXPORT_COLUMNS, rows);
}

/** A run's export as the file a person downloads: its text, content type and file name. */
export async function exportRun(
  db: Db,
  runId: string,
  format: ExportFormat,
): Promise<{ body: string; contentType: string; filename: string }> {
  const data = await runExportData(db, runId);
  return format === "csv"
    ? { body: toCsv(data.samples), contentType: "text/csv; charset=utf-8", filename: `${runId}-samples.csv` }
    : {
        body: `${JSON.stringify(data, null, 2)}\n`,
        contentType: "application/json; charset=utf-8",
        filename: `${runId}-samples.json`,
      };
}
