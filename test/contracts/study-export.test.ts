import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listStudyQueries, upsertStudyQueries } from "@/db/queries/study";
import { runExperiment } from "@/lib/memory/experiment";
import { importStudyFolder } from "@/lib/memory/import";
import { exportStudy } from "@/lib/memory/study-export";
import { readSettings } from "@/lib/settings/store";
import { settingsFor, tempDb } from "@/lib/testing/fixtures";
import { runJury } from "@/lib/testing/run-jury";

// The CLI's study export and the dashboard's export route (app/memory/[collection]/export) give the
// same bytes: both are lib/memory/study-export.ts over the same database.
const saved = process.env.JURY_DB;
const { db, file } = tempDb();

beforeAll(async () => {
  await importStudyFolder(db, path.resolve(__dirname, "../../examples/memory-study"), "s");
  const q = (await listStudyQueries(db, "s"))[0];
  await upsertStudyQueries(db, "s", [
    { queryId: q.queryId, text: 'A "quoted" query, with a comma\nand a line' },
  ]);
  const config = { kind: "bm25" as const, mode: "auto" as const, topK: 3, poolSize: 15, shuffle: false };
  await runExperiment(db, { collection: "s", config, settings: settingsFor("http://127.0.0.1:9") });
  process.env.JURY_DB = file;
}, 60_000);
afterAll(() => {
  if (saved === undefined) delete process.env.JURY_DB;
  else process.env.JURY_DB = saved;
});

const get = async (query: string, collection = "s") => {
  const { GET } = await import("@/app/memory/[collection]/export/route");
  return GET(new Request(`http://x/memory/${collection}/export?${query}`), {
    params: Promise.resolve({ collection }),
  });
};

describe("study export: CLI and dashboard", () => {
  it.each([
    ["export-labels", "csv", "what=labels&format=csv", "s-labels.csv", "text/csv"],
    ["export-labels", "qrels", "what=qrels", "s.qrels", "text/plain"],
    ["export-metrics", "csv", "what=metrics&format=csv", "s-metrics.csv", "text/csv"],
    ["export-metrics", "json", "what=metrics&format=json", "s-metrics.json", "application/json"],
  ])(
    "`jury memory %s s --format %s` prints the route's bytes",
    async (sub, format, query, filename, type) => {
      const r = await runJury(["memory", sub, "s", "--format", format], { env: { JURY_DB: file } });
      expect(r.code, r.stderr).toBe(0);
      const res = await get(query);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${filename}"`);
      expect(res.headers.get("content-type")).toContain(type);
      const dashboard = await res.text();
      expect(dashboard.length).toBeGreaterThan(0);
      expect(r.stdout).toBe(dashboard);
      const spec =
        sub === "export-labels"
          ? { what: "labels" as const, format: format as "csv" | "qrels" }
          : { what: "metrics" as const, format: format as "csv" | "json" };
      expect(dashboard).toBe((await exportStudy(db, "s", spec, (await readSettings(db)).prices)).body);
    },
  );

  it("the CLI's default format is CSV, and export-labels --format qrels is export-qrels", async () => {
    const plain = await runJury(["memory", "export-labels", "s"], { env: { JURY_DB: file } });
    expect(plain.stdout).toBe(await (await get("what=labels")).text());
    expect(plain.stdout.split("\r\n")[0]).toMatch(/^collection,query_id,query_text,memory_id,relevant/);
    const metrics = await runJury(["memory", "export-metrics", "s"], { env: { JURY_DB: file } });
    expect(metrics.stdout).toBe(await (await get("what=metrics")).text());
    const a = await runJury(["memory", "export-labels", "s", "--format", "qrels"], {
      env: { JURY_DB: file },
    });
    const b = await runJury(["memory", "export-qrels", "--collection", "s"], { env: { JURY_DB: file } });
    expect(a.stdout).toBe(b.stdout);
  });

  it("a bad parameter is 400 naming it, an unknown collection 404 (and exit 2 from the CLI)", async () => {
    const what = await get("what=everything");
    expect(what.status).toBe(400);
    expect((await what.json()).error).toMatch(/^what: .*"everything"/);
    const fmt = await get("what=metrics&format=qrels");
    expect(fmt.status).toBe(400);
    expect((await fmt.json()).error).toMatch(/^format: .*"qrels"/);
    expect((await get("what=labels&format=json")).status).toBe(400);
    expect((await get("what=labels", "nope")).status).toBe(404);
    expect((await get("what=metrics", "..%2F")).status).toBe(404);
    const cli = await runJury(["memory", "export-metrics", "nope"], { env: { JURY_DB: file } });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('No collection "nope" (there are: s)');
    const bad = await runJury(["memory", "export-labels", "s", "--format", "json"], {
      env: { JURY_DB: file },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--format");
  });
});
