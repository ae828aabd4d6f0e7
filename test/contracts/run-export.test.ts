import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunOptions } from "@/db/schema";
import { executeRun } from "@/lib/runs/execute-run";
import { exportRun } from "@/lib/runs/export";
import { createRun } from "@/lib/runs/plan-run";
import { loadSuite } from "@/lib/suites/load-suite";
import { settingsFor, tempDb, testRegistry, testSuite, writeJson } from "@/lib/testing/fixtures";
import { runJury } from "@/lib/testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "@/lib/testing/scripted-server";

// The CLI's export and the dashboard's export route (app/runs/[id]/export) give the same bytes: both
// are lib/runs/export.ts over the same database.
const saved = process.env.JURY_DB;
let server: ScriptedServer;
const { db, file } = tempDb();
let runId = "";

beforeAll(async () => {
  server = await startScriptedServer((req) => ({
    json: {
      score: 2 + (req.index % 3),
      reasoning: `"quoted", with commas,\nand a line break (call ${req.index})`,
    },
  }));
  const { registry } = testRegistry();
  const suite = testSuite(2);
  writeJson(path.join(suite, "cases", "case1.json"), {
    id: "case1",
    name: 'Case "one", with a comma',
    input: { prompt: "Why?" },
    output: "Because.",
  });
  const opts: RunOptions = { judges: ["local:a"], n: 2, temperature: 0.8, concurrency: 2, noCache: false };
  runId = await createRun(db, loadSuite(suite), registry, opts);
  await executeRun(db, runId, { settings: settingsFor(server.baseURL), registry });
  process.env.JURY_DB = file;
}, 60_000);
afterAll(async () => {
  await server.close();
  if (saved === undefined) delete process.env.JURY_DB;
  else process.env.JURY_DB = saved;
});

describe("run export: CLI and dashboard", () => {
  it("`jury runs export` prints the same bytes as the dashboard's export route, in both formats", async () => {
    const { GET } = await import("@/app/runs/[id]/export/route");
    for (const format of ["csv", "json"] as const) {
      const r = await runJury(["runs", "export", runId, "--format", format], { env: { JURY_DB: file } });
      expect(r.code, r.stderr).toBe(0);
      const res = await GET(new Request(`http://x/runs/${runId}/export?format=${format}`), {
        params: Promise.resolve({ id: runId }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-disposition")).toBe(
        `attachment; filename="${runId}-samples.${format}"`,
      );
      const dashboard = await res.text();
      expect(r.stdout).toBe(dashboard);
      expect(dashboard).toBe((await exportRun(db, runId, format)).body);
    }
    const bad = await GET(new Request(`http://x/runs/${runId}/export?format=xml`), {
      params: Promise.resolve({ id: runId }),
    });
    expect(bad.status).toBe(400);
    const none = await GET(new Request("http://x/runs/run_20200101_00000000/export"), {
      params: Promise.resolve({ id: "run_20200101_00000000" }),
    });
    expect(none.status).toBe(404);
    const cli = await runJury(["runs", "export", "run_20200101_00000000"], { env: { JURY_DB: file } });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain("No run with id");
  });
});
