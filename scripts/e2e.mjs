// Runs the Playwright e2e suite in Debian's Chromium, finding or installing it first; then, when
// JURY_TEST_DATABASE_URL names a PostgreSQL server (CI always), the main workflows once more with
// everything stored there (playwright.pg.config.ts). Arguments go to both passes (the second runs
// only the named specs that have a test titled @pg).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";

const chromium = execFileSync("bash", ["scripts/ensure-chromium.sh"], {
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
}).trim();
const env = { ...process.env, CHROMIUM_PATH: chromium, NEXT_TELEMETRY_DISABLED: "1" };
delete env.JURY_DATABASE_URL; // the SQLite pass
const sqlite = spawnSync("npx", ["playwright", "test", ...process.argv.slice(2)], { stdio: "inherit", env });
if (sqlite.status !== 0) process.exit(sqlite.status ?? 1);

const server = process.env.JURY_TEST_DATABASE_URL;
if (!server) {
  console.log("e2e: JURY_TEST_DATABASE_URL is not set: the PostgreSQL pass is skipped");
  process.exit(0);
}
// spec files named on the command line: the PostgreSQL pass runs those that have a test titled @pg
const args = process.argv.slice(2);
const specs = args.filter((a) => !a.startsWith("-"));
const pgSpecs = specs.filter((f) => fs.existsSync(f) && fs.readFileSync(f, "utf8").includes('@pg"'));
if (specs.length > 0 && pgSpecs.length === 0) {
  console.log("e2e: none of these specs has a test titled @pg: the PostgreSQL pass is skipped");
  process.exit(0);
}
const pgArgs = [...args.filter((a) => a.startsWith("-")), ...pgSpecs];
const pgEnv = { ...env, E2E_DATABASE_URL: server };
console.log("e2e: the main workflows on PostgreSQL");
const pg = spawnSync("npx", ["playwright", "test", "-c", "playwright.pg.config.ts", ...pgArgs], {
  stdio: "inherit",
  env: pgEnv,
});
process.exit(pg.status ?? 1);
