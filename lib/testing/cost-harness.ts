import path from "node:path";
import type { Db } from "@/db/client";
import { getRunCost, getRunSamples } from "@/db/queries/runs";
import type { CriteriaRegistry } from "../criteria/registry";
import { type ExecuteOptions, executeRun } from "../runs/execute-run";
import { createRun } from "../runs/plan-run";
import { defaultSettings, type Settings } from "../settings/schema";
import { loadSuite } from "../suites/load-suite";
import { writeJson } from "./fixtures";
import type { ProviderSims } from "./provider-sims";

/** One judge per built-in provider; Haiku under its alias (priced by its dated id's entry). */
export const SIM_PANEL = ["openai:gpt-5-mini", "anthropic:claude-haiku-4-5", "google:gemini-2.5-flash"];

/**
 * A suite whose judge prompts pass every provider's cache minimum (4,096 tokens for Haiku 4.5, the
 * largest): each case carries a long context, as a retrieval or support case does.
 */
export function writeCacheSuite(dir: string, cases: number, criteria: string[] = ["helpful"]): string {
  writeJson(path.join(dir, "suite.json"), {
    name: "Cache-sized suite",
    criteria: criteria.map((id) => ({ id })),
  });
  for (let i = 0; i < cases; i++) {
    const paragraph = `Record ${i}: the customer's order shipped late; the policy grants a refund of the shipping fee when delivery exceeds the promised window by two days or more. `;
    writeJson(path.join(dir, "cases", `case${i}.json`), {
      id: `case${i}`,
      name: `Case ${i}`,
      input: { prompt: `Is the customer in case ${i} owed a refund?`, context: paragraph.repeat(120) },
      output: `Yes: delivery ran ${i + 2} days late, so the shipping fee of case ${i} is refunded.`,
    });
  }
  return dir;
}

/** Settings with the three built-in providers enabled and the default price table. */
export function simSettings(judging: Partial<Settings["judging"]> = {}): Settings {
  return {
    ...defaultSettings,
    providers: {
      ...defaultSettings.providers,
      openai: { enabled: true, models: ["gpt-5-mini"] },
      anthropic: { enabled: true, models: ["claude-haiku-4-5"] },
      google: { enabled: true, models: ["gemini-2.5-flash"] },
    },
    judging: { ...defaultSettings.judging, timeoutMs: 30_000, maxRetries: 2, ...judging },
  };
}

export type SimRunResult = {
  runId: string;
  status: string;
  /** what Jury stored, summed over the run's samples */
  juryUsd: number;
  /** what the simulators billed for the same calls */
  ledgerUsd: number;
  cacheReadTokens: number;
  inputTokens: number;
  samples: number;
  errors: number;
  wallMs: number;
};

/**
 * Plans and executes one run of `suiteDir` against the simulators (their ledger cleared first, their
 * caches too: each mode starts cold) and returns what Jury billed beside what the ledger holds.
 */
export async function runAgainstSims(
  db: Db,
  sims: ProviderSims,
  suiteDir: string,
  registry: CriteriaRegistry,
  o: {
    judges?: string[];
    n: number;
    promptCaching: boolean;
    batch?: boolean;
    settings?: Settings;
    execute?: Partial<ExecuteOptions>;
  },
): Promise<SimRunResult> {
  sims.reset();
  const settings = o.settings ?? simSettings();
  const runId = await createRun(db, loadSuite(suiteDir), registry, {
    judges: o.judges ?? SIM_PANEL,
    n: o.n,
    temperature: 0.8,
    concurrency: settings.judging.concurrency,
    noCache: true,
    promptCaching: o.promptCaching,
    ...(o.batch ? { batch: true } : {}),
  });
  const started = performance.now();
  const status = await executeRun(db, runId, { settings, registry, ...o.execute });
  const wallMs = performance.now() - started;
  const cost = await getRunCost(db, { runId });
  const samples = await getRunSamples(db, { runId });
  return {
    runId,
    status,
    juryUsd: cost.costUsd,
    ledgerUsd: sims.ledger.total(),
    cacheReadTokens: cost.cacheReadTokens,
    inputTokens: cost.inputTokens,
    samples: samples.length,
    errors: samples.filter((s) => s.error).length,
    wallMs,
  };
}
