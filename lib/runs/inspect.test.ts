import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getRunSamples } from "@/db/queries/runs";
import type { RunOptions } from "@/db/schema";
import { loadCriteria } from "../criteria/registry";
import { loadSuite } from "../suites/load-suite";
import {
  lengthOk,
  llmDefinition,
  settingsFor,
  tempDb,
  testRegistry,
  testSuite,
  writeJson,
} from "../testing/fixtures";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { executeRun } from "./execute-run";
import { inspectSample } from "./inspect";
import { createRun } from "./plan-run";

let server: ScriptedServer;
const CANARY = "sk-inspect-canary-0123456789abcdef";
const savedKey = process.env.OPENAI_API_KEY;
beforeAll(async () => {
  server = await startScriptedServer(() => ({ json: { score: 3, reasoning: "fine" } }));
  process.env.OPENAI_API_KEY = CANARY;
});
afterAll(async () => {
  await server.close();
  if (savedKey === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = savedKey;
});

const opts: RunOptions = { judges: ["local:a"], n: 2, temperature: 0.8, concurrency: 2, noCache: false };

async function run() {
  const { db } = tempDb();
  const { dir, registry } = testRegistry();
  const suite = testSuite(1);
  // a case whose input carries a key: the inspector must never show it
  writeJson(path.join(suite, "cases", "case0.json"), {
    id: "case0",
    name: "Case 0",
    input: { prompt: `Which key is ${CANARY}? Quote "it", then a comma, please.` },
    output: "An answer.",
  });
  const runId = await createRun(db, loadSuite(suite), registry, opts);
  const before = server.requests.length;
  await executeRun(db, runId, { settings: settingsFor(server.baseURL), registry });
  return { db, dir, registry, runId, suite, received: server.requests.slice(before) };
}

describe("call inspector", () => {
  it("shows the exact messages, model, temperature and schema the judge's server received, verified by the stored hash", async () => {
    const { db, registry, runId, received } = await run();
    const llm = getRunSamples(db, { runId }).filter((s) => s.judge === "local:a");
    expect(llm).toHaveLength(4); // 2 llm criteria × N = 2
    expect(received).toHaveLength(4);
    for (const s of llm) {
      const x = await inspectSample(db, runId, s.id, registry);
      expect(x?.kind).toBe("llm");
      expect(x?.check).toBe("verified");
      const req = x?.request;
      // what arrived, as the scripted server logged it, for the same criterion's prompt
      const got = received.filter((r) => r.text.includes(`Evaluate ${s.criterionId.toUpperCase()}`));
      expect(got).toHaveLength(2);
      for (const g of got) {
        const sent = g.body as {
          model: string;
          temperature: number;
          response_format: unknown;
          messages: unknown;
        };
        expect(sent.model).toBe(req?.model);
        expect(sent.temperature).toBe(req?.temperature);
        expect(sent.response_format).toEqual(req?.responseFormat);
        // the key is redacted on both sides of the comparison: the inspector never shows it
        const redacted = JSON.parse(JSON.stringify(sent.messages).replaceAll(CANARY, "[redacted]"));
        expect(req?.messages).toEqual(redacted);
      }
      expect(JSON.stringify(x)).not.toContain(CANARY);
      expect(x?.sample).toMatchObject({ rawText: `{"score":3,"reasoning":"fine"}`, score: 3, attempts: 1 });
      expect(x?.criterion.version).toBe("1.0");
      expect(x?.criterion.hash).toBe(x?.criterion.hashNow);
    }
  });

  it("a cached sample is verified too; a changed criterion makes the rebuild 'differs', said why", async () => {
    const { db, dir, registry, runId, suite } = await run();
    // a second run of the same suite takes every answer from the cache: the same request, verified
    const second = await createRun(db, loadSuite(suite), registry, opts);
    const before = server.requests.length;
    await executeRun(db, second, { settings: settingsFor(server.baseURL), registry });
    expect(server.requests.length).toBe(before);
    const cached = getRunSamples(db, { runId: second }).find((x) => x.judge === "local:a");
    const c = await inspectSample(db, second, cached!.id, registry);
    expect(c?.sample.cached).toBe(true);
    expect(c?.check).toBe("verified");

    // the criterion's template changes after the run
    const s = getRunSamples(db, { runId }).find((x) => x.judge === "local:a" && x.criterionId === "helpful");
    const def = llmDefinition("helpful");
    writeJson(path.join(dir, "helpful", "definition.json"), {
      ...def,
      version: "2.0",
      prompt_template: `${def.prompt_template} Be terse.`,
    });
    const changed = { criteria: loadCriteria(dir, { short: { lengthOk } }).criteria };
    const x = await inspectSample(db, runId, s!.id, changed);
    expect(x?.check).toBe("differs");
    expect(x?.note).toContain("version 1.0 then, 2.0 now");
    expect(x?.request?.messages[1].content).toContain("Be terse.");
    expect((await inspectSample(db, runId, s!.id, registry))?.check).toBe("verified");
  });

  it("a deterministic check has no request; an unknown sample or run is undefined", async () => {
    const { db, registry, runId } = await run();
    const det = getRunSamples(db, { runId }).find((s) => s.judge === "deterministic");
    const x = await inspectSample(db, runId, det!.id, registry);
    expect(x).toMatchObject({ kind: "deterministic", deterministic: { function: "lengthOk" } });
    expect(x?.request).toBeUndefined();
    expect(await inspectSample(db, runId, 999_999, registry)).toBeUndefined();
    expect(await inspectSample(db, "run_20200101_00000000", det!.id, registry)).toBeUndefined();
  });
});
