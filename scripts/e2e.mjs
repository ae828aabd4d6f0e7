// Runs the Playwright e2e suite in Debian's Chromium, finding or installing it first.
import { execFileSync, spawnSync } from "node:child_process";

const chromium = execFileSync("bash", ["scripts/ensure-chromium.sh"], {
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
}).trim();
const r = spawnSync("npx", ["playwright", "test", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, CHROMIUM_PATH: chromium, NEXT_TELEMETRY_DISABLED: "1" },
});
process.exit(r.status ?? 1);
