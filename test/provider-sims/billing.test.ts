// Exact billing and prompt caching, through the real AI SDK providers against the provider simulators:
// what Jury stores for each call is what the provider's ledger bills for it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getRunSamples } from "@/db/queries/runs";
import { setProviderFetch } from "@/lib/providers/get-model";
import { runAgainstSims, SIM_PANEL, writeCacheSuite } from "@/lib/testing/cost-harness";
import { tempDb, tempDir, testRegistry } from "@/lib/testing/fixtures";
import { createProviderSims } from "@/lib/testing/provider-sims";

const sims = createProviderSims();
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const [k, v] of Object.entries(sims.env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  setProviderFetch(sims.fetch);
});
afterAll(() => {
  setProviderFetch(undefined);
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe("a run's cost is the providers' bill, to the cent and below", () => {
  const suite = writeCacheSuite(tempDir("jury-cache-suite-"), 2);
  const { registry } = testRegistry();

  it("with prompt caching: the first sample of each prompt writes the cache, the others read it", async () => {
    const { db } = tempDb();
    const r = await runAgainstSims(db, sims, suite, registry, { n: 3, promptCaching: true });
    sims.assertNoRejections();
    expect(r).toMatchObject({ status: "done", errors: 0, samples: 2 * 3 * 3 });
    expect(r.juryUsd).toBeCloseTo(r.ledgerUsd, 9);
    const samples = getRunSamples(db, { runId: r.runId });
    for (const judge of SIM_PANEL) {
      const mine = samples.filter((s) => s.judge === judge);
      // per prompt: sample 0 read nothing, samples 1 and 2 read the prefix
      expect(mine.filter((s) => s.sampleIndex === 0).every((s) => s.cacheReadTokens === 0)).toBe(true);
      expect(mine.filter((s) => s.sampleIndex > 0).every((s) => s.cacheReadTokens >= 4096)).toBe(true);
      expect(mine.every((s) => s.cacheSavedUsd >= 0 || s.cacheWriteTokens > 0)).toBe(true);
    }
    // Anthropic's first call of each prompt wrote the cache (billed at the write premium)
    const haiku = samples.filter((s) => s.judge === "anthropic:claude-haiku-4-5");
    expect(haiku.filter((s) => s.sampleIndex === 0).every((s) => s.cacheWriteTokens >= 4096)).toBe(true);
    // Gemini's thinking and gpt-5-mini's reasoning are output, billed and stored
    expect(
      samples.filter((s) => s.judge !== "anthropic:claude-haiku-4-5").every((s) => s.reasoningTokens > 0),
    ).toBe(true);
  });

  it("without prompt caching: no breakpoint, no cache key, the samples sent together, nothing read", async () => {
    const { db } = tempDb();
    const on = await runAgainstSims(tempDb().db, sims, suite, registry, { n: 3, promptCaching: true });
    const off = await runAgainstSims(db, sims, suite, registry, { n: 3, promptCaching: false });
    sims.assertNoRejections();
    expect(off.juryUsd).toBeCloseTo(off.ledgerUsd, 9);
    const haiku = getRunSamples(db, { runId: off.runId }).filter((s) => s.judge.startsWith("anthropic:"));
    expect(haiku.every((s) => s.cacheReadTokens === 0 && s.cacheWriteTokens === 0)).toBe(true);
    // cache reads at a tenth of input: caching costs less on prompts this long
    expect(on.juryUsd).toBeLessThan(off.juryUsd * 0.8);
  });
});
