// Jury's built-in providers end to end: the real AI SDK providers (@ai-sdk/openai, @ai-sdk/anthropic,
// @ai-sdk/google) sending real requests to simulators of each provider's published API. A run, a
// review and a memory judgment per provider; every request must be one the real API would accept.
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getRunById, getRunSamples } from "@/db/queries/runs";
import { judgeCandidates } from "@/lib/memory/judge";
import { getModel, setProviderFetch } from "@/lib/providers/get-model";
import { runReview } from "@/lib/review/run-review";
import { executeRun } from "@/lib/runs/execute-run";
import { createRun } from "@/lib/runs/plan-run";
import { defaultSettings, type Settings } from "@/lib/settings/schema";
import { loadSuite } from "@/lib/suites/load-suite";
import { tempDb, tempDir, testRegistry, writeJson } from "@/lib/testing/fixtures";
import { createProviderSims, type SimAnswer } from "@/lib/testing/provider-sims";

const sims = createProviderSims();
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  setProviderFetch(sims.fetch);
  for (const [k, v] of Object.entries(sims.env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
});
afterAll(() => {
  setProviderFetch(undefined);
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
afterEach(() => sims.reset());

/** Answers as a judge would, whichever Jury prompt it is: a run's score, a review's judgment, the memory judge's keep list. */
const answer: SimAnswer = (call) => {
  const props = (call.schema?.properties ?? {}) as Record<string, unknown>;
  if ("keep" in props) return { keep: [0, 2], dropped: [{ index: 1, reason: "another service" }] };
  if ("dimensions" in props) {
    return {
      schema_version: "1.0.0",
      verdict: "pass",
      score: 0.85,
      dimensions: { correctness: 0.9, scope_adherence: 0.8, code_quality: 0.8, completeness: 0.9 },
      issues: [{ severity: "minor", description: "no test for empty input", file: "src/slug.ts" }],
      summary: "Does what was asked.",
      confidence: "high",
    };
  }
  return { score: 7, reasoning: "Mostly right." };
};
for (const s of [sims.openai, sims.anthropic, sims.google]) s.answer = answer;

const JUDGES = ["openai:gpt-5-mini", "anthropic:claude-sonnet-4-5", "google:gemini-2.5-flash"] as const;
const simOf = (judge: string) =>
  judge.startsWith("openai:") ? sims.openai : judge.startsWith("anthropic:") ? sims.anthropic : sims.google;

const settings: Settings = {
  ...defaultSettings,
  judging: { ...defaultSettings.judging, timeoutMs: 10_000, maxRetries: 4 },
  prices: {},
};

/** A suite of `n` cases judged on one LLM criterion, "helpful". */
function suite(n: number): string {
  const dir = tempDir("jury-sim-suite-");
  writeJson(path.join(dir, "suite.json"), { name: "Sim suite", criteria: [{ id: "helpful" }] });
  for (let i = 0; i < n; i++) {
    writeJson(path.join(dir, "cases", `c${i}.json`), {
      id: `c${i}`,
      name: `Case ${i}`,
      input: { prompt: `Question ${i}?`, reference: `Answer ${i}` },
      output: `Answer ${i}.`,
    });
  }
  return dir;
}

async function run(judge: string, cases: number, n: number, patch: Partial<Settings["judging"]> = {}) {
  const { db } = tempDb();
  const { registry } = testRegistry();
  const s = { ...settings, judging: { ...settings.judging, ...patch } };
  const runId = await createRun(db, loadSuite(suite(cases)), registry, {
    judges: [judge],
    n,
    temperature: 0.8,
    concurrency: 4,
    noCache: true,
  });
  const warnings: string[] = [];
  const status = await executeRun(db, runId, { settings: s, registry, onWarning: (w) => warnings.push(w) });
  return { db, runId, status, samples: getRunSamples(db, { runId }), warnings };
}

/** The limit each provider's request carried, read from the body the simulator received. */
function sentMaxTokens(body: Record<string, any>): unknown {
  return body.max_output_tokens ?? body.max_tokens ?? body.generationConfig?.maxOutputTokens;
}

describe.each(JUDGES)("%s through its SDK provider against the simulator", (judge) => {
  it("a run: every sample scored, tokens as the provider reported them, the ledger billed for each call", async () => {
    const r = await run(judge, 2, 2);
    sims.assertNoRejections();
    expect(r.status).toBe("done");
    expect(r.samples).toHaveLength(4);
    expect(r.samples.every((s) => s.score === 7 && s.error === null && s.attempts === 1)).toBe(true);
    const provider = judge.split(":")[0] as "openai" | "anthropic" | "google";
    const billed = sims.ledger.tokens({ provider });
    expect(billed.requests).toBe(4);
    // what Jury stored is what the provider billed: input (all of it) and output (reasoning included)
    const stored = r.samples.reduce((a, s) => ({ i: a.i + s.inputTokens, o: a.o + s.outputTokens }), {
      i: 0,
      o: 0,
    });
    expect(stored.i).toBe(
      billed.inputTokens + billed.cachedInputTokens + billed.cacheWrite5mTokens + billed.cacheWrite1hTokens,
    );
    expect(stored.o).toBe(billed.outputTokens);
    // a reasoning model's warning-free request: no temperature, a limit with headroom for its thinking
    expect(r.warnings).toEqual([]);
    expect(getRunById(r.db, { id: r.runId })?.options.providerWarnings).toBeUndefined();
    for (const g of simOf(judge).generations()) {
      const body = g.body as Record<string, any>;
      expect(sentMaxTokens(body)).toBe(judge.startsWith("anthropic:") ? 1024 : 1024 + 4096);
      if (!judge.startsWith("anthropic:"))
        expect(body.temperature ?? body.generationConfig?.temperature).toBeUndefined();
    }
  });

  it("a review: the judge's judgment, with the request accepted", async () => {
    const r = await runReview({
      judges: [judge],
      n: 1,
      perDimension: false,
      quick: true,
      settings,
      judgeAllowed: { ok: true },
      context: {
        criteria: "- slugify lowercases and joins words with dashes",
        diff: "diff --git a/src/slug.ts b/src/slug.ts\n+export const slugify = (s: string) => s.toLowerCase().split(/\\s+/).join('-');",
        testFiles: [],
        testResults: { passed: 3, failed: 0 },
        meta: {},
        notes: [],
      },
    });
    sims.assertNoRejections();
    expect(r.verdictSource).toBe("judge");
    expect(r.verdict).toBe("pass");
    expect(r.judgment?.dimensions.correctness).toBe(0.9);
    expect(simOf(judge).generations()).toHaveLength(1);
  });

  it("a memory judgment: the kept memories, with the request accepted", async () => {
    const candidates = ["Deploys use blue-green", "Billing runs nightly", "Rollbacks need a ticket"].map(
      (title, i) => ({
        memoryId: `m${i}`,
        category: "ops",
        title,
        tags: ["deploy"],
        body: `${title}.`,
      }),
    );
    const r = await judgeCandidates({
      model: getModel(judge),
      prompt: "How do we deploy and roll back?",
      candidates,
      verification: "strict",
      dual: false,
      shuffle: false,
      timeoutMs: 10_000,
    });
    sims.assertNoRejections();
    expect(r.kept).toEqual([0, 2]);
    expect(r.reasons.get(1)).toBe("another service");
    expect(r.stats.calls).toBe(1);
  });
});
