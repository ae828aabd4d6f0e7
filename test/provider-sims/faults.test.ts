// Each fault in each provider's own shape, through the real SDK providers, and what Jury makes of it.
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getRunSamples } from "@/db/queries/runs";
import { isJuryError } from "@/lib/errors";
import { callModel } from "@/lib/judging/call-model";
import { getModel, setProviderFetch } from "@/lib/providers/get-model";
import { errorKind, groupFailures } from "@/lib/runs/coverage";
import { executeRun } from "@/lib/runs/execute-run";
import { createRun } from "@/lib/runs/plan-run";
import { defaultSettings, type Settings } from "@/lib/settings/schema";
import { loadSuite } from "@/lib/suites/load-suite";
import { tempDb, tempDir, testRegistry, writeJson } from "@/lib/testing/fixtures";
import { createProviderSims, type SimFault } from "@/lib/testing/provider-sims";

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
afterEach(() => {
  sims.assertNoRejections();
  sims.reset();
});
for (const s of [sims.openai, sims.anthropic, sims.google])
  s.answer = () => ({ score: 7, reasoning: "Fine." });

const JUDGES = ["openai:gpt-5-mini", "anthropic:claude-sonnet-4-5", "google:gemini-2.5-flash"] as const;
const simOf = (judge: string) =>
  judge.startsWith("openai:") ? sims.openai : judge.startsWith("anthropic:") ? sims.anthropic : sims.google;
const schema = {
  type: "object",
  properties: { score: { type: "number" }, reasoning: { type: "string" } },
  required: ["score", "reasoning"],
  additionalProperties: false,
};

/** One call through callModel, recording the waits it chose instead of sleeping. */
async function call(judge: string, fault: SimFault, times = 1, maxRetries = 4) {
  simOf(judge).fail(fault, { times });
  const waits: number[] = [];
  try {
    const r = await callModel({
      model: getModel(judge),
      system: "Judge it.",
      prompt: "Is 2 + 2 = 4?",
      schema,
      temperature: 0.8,
      timeoutMs: 10_000,
      maxRetries,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    return { ok: true as const, r, waits };
  } catch (err) {
    return { ok: false as const, err, waits };
  }
}

describe.each(JUDGES)("%s: faults", (judge) => {
  it("429: waits what the provider said (Retry-After, or Gemini's RetryInfo.retryDelay in the body), then answers", async () => {
    const c = await call(judge, { kind: "rate_limit", retryAfterSeconds: 7 }, 2);
    expect(c.ok).toBe(true);
    expect(c.waits).toEqual([7000, 7000]);
    if (c.ok) expect(c.r.attempts).toBe(3);
  });

  it("overloaded (Anthropic's 529, 503 elsewhere) and 5xx: retried with backoff, then answers", async () => {
    const over = await call(judge, { kind: "overloaded" }, 1);
    expect(over.ok).toBe(true);
    expect(over.waits).toHaveLength(1);
    const five = await call(judge, { kind: "server_error" }, 2);
    expect(five.ok).toBe(true);
    expect(five.waits).toHaveLength(2);
    expect(
      simOf(judge)
        .records.filter((r) => r.fault)
        .map((r) => r.status),
    ).toEqual([judge.startsWith("anthropic:") ? 529 : 503, 500, 500]);
  });

  it("5xx past the retries: fails with the status and the attempts made", async () => {
    const c = await call(judge, { kind: "server_error" }, 3, 2);
    expect(c.ok).toBe(false);
    if (c.ok || !isJuryError(c.err)) throw new Error("expected a JuryError");
    expect(c.err.message).toMatch(/HTTP 500.*\(after 3 attempts\)/);
    expect(c.err.details?.attempts).toBe(3);
    expect(errorKind(c.err.message)).toBe("HTTP 500");
  });

  it("a bad key: fails at once, not retried (Google answers a bad key with 400 API_KEY_INVALID)", async () => {
    const c = await call(judge, { kind: "unauthorized" });
    expect(c.ok).toBe(false);
    expect(c.waits).toEqual([]);
    if (c.ok || !isJuryError(c.err)) throw new Error("expected a JuryError");
    expect(errorKind(c.err.message)).toBe(judge.startsWith("google:") ? "HTTP 400" : "HTTP 401");
    expect(c.err.details?.attempts).toBe(1);
  });

  it("a refusal is its own failure, not retried, with the tokens it cost", async () => {
    const c = await call(judge, { kind: "refusal" });
    expect(c.ok).toBe(false);
    expect(c.waits).toEqual([]);
    if (c.ok || !isJuryError(c.err)) throw new Error("expected a JuryError");
    expect(c.err.code).toBe("refusal");
    expect(errorKind(c.err.message)).toBe("refusal");
    expect(c.err.details?.inputTokens).toBeGreaterThan(0);
    expect(c.err.details?.attempts).toBe(1);
  });

  it("an answer cut at the max output tokens is its own failure, naming the limit", async () => {
    const c = await call(judge, { kind: "truncated" });
    expect(c.ok).toBe(false);
    if (c.ok || !isJuryError(c.err)) throw new Error("expected a JuryError");
    expect(c.err.code).toBe("truncated");
    expect(errorKind(c.err.message)).toBe("truncated");
    expect(c.err.message).toContain(judge.startsWith("anthropic:") ? "(1024)" : "(5120)");
    expect(c.err.details?.outputTokens).toBe(judge.startsWith("anthropic:") ? 1024 : 5120);
  });
});

describe("faults in a run", () => {
  const settings: Settings = {
    ...defaultSettings,
    judging: { ...defaultSettings.judging, timeoutMs: 10_000, maxRetries: 2 },
    prices: {},
  };
  function suite(n: number): string {
    const dir = tempDir("jury-sim-suite-");
    writeJson(path.join(dir, "suite.json"), { name: "Sim suite", criteria: [{ id: "helpful" }] });
    for (let i = 0; i < n; i++) {
      writeJson(path.join(dir, "cases", `c${i}.json`), {
        id: `c${i}`,
        name: `Case ${i}`,
        input: { prompt: `Question ${i}?` },
        output: `Answer ${i}.`,
      });
    }
    return dir;
  }

  it.each(JUDGES)(
    "%s: a failed sample stores the attempts made, refusals and truncations are named as such",
    async (judge) => {
      const { db } = tempDb();
      const { registry } = testRegistry();
      const sim = simOf(judge);
      // one task at a time, so each fault lands on a known sample
      sim.fail({ kind: "server_error" }, { times: 3 }).fail({ kind: "refusal" }).fail({ kind: "truncated" });
      const runId = await createRun(db, loadSuite(suite(4)), registry, {
        judges: [judge],
        n: 1,
        temperature: 0.8,
        concurrency: 1,
        noCache: true,
      });
      await executeRun(db, runId, { settings, registry, onWarning: () => {} });
      const samples = getRunSamples(db, { runId });
      const kinds = samples.map((s) => (s.error ? errorKind(s.error) : "answered")).sort();
      expect(kinds).toEqual(["HTTP 500", "answered", "refusal", "truncated"]);
      const http = samples.find((s) => s.error?.includes("HTTP 500"));
      expect(http?.attempts).toBe(3);
      const refused = samples.find((s) => s.error && errorKind(s.error) === "refusal");
      expect(refused?.attempts).toBe(1);
      expect(refused?.inputTokens).toBeGreaterThan(0);
      const cut = samples.find((s) => s.error && errorKind(s.error) === "truncated");
      expect(cut?.outputTokens).toBeGreaterThan(0);
      expect(
        groupFailures(samples)
          .map((g) => g.kind)
          .sort(),
      ).toEqual(["HTTP 500", "refusal", "truncated"]);
    },
  );
});
