import path from "node:path";
import { expect, test } from "@playwright/test";
import { type AppProcess, startApp, stopApp } from "./app-server";
import { SCRATCH_DIR, SCRIPTED_PORT } from "./constants";
import { everyPage, overflowingElements } from "./page-list";
import { type Seeded, seedDatabase } from "./seed";

// Its own server and database, seeded with two runs, a review and a study: every page has content.
const PORT = 3195;
const BASE = `http://127.0.0.1:${PORT}`;
const DB = path.resolve(SCRATCH_DIR, "responsive", "jury.db");
const PHONE = { width: 390, height: 844 };

test.use({ baseURL: BASE, viewport: PHONE });
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

test("on a phone the navigation folds into a menu that opens, leads and closes", async ({ page }) => {
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Main" });
  const toggle = nav.getByRole("button", { name: "Menu" });
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(nav.getByRole("link", { name: "Runs" })).toBeHidden();
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  for (const name of ["Runs", "Memory study", "Reviews", "Agreement", "Criteria", "Settings"])
    await expect(nav.getByRole("link", { name })).toBeInViewport();
  await nav.getByRole("link", { name: "Criteria" }).click();
  await expect(page).toHaveURL(/\/criteria$/);
  await expect(nav.getByRole("link", { name: "Runs" })).toBeHidden();
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  // at desktop width the links are a row, and there is no menu button
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(toggle).toBeHidden();
  await expect(nav.getByRole("link", { name: "Runs" })).toBeVisible();
});

test("the settings modal fits a phone, scrolls, and its save button is reachable and works", async ({
  page,
}) => {
  await page.goto("/runs");
  await page.getByTestId("open-settings-modal").click();
  const modal = page.getByTestId("settings-modal");
  await expect(modal).toBeVisible();
  const box = await modal.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(PHONE.height);
  // the body scrolls inside the dialog, and nothing in it is wider than the dialog
  const body = page.getByTestId("settings-modal-body");
  const sizes = await body.evaluate((el) => ({
    scrollHeight: el.scrollHeight,
    clientHeight: el.clientHeight,
    scrollWidth: el.scrollWidth,
    clientWidth: el.clientWidth,
  }));
  expect(sizes.scrollWidth).toBeLessThanOrEqual(sizes.clientWidth);
  const save = modal.getByTestId("settings-save");
  // the save bar sticks to the bottom of the scrolling body: visible without scrolling, and after it
  await expect(save).toBeInViewport();
  if (sizes.scrollHeight > sizes.clientHeight) {
    await body.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect(save).toBeInViewport();
  }
  await modal.locator('[id="judging.samples"]').fill("2");
  await save.click();
  await expect(modal.getByTestId("settings-status")).toHaveText("Saved.");
  await page.keyboard.press("Escape");
  await expect(modal).toBeHidden();
});

// last: it lists every page that is too wide (the tests above would be skipped after a failure)
test("every page at 390×844 is no wider than the window", async ({ page }) => {
  const wide: Record<string, { scrollWidth: number; innerWidth: number; elements: string[] }> = {};
  for (const p of everyPage(seeded)) {
    const res = await page.goto(p.url);
    expect(res?.status(), p.url).toBe(p.name === "not found" ? 404 : 200);
    await page.waitForLoadState("networkidle");
    const { scrollWidth, innerWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
    }));
    expect(innerWidth).toBe(PHONE.width);
    if (scrollWidth > innerWidth)
      wide[`${p.name} ${p.url}`] = { scrollWidth, innerWidth, elements: await overflowingElements(page) };
  }
  // the page, how wide it is, and the outermost elements that stick out
  expect(wide).toEqual({});
});
