import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSuite } from "../suites/load-suite";
import { settingsFor, tempDb, tempDir, testRegistry, testSuite } from "../testing/fixtures";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { callsText, estimateRun } from "./estimate";
import { executeRun } from "./execute-run";
import { createRun } from "./plan-run";
import { suiteSummaries } from "./suite-summaries";

let server: ScriptedServer;
const saved = process.env.JURY_SUITES_DIR;
beforeAll(async () => {
  server = await startScriptedServer(() => ({ json: { score: 3, reasoning: "ok" } }));
});
afterAll(async () => {
  await server.close();
  process.env.JURY_SUITES_DIR = saved;
});

const prices = { "local:a": { inputPerMTok: 1, outputPerMTok: 2 } };

describe("estimates count cached calls apart and price only the calls to make", () => {
  it("after a run at N = 2, an estimate at N = 3 takes two samples of every prompt from the cache", async () => {
    const root = tempDir("jury-suites-");
    const suiteDir = path.join(root, "s");
    fs.cpSync(testSuite(2), suiteDir, { recursive: true });
    process.env.JURY_SUITES_DIR = root;
    const { db } = tempDb();
    const { registry } = testRegistry();
    const judges = ["local:a", "local:b"];
    const runId = await createRun(db, loadSuite(suiteDir), registry, {
      judges,
      n: 2,
      temperature: 0.8,
      concurrency: 4,
      noCache: false,
    });
    await executeRun(db, runId, { settings: settingsFor(server.baseURL), registry });

    const [summary] = await suiteSummaries(registry, { db, judges, temperature: 0.8 });
    const cells = 2 * 2; // 2 cases × 2 LLM criteria (the deterministic one makes no call)
    expect(summary.cached).toEqual({
      "local:a": [cells, cells, 0, 0, 0, 0, 0, 0, 0, 0],
      "local:b": [cells, cells, 0, 0, 0, 0, 0, 0, 0, 0],
    });

    const three = estimateRun(summary, judges, 3, prices, 4, {}, 0.8);
    expect(three).toMatchObject({ calls: 24, cachedCalls: 16, callsToMake: 8 });
    expect(callsText(three)).toBe("16 cached, 8 to call");
    // local:b has no price and calls to make: the cost is unknown, never $0
    expect(three.costUsd).toBeNull();
    expect(three.unpricedJudges).toEqual(["local:b"]);
    // only the calls to make are priced: local:a's one uncached sample per prompt
    const onlyA = estimateRun(summary, ["local:a"], 3, prices, 4, {}, 0.8);
    const fresh = estimateRun({ ...summary, cached: undefined }, ["local:a"], 1, prices, 4);
    expect(onlyA.callsToMake).toBe(cells);
    expect(onlyA.costUsd).toBeCloseTo(fresh.costUsd as number, 12);
    // at N = 2 every call is cached: nothing to price, so even the unpriced judge costs nothing
    const two = estimateRun(summary, judges, 2, prices, 4, {}, 0.8);
    expect(two).toMatchObject({
      cachedCalls: 16,
      callsToMake: 0,
      costUsd: 0,
      seconds: 0,
      unpricedJudges: [],
    });
    // another temperature is another cache key: nothing cached
    expect(estimateRun(summary, judges, 2, prices, 4, {}, 0.2)).toMatchObject({
      cachedCalls: 0,
      callsToMake: 16,
    });

    // the run at N = 3 makes exactly the calls the estimate said
    const before = server.requests.length;
    const again = await createRun(db, loadSuite(suiteDir), registry, {
      judges,
      n: 3,
      temperature: 0.8,
      concurrency: 4,
      noCache: false,
    });
    await executeRun(db, again, { settings: settingsFor(server.baseURL), registry });
    expect(server.requests.length - before).toBe(three.callsToMake);
  });
});
