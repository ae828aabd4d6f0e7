// Runs the benchmarks in order (bundled into dist/ by scripts/build-cli.mjs), passing this
// script's arguments to each; exits non-zero if any of them fails.
import { spawnSync } from "node:child_process";

const benches = ["dist/bench.mjs", "dist/memory-bench.mjs", "dist/tokenizer-bench.mjs"];

let failed = 0;
for (const file of benches) {
  const r = spawnSync(process.execPath, [file, ...process.argv.slice(2)], { stdio: "inherit" });
  if (r.status !== 0) {
    failed++;
    console.error(`${file} failed (${r.signal ?? `exit ${r.status}`})`);
  }
}
process.exit(failed ? 1 : 0);
