import { defineConfig } from "@playwright/test";
import { APP_PORT, CANARY_KEY, chromiumArgs, SCRATCH_DIR, SCRIPTED_PORT } from "./e2e/constants";

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${APP_PORT}`,
    launchOptions: { executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium", args: chromiumArgs },
    trace: "retain-on-failure",
  },
  webServer: [
    {
      command: "node dist/scripted-server.mjs",
      url: `http://127.0.0.1:${SCRIPTED_PORT}/__requests`,
      env: { SCRIPTED_PORT: String(SCRIPTED_PORT), SCRIPTED_LATENCY_MS: "150" },
      reuseExistingServer: false,
      timeout: 20_000,
    },
    {
      command: `rm -rf ${SCRATCH_DIR}/main && npx next start --hostname 127.0.0.1 --port ${APP_PORT}`,
      url: `http://127.0.0.1:${APP_PORT}/`,
      env: {
        JURY_DB: `${SCRATCH_DIR}/main/jury.db`,
        JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1`,
        OPENAI_API_KEY: CANARY_KEY,
        NEXT_TELEMETRY_DISABLED: "1",
      },
      reuseExistingServer: false,
      timeout: 60_000,
    },
  ],
});
