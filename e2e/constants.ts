/**
 * Ports and paths shared by playwright.config.ts and the specs. The ports can be moved with
 * E2E_APP_PORT / E2E_SCRIPTED_PORT so two checkouts can run their e2e suites side by side.
 */
export const APP_PORT = Number(process.env.E2E_APP_PORT) || 3123;
export const SCRIPTED_PORT = Number(process.env.E2E_SCRIPTED_PORT) || 3411;
export const SCRATCH_DIR = "test-results/e2e-scratch";
/** A recognisable fake key: no page, payload or chunk may ever contain it. */
export const CANARY_KEY = "sk-jury-canary-7f3a9c1e5b2d4680";
export const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-quic",
  "--no-first-run",
  "--disable-sync",
];
