// Runs the benchmarks in order (bundled into dist/ by scripts/build-cli.mjs), passing this
// script's arguments to each; exits non-zero if any of them fails. With --json, each bench prints
// its figures as JSON and this script prints them as one object ({ judge, memory, tokenizer, agreement,
// cost, panel, store }), so
// two commits' figures can be compared; progress goes to stderr.
import { spawnSync } from "node:child_process";

const benches = [
  ["judge", "dist/bench.mjs"],
  ["memory", "dist/memory-bench.mjs"],
  ["tokenizer", "dist/tokenizer-bench.mjs"],
  ["agreement", "dist/agreement-bench.mjs"],
  ["cost", "dist/cost-bench.mjs"],
  ["panel", "dist/panel-bench.mjs"],
  ["store", "dist/store-bench.mjs"],
];
const args = process.argv.slice(2);
const json = args.includes("--json");

let failed = 0;
const figures = {};
for (const [name, file] of benches) {
  const r = spawnSync(process.execPath, [file, ...args], {
    stdio: json ? ["inherit", "pipe", "inherit"] : "inherit",
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) {
    failed++;
    console.error(`${file} failed (${r.signal ?? `exit ${r.status}`})`);
    continue;
  }
  if (json) {
    try {
      figures[name] = JSON.parse(r.stdout);
    } catch {
      failed++;
      console.error(`${file} --json printed no JSON object:\n${r.stdout.slice(0, 500)}`);
    }
  }
}
if (json) console.log(JSON.stringify({ at: new Date().toISOString(), args, ...figures }, null, 2));
process.exit(failed ? 1 : 0);
