// The panel optimizer at scale: 8 judges × N = 5 × 1,000 labelled verdicts (40,000 stored samples),
// every sub-panel × every N (255 × 5 = 1,275 configurations), the frontier, the intervals, the order
// check and the recommendation, timed end to end from the samples in memory. Target: ≤ 2 s.
//
//   node dist/panel-bench.mjs [--verdicts=1000] [--judges=8] [--n=5] [--reps=3] [--json]
import os from "node:os";
import { costPerVerdict, type StoredSampleCost } from "@/lib/panel/cost";
import { optimizePanel, type PanelVerdict } from "@/lib/panel/engine";
import { mulberry32 } from "@/lib/stats/bootstrap";

const args = process.argv.slice(2);
const opt = (name: string, d: number) =>
  Number(args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? d);
const V = opt("verdicts", 1000);
const J = opt("judges", 8);
const N = opt("n", 5);
const reps = opt("reps", 3);
const TARGET_MS = 2000;

const rng = mulberry32(7);
const judges = Array.from({ length: J }, (_, k) => `local:judge-${k + 1}`);
const prices = Object.fromEntries(
  judges.map((j, k) => [j, { inputPerMTok: 0.1 * (k + 1), outputPerMTok: 0.4 * (k + 1) }]),
);
const stored: StoredSampleCost[] = [];
const verdicts: PanelVerdict[] = Array.from({ length: V }, (_, i) => {
  const gold = rng() < 0.5;
  const samples: PanelVerdict["samples"] = {};
  judges.forEach((j, k) => {
    samples[j] = Array.from({ length: N }, (_, s) => {
      stored.push({ caseId: `c${i}`, judge: j, sampleIndex: s, inputTokens: 400 + k * 10, outputTokens: 60 });
      // judge k is right with probability 0.6 + 0.04 k; one sample in 50 fails
      if (rng() < 0.02) return { score: null, error: "timeout" };
      const right = rng() < 0.6 + 0.04 * k;
      return { score: (gold === right ? 7 : 3) + Math.floor(rng() * 3) };
    });
  });
  return { caseId: `c${i}`, label: gold, stored: null, samples };
});
const costs = costPerVerdict(stored, prices, judges, N, V);

const times: number[] = [];
const cpu: number[] = [];
let report = optimizePanel({
  criterion: { id: "helpful", type: "llm", scale: [1, 10], threshold: 6 },
  judges,
  n: N,
  verdicts,
  costs,
});
for (let r = 0; r < reps; r++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  report = optimizePanel({
    criterion: { id: "helpful", type: "llm", scale: [1, 10], threshold: 6 },
    judges,
    n: N,
    verdicts,
    costs,
  });
  times.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
cpu.sort((a, b) => a - b);
const cpuMedian = cpu[Math.floor(cpu.length / 2)];
const [load1] = os.loadavg();
const figures = {
  judges: J,
  n: N,
  verdicts: V,
  configurations: report.configs.length,
  frontier: report.frontier.length,
  recommendation: report.recommendation,
  median_ms: Math.round(median),
  /** CPU time of this process: what the work costs whatever else the machine runs */
  cpu_median_ms: Math.round(cpuMedian),
  load_average_1m: Math.round(load1 * 100) / 100,
  cores: os.cpus().length,
  target_ms: TARGET_MS,
  /** CPU time over the target (wall time over it in wall_ratio_to_target) */
  ratio_to_target: Math.round((cpuMedian / TARGET_MS) * 100) / 100,
  wall_ratio_to_target: Math.round((median / TARGET_MS) * 100) / 100,
};
if (args.includes("--json")) console.log(JSON.stringify(figures));
else {
  console.log(
    `panel optimizer: ${J} judges × N=${N} × ${V} labelled verdicts → ${report.configs.length} configurations, frontier of ${report.frontier.length}`,
  );
  console.log(
    `  whole frontier: median ${median.toFixed(0)} ms wall, ${cpuMedian.toFixed(0)} ms CPU, of ${reps} (target ≤ ${TARGET_MS} ms: CPU ${figures.ratio_to_target}×, wall ${figures.wall_ratio_to_target}× the target; load average ${figures.load_average_1m} on ${figures.cores} cores)`,
  );
  console.log(`  recommendation: ${JSON.stringify(report.recommendation)}`);
}
// the target is the work's: on a machine others keep busy the wall time is theirs too
if (cpuMedian > TARGET_MS) process.exitCode = 1;
