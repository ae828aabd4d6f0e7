import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getExperimentResults } from "@/db/queries/experiments";
import { listStudyQueries } from "@/db/queries/study";
import { settingsFor, tempDb } from "../testing/fixtures";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { retrieveCandidates } from "./candidates";
import { runExperiment } from "./experiment";
import { importStudyFolder } from "./import";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

it("a judge configuration stores, per query, the BM25 pool the judge saw and a kept set drawn from it", async () => {
  // keep the first two candidates shown, whatever they are
  server.setScript(() => ({ json: { keep: [0, 1] } }));
  const { db } = tempDb();
  await importStudyFolder(db, path.resolve(__dirname, "../../examples/memory-study"), "s");
  const config = {
    kind: "single" as const,
    mode: "auto" as const,
    topK: 3,
    poolSize: 6,
    shuffle: true,
    model: "local:judge",
  };
  const id = await runExperiment(db, { collection: "s", config, settings: settingsFor(server.baseURL) });
  const results = getExperimentResults(db, id);
  const queries = listStudyQueries(db, "s");
  expect(results).toHaveLength(queries.length);
  for (const r of results) {
    const q = queries.find((x) => x.queryId === r.queryId)!;
    const pool = retrieveCandidates(db, {
      collection: "s",
      prompt: q.text,
      mode: "auto",
      poolSize: 6,
    }).candidates;
    expect(r.candidates, r.queryId).toEqual(pool.map((c) => ({ memoryId: c.memoryId, score: c.score })));
    const ids = new Set(pool.map((c) => c.memoryId));
    expect(r.retrieved.every((m) => ids.has(m))).toBe(true);
    expect(r.retrieved.length).toBeLessThanOrEqual(Math.min(2, pool.length));
    if (pool.length) expect(r.path).toBe("judge");
  }
});
