import { defineConfig } from "@playwright/test";
import { APP_PORT, CANARY_KEY, SCRATCH_DIR, SCRIPTED_PORT } from "./e2e/constants";
import { storeEnv } from "./e2e/store";
import base from "./playwright.config";

/**
 * The main workflows once more with everything stored on PostgreSQL (tests titled "@pg": start a run,
 * triage and retry, annotate the study and run experiments, import agreement, promote). scripts/e2e.mjs
 * runs it when JURY_TEST_DATABASE_URL names a server (CI always), with E2E_DATABASE_URL set to it; the
 * main server's store is a fresh database there (e2e/store.ts names it after its SQLite path).
 */
const main = storeEnv(`${SCRATCH_DIR}/main/jury.db`);
if (!main.JURY_DATABASE_URL)
  throw new Error("playwright.pg.config.ts: set E2E_DATABASE_URL to a PostgreSQL server");
// the specs' own `jury` calls (they inherit this process's environment) use the main server's database
process.env.JURY_DATABASE_URL = main.JURY_DATABASE_URL;

export default defineConfig({
  ...base,
  grep: /@pg/,
  webServer: [
    {
      command: "node dist/scripted-server.mjs",
      url: `http://127.0.0.1:${SCRIPTED_PORT}/__requests`,
      env: { SCRIPTED_PORT: String(SCRIPTED_PORT), SCRIPTED_LATENCY_MS: "150" },
      reuseExistingServer: false,
      timeout: 20_000,
    },
    {
      command: `rm -rf ${SCRATCH_DIR}/main && mkdir -p ${SCRATCH_DIR}/main && node scripts/pg-reset.mjs "${main.JURY_DATABASE_URL}" && npx next start --hostname 127.0.0.1 --port ${APP_PORT}`,
      url: `http://127.0.0.1:${APP_PORT}/`,
      env: {
        ...main,
        JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1`,
        OPENAI_API_KEY: CANARY_KEY,
        NEXT_TELEMETRY_DISABLED: "1",
      },
      reuseExistingServer: false,
      timeout: 60_000,
    },
  ],
});
