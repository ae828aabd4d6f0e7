import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type AppProcess, startApp, stopApp } from "./app-server";
import { SCRATCH_DIR } from "./constants";
import { RunsPage } from "./pages/runs-page";
import { SettingsPage } from "./pages/settings-page";

// Its own server: JURY_SUITES_DIR points at a suite whose regex backtracks catastrophically.
const PORT = 3194;
const BASE = `http://127.0.0.1:${PORT}`;
const ROOT = path.resolve(SCRATCH_DIR, "regex");
const EVIL_CASES = 5;

test.use({ baseURL: BASE });

let app: AppProcess;
test.beforeAll(async () => {
  fs.rmSync(ROOT, { recursive: true, force: true });
  const suite = path.join(ROOT, "suites", "catastrophic");
  fs.mkdirSync(path.join(suite, "cases"), { recursive: true });
  fs.writeFileSync(
    path.join(suite, "suite.json"),
    JSON.stringify({
      name: "Catastrophic regex",
      // case-insensitive (the default): V8 has no linear-time fallback for it, so each task runs to the limit
      criteria: [{ id: "contains", params: { pattern: "^(a+)+$", regex: true } }],
    }),
  );
  for (let i = 0; i < EVIL_CASES; i++)
    fs.writeFileSync(
      path.join(suite, "cases", `evil${i}.json`),
      JSON.stringify({
        id: `evil${i}`,
        name: `Evil ${i}`,
        input: { prompt: "p" },
        output: `${"a".repeat(40)}b`,
      }),
    );
  app = await startApp({
    port: PORT,
    db: path.join(ROOT, "jury.db"),
    env: { JURY_SUITES_DIR: path.join(ROOT, "suites") },
  });
});
test.afterAll(async () => {
  if (app) await stopApp(app);
});

test("a catastrophic regex run started from the dashboard: other pages answer within a second, each task stops at the limit", async ({
  page,
  request,
}) => {
  const timed = async (url: string) => {
    const start = Date.now();
    const r = await request.get(url);
    expect(r.status()).toBe(200);
    return Date.now() - start;
  };
  // warm the routes first: what is measured below is the server's responsiveness, not a first render
  await timed("/settings");
  await timed("/runs");

  // no provider is on by default: a run needs one judge named, even for a deterministic-only suite
  const settings = new SettingsPage(page);
  await settings.goto();
  await settings.field("providers.mock.enabled").check();
  await settings.save();
  await expect(settings.status()).toHaveText("Saved.");

  const runs = new RunsPage(page);
  await runs.goto();
  await runs.chooseSuite(/Catastrophic regex/);
  await runs.start();
  await expect(page.getByTestId("run-status")).toHaveText("running");

  // the run takes about EVIL_CASES seconds (one task at a time, each stopped at 1000 ms): meanwhile the
  // server answers other pages at once (before the fix, the regex froze it for minutes)
  const latencies: number[] = [];
  for (let i = 0; i < 6; i++) {
    latencies.push(await timed("/settings"), await timed("/runs"));
    await new Promise((r) => setTimeout(r, 300));
  }
  expect(Math.max(...latencies)).toBeLessThan(1000);

  // every task stopped at the limit is a recorded failure: the run is done, with failures
  await expect(page.getByTestId("run-status")).toHaveText("done with failures", {
    timeout: EVIL_CASES * 1000 + 15_000,
  });
  await page.getByTestId("cell-evil0-contains").click();
  await expect(page.getByTestId("sample")).toHaveCount(1);
  await expect(page.getByTestId("sample")).toContainText(
    "deterministic criterion contains did not finish within 1000 ms",
  );
});
