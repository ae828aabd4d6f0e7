import fs from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getRunSamples } from "@/db/queries/runs";
import { executeRun } from "@/lib/runs/execute-run";
import { createRun } from "@/lib/runs/plan-run";
import { loadSuite } from "@/lib/suites/load-suite";
import { settingsFor, tempDb, testRegistry, testSuite } from "@/lib/testing/fixtures";
import { type ScriptedServer, startScriptedServer } from "@/lib/testing/scripted-server";

// A judge reply over JURY_MAX_REPLY_BYTES (default 256 KiB) is that sample's error, stored once and cut to
// the cap: not kept whole as raw text, again as reasoning and a third time in the response cache.
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer(() => ({
    json: { score: 7, reasoning: "r".repeat(1024 * 1024) },
  }));
});
afterAll(() => server.close());

const CAP = 256 * 1024;

it("a 1 MB judge reply is the sample's error naming the cap; the database grows by about the cap per sample", async () => {
  const { db, file } = tempDb();
  const { registry } = testRegistry();
  const settings = settingsFor(server.baseURL, { maxRetries: 2 });
  const runId = await createRun(db, loadSuite(testSuite(1)), registry, {
    judges: ["local:a"],
    n: 1,
    temperature: 0.8,
    concurrency: 4,
    noCache: false,
  });
  db.$client.pragma("wal_checkpoint(TRUNCATE)");
  const sizeBefore = fs.statSync(file).size;
  const requestsBefore = server.requests.length;

  expect(await executeRun(db, runId, { settings, registry })).toBe("done_with_failures"); // every sample is the cap error

  const llm = (await getRunSamples(db, { runId })).filter((s) => s.judge === "local:a");
  expect(llm).toHaveLength(2); // helpful and brief; "short" is deterministic
  // each asked once: a reply too large is not retried
  expect(server.requests.length - requestsBefore).toBe(2);
  for (const s of llm) {
    expect(s.error).toMatch(/^reply too large: 10\d{5} bytes, cap 262144 \(JURY_MAX_REPLY_BYTES\)/);
    expect(s.score).toBeNull();
    expect(s.reasoning).toBeNull();
    expect(Buffer.byteLength(s.rawText ?? "")).toBeLessThanOrEqual(CAP);
    expect(s.rawText?.startsWith('{"score":7,"reasoning":"rrrr')).toBe(true);
    expect(s.outputTokens).toBeGreaterThan(0);
  }
  // nothing cached: a rerun asks again rather than replaying a reply it refused
  expect(db.$client.prepare("select count(*) from response_cache").pluck().get()).toBe(0);

  db.$client.pragma("wal_checkpoint(TRUNCATE)");
  const grown = fs.statSync(file).size - sizeBefore;
  // two samples at the cap, plus pages for the rest of the run: far from 2 × 3 × 1 MB
  expect(grown).toBeLessThan(2 * CAP + 256 * 1024);
});
