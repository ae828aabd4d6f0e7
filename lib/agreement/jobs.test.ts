// Imports and reports as jobs: the job row records the outcome, a cancelled import stores nothing,
// the report is stored once and read back, and a run's report is computed again when its labels change.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getAgreementReport, listAgreementSets } from "@/db/queries/agreement";
import { getJob } from "@/db/queries/jobs";
import { forJson, JSON_DISAGREEMENTS } from "../cli/agreement";
import { tempDb, tempDir } from "../testing/fixtures";
import { importSpecSchema } from "./job-spec";
import { currentReport, importJobId, newSetId, runImportJob, storedReport } from "./jobs";

const root = path.resolve(__dirname, "../..");
const ex = (...p: string[]) => path.join(root, "examples/agreement", ...p);
const ref = (p: string) => ({ name: path.basename(p), path: p });

const trecSpec = () =>
  importSpecSchema.parse({
    setId: newSetId("trec"),
    format: "trec",
    gold: ref(ex("trec/gold.qrels")),
    judges: [ref(ex("trec/judge-a.qrels")), ref(ex("trec/judge-b.qrels"))],
    options: {},
  });

describe("imports as jobs", () => {
  it("an import job stores the set and its report together; the job is done with its progress", async () => {
    const { db } = tempDb();
    const spec = trecSpec();
    const seen: [number, number][] = [];
    const r = await runImportJob(db, spec, { onProgress: (d, t) => seen.push([d, t]) });
    expect(r.setId).toBe(spec.setId);
    expect(r.report.judges.map((j) => j.judge)).toEqual(["judge-a", "judge-b"]);
    const job = getJob(db, { id: importJobId(spec.setId) });
    // the row's counters are written with the heartbeat (each second): a job this fast may end first
    expect(job).toMatchObject({ kind: "agreement", status: "done", error: null });
    expect(seen.at(-1)).toEqual([5, 5]); // 3 files read, then 2 judges
    expect(getAgreementReport(db, spec.setId)?.kind).toBe("set");
    expect(await storedReport(db, spec.setId)).toEqual({
      kind: "set",
      report: JSON.parse(JSON.stringify(r.report)),
    });
  });

  it("a cancelled import stores nothing and its job says cancelled", async () => {
    const { db } = tempDb();
    const spec = trecSpec();
    const controller = new AbortController();
    controller.abort();
    await expect(runImportJob(db, spec, { signal: controller.signal })).rejects.toThrow();
    expect(listAgreementSets(db)).toEqual([]);
    expect(getAgreementReport(db, spec.setId)).toBeUndefined();
    expect(getJob(db, { id: importJobId(spec.setId) })?.status).toBe("cancelled");
  });

  it("a refused import fails its job with the problems and stores nothing", async () => {
    const { db } = tempDb();
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "bad.jsonl"), '{"item_id": "a", "judge": "j", "label": "maybe"}\n');
    const spec = importSpecSchema.parse({
      setId: newSetId("jsonl"),
      format: "jsonl",
      gold: null,
      judges: [{ name: "bad.jsonl", path: path.join(dir, "bad.jsonl") }],
      options: {},
    });
    await expect(runImportJob(db, spec)).rejects.toThrow(/bad\.jsonl:1: label/);
    expect(getJob(db, { id: importJobId(spec.setId) })).toMatchObject({ status: "failed" });
    expect(listAgreementSets(db)).toEqual([]);
  });
});

describe("--json summarises the disagreements", () => {
  it("counts per label pair and the first N; all of them on request", async () => {
    const { db } = tempDb();
    const dir = tempDir();
    // 30 items, the judge wrong on 25 of them
    const lines = Array.from({ length: 30 }, (_, i) =>
      JSON.stringify({ item_id: `i${i}`, judge: "j", label: i >= 25, gold: true }),
    );
    fs.writeFileSync(path.join(dir, "d.jsonl"), lines.join("\n"));
    const spec = importSpecSchema.parse({
      setId: newSetId("jsonl"),
      format: "jsonl",
      gold: null,
      judges: [{ name: "d.jsonl", path: path.join(dir, "d.jsonl") }],
      options: {},
    });
    await runImportJob(db, spec);
    const shown = await currentReport(db, spec.setId);
    if (shown?.kind !== "set") throw new Error("expected a set");
    const short = forJson(shown, false) as { judges: { pointwise: { disagreements: unknown } }[] };
    expect(short.judges[0].pointwise.disagreements).toMatchObject({
      count: 25,
      by_labels: [{ gold: 1, judge: 0, count: 25 }],
      shown: JSON_DISAGREEMENTS,
    });
    const long = forJson(shown, true) as { judges: { pointwise: { disagreements: { items: unknown[] } } }[] };
    expect(long.judges[0].pointwise.disagreements.items).toHaveLength(25);
  });
});
