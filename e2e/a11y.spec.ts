import path from "node:path";
import { expect, test } from "@playwright/test";
import { type AppProcess, startApp, stopApp } from "./app-server";
import { seriousViolations } from "./axe";
import { SCRATCH_DIR, SCRIPTED_PORT } from "./constants";
import { everyPage } from "./page-list";
import { type Seeded, seedDatabase } from "./seed";

// Its own server and database, seeded with two runs, a review and a study: every page has content.
const PORT = 3196;
const BASE = `http://127.0.0.1:${PORT}`;
const DB = path.resolve(SCRATCH_DIR, "a11y", "jury.db");

test.use({ baseURL: BASE });
test.describe.configure({ mode: "serial" });

let app: AppProcess;
let seeded: Seeded;
test.beforeAll(async () => {
  test.setTimeout(180_000);
  seeded = seedDatabase(DB);
  app = await startApp({
    port: PORT,
    db: DB,
    env: { JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1` },
  });
});
test.afterAll(async () => {
  if (app) await stopApp(app);
});

test("the settings modal, the phone menu and a playground result have no serious or critical violation", async ({
  page,
}) => {
  const found: Record<string, string[]> = {};
  const check = async (name: string) => {
    const v = await seriousViolations(page);
    if (v.length) found[name] = v;
  };
  await page.goto("/runs");
  await page.getByTestId("open-settings-modal").click();
  await expect(page.getByTestId("settings-modal")).toBeVisible();
  await check("runs: settings modal open");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await page.getByTestId("nav-toggle").click();
  await check("home at 390 px: menu open");
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.goto("/criteria/correctness");
  await page.getByLabel("Output to judge").fill("She won the 1903 physics prize.");
  await page.getByTestId("playground-try").click();
  await expect(page.getByTestId("playground-result")).toBeVisible();
  await check("criteria playground: result");
  // a failed try: its errors beside the fields
  await page.getByLabel("N samples per judge (1–10)").fill("0");
  await page.getByTestId("playground-try").click();
  await expect(page.getByTestId("error-n")).toBeVisible();
  await check("criteria playground: field error");
  expect(found).toEqual({});
});

// last: it lists every page's violations (the test above would be skipped after a failure)
test("axe finds no serious or critical violation on any page", async ({ page }) => {
  // 16 pages, each loaded and scanned (2 to 5 s apiece on a loaded 2-core machine): past the 60 s default
  test.setTimeout(240_000);
  const found: Record<string, string[]> = {};
  for (const p of everyPage(seeded)) {
    await page.goto(p.url);
    await page.waitForLoadState("networkidle");
    const v = await seriousViolations(page);
    if (v.length) found[`${p.name} ${p.url}`] = v;
  }
  // the page, then each rule with the elements that break it
  expect(found).toEqual({});
});
