import type { LanguageModelV3 } from "@ai-sdk/provider";
import { afterEach, expect, it, vi } from "vitest";
import { getRunById, getRunSamples } from "@/db/queries/runs";
import { setModelOverride } from "../providers/get-model";
import { defaultSettings } from "../settings/schema";
import { loadSuite } from "../suites/load-suite";
import { tempDb, testRegistry, testSuite } from "../testing/fixtures";
import { executeRun } from "./execute-run";
import { createRun } from "./plan-run";

/** A model whose provider warns about every call, as the OpenAI provider does when it drops a setting. */
const warningModel = (modelId: string): LanguageModelV3 => ({
  specificationVersion: "v3",
  provider: "warner",
  modelId,
  supportedUrls: {},
  async doGenerate() {
    return {
      content: [{ type: "text", text: '{"score": 2, "reasoning": "ok"}' }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 5, text: 5, reasoning: 0 },
      },
      warnings: [{ type: "unsupported", feature: "topK", details: "topK is not supported by this model" }],
    };
  },
  async doStream() {
    throw new Error("no streaming");
  },
});

afterEach(() => {
  setModelOverride(undefined);
  vi.restoreAllMocks();
});

it("an SDK warning reaches the run's warning sink once per run, is recorded on the run, and nothing is printed", async () => {
  setModelOverride((spec) => warningModel(spec.split(":")[1]));
  const printed = [vi.spyOn(console, "warn"), vi.spyOn(console, "info"), vi.spyOn(console, "log")];
  const { db } = tempDb();
  const { registry } = testRegistry();
  const runId = await createRun(db, loadSuite(testSuite(2)), registry, {
    judges: ["warner:a"],
    n: 3,
    temperature: 0.8,
    concurrency: 4,
    noCache: true,
  });
  const warnings: string[] = [];
  await executeRun(db, runId, { settings: defaultSettings, registry, onWarning: (w) => warnings.push(w) });
  expect(getRunSamples(db, { runId }).filter((s) => s.judge === "warner:a").length).toBeGreaterThan(3);
  expect(warnings).toEqual(["warner:a: topK is not supported by this model"]);
  expect(getRunById(db, { id: runId })?.options.providerWarnings).toEqual(warnings);
  for (const spy of printed) expect(spy).not.toHaveBeenCalled();
});
