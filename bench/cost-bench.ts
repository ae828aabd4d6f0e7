// Cost benchmark: a 3-judge panel (one judge per built-in provider: openai:gpt-5-mini,
// anthropic:claude-haiku-4-5, google:gemini-2.5-flash) × N = 5 on a suite whose judge prompts pass
// every provider's cache minimum, against the provider simulators (lib/testing/provider-sims) through
// the real AI SDK providers. Three modes, each from a cold cache:
//   (a) prompt caching and batch off, (b) prompt caching on, (c) prompt caching and batch on.
// Each mode's cost as Jury computed it is checked against the simulators' ledger (the providers'
// formula at their published rates) to the cent, then the ratios to (a) and the wall time of (b)
// against (a) are printed. Targets: caching ≤ 0.5, caching+batch ≤ 0.3, wall time (b) ≤ 1.2 × (a).
//
//   npm run build:cli && node dist/cost-bench.mjs [--json] [--cases=N] [--latency=MS]
import { setProviderFetch } from "@/lib/providers/get-model";
import {
  runAgainstSims,
  SIM_PANEL,
  type SimRunResult,
  simSettings,
  writeCacheSuite,
} from "@/lib/testing/cost-harness";
import { tempDb, tempDir, testRegistry } from "@/lib/testing/fixtures";
import { createProviderSims } from "@/lib/testing/provider-sims";

const json = process.argv.includes("--json");
const arg = (name: string, dflt: number) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.split("=")[1]) : dflt;
};
const CASES = arg("cases", 12);
const N = 5;
const LATENCY_MS = arg("latency", 100);
const TARGET_CACHING = 0.5;
const TARGET_BATCH = 0.3;
const TARGET_WALL = 1.2;

const log = (s: string) => process.stderr.write(`${s}\n`);

const sims = createProviderSims();
for (const s of [sims.openai, sims.anthropic, sims.google]) s.latencyMs = LATENCY_MS;
Object.assign(process.env, sims.env);
setProviderFetch(sims.fetch);

const suite = writeCacheSuite(tempDir("jury-cost-bench-"), CASES);
const { registry } = testRegistry();
const settings = simSettings({ concurrency: 8, perProviderConcurrency: 4 });

async function mode(name: string, promptCaching: boolean, batch: boolean): Promise<SimRunResult> {
  log(`${name}: ${CASES} cases × 1 criterion × ${SIM_PANEL.length} judges × N = ${N}…`);
  // the provider runs a submitted batch within the bench, not within 24 h
  // (one pass at a time: a pass runs every pending batch's requests)
  let busy = false;
  const pass = async () => {
    if (busy) return;
    busy = true;
    await sims.processBatches().finally(() => {
      busy = false;
    });
  };
  const worker = batch ? setInterval(() => void pass(), 50) : undefined;
  try {
    const r = await runAgainstSims(tempDb().db, sims, suite, registry, {
      n: N,
      promptCaching,
      batch,
      settings,
      execute: { batchPollMs: 25 },
    });
    sims.assertNoRejections();
    if (r.status !== "done" || r.errors > 0)
      throw new Error(`${name}: run ${r.status}, ${r.errors} failed samples`);
    return r;
  } finally {
    if (worker) clearInterval(worker);
  }
}

// warm-up (SDK modules loaded, code compiled), not measured: otherwise (a) pays it alone
await runAgainstSims(tempDb().db, sims, writeCacheSuite(tempDir("jury-cost-warm-"), 1), registry, {
  n: 1,
  promptCaching: false,
  settings,
});
const a = await mode("(a) caching off, batch off", false, false);
const b = await mode("(b) caching on", true, false);
const c = await mode("(c) caching on, batch on", true, true);

let failed = false;
const line = (name: string, r: SimRunResult) => {
  const diff = Math.abs(r.juryUsd - r.ledgerUsd);
  const ok = Math.round(r.juryUsd * 100) === Math.round(r.ledgerUsd * 100) && diff < 1e-9;
  if (!ok) failed = true;
  const share = r.inputTokens ? (100 * r.cacheReadTokens) / r.inputTokens : 0;
  return `cost ${name}: $${r.juryUsd.toFixed(6)} (ledger $${r.ledgerUsd.toFixed(6)}, ${ok ? "equal" : "DIFFERENT"}) · ${r.samples} calls · ${share.toFixed(0)} % of input from the prompt cache · ${(r.wallMs / 1000).toFixed(2)} s`;
};
const ratioCaching = b.juryUsd / a.juryUsd;
const ratioBatch = c.juryUsd / a.juryUsd;
const wall = b.wallMs / a.wallMs;

if (json) {
  console.log(
    JSON.stringify(
      {
        cases: CASES,
        n: N,
        judges: SIM_PANEL,
        latency_ms: LATENCY_MS,
        modes: { a, b, c },
        cost_ratio_caching: ratioCaching,
        cost_ratio_caching_batch: ratioBatch,
        wall_ratio_caching: wall,
        ledger_equal: !failed,
      },
      null,
      2,
    ),
  );
} else {
  console.log(line("(a) caching off, batch off", a));
  console.log(line("(b) caching on", b));
  console.log(line("(c) caching on, batch on", c));
  console.log(`cost ratio caching: ${ratioCaching.toFixed(3)} (target ≤ ${TARGET_CACHING})`);
  console.log(`cost ratio caching+batch: ${ratioBatch.toFixed(3)} (target ≤ ${TARGET_BATCH})`);
  console.log(
    `wall time (b) / (a): ${wall.toFixed(2)}× (target ≤ ${TARGET_WALL}×; ${LATENCY_MS} ms per call, ${settings.judging.perProviderConcurrency} per provider)`,
  );
}
setProviderFetch(undefined);
process.exit(failed ? 1 : 0);
