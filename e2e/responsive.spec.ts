import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { type AppProcess, startApp, stopApp } from "./app-server";
import { seriousViolations } from "./axe";
import { APP_PORT, SCRATCH_DIR, SCRIPTED_PORT } from "./constants";
import { everyPage, overflowingElements } from "./page-list";
import { type Seeded, seedDatabase } from "./seed";

// Its own server and database, seeded with two runs, a review and a study: every page has content.
// beside the suite's own server, so two checkouts with their own E2E_APP_PORT do not collide
const PORT = APP_PORT + 5;
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

test.describe("the memory study at 390 px, after two experiments", () => {
  test.beforeAll(() => {
    // the example study holds a BM25 run (seedDatabase's); a judge run makes it two, as a user's would
    const r = spawnSync(
      "node",
      [
        "bin/jury.cjs",
        "memory",
        "experiment",
        "--collection",
        seeded.collection,
        "--kind",
        "single",
        "--model",
        "local:llama3.1:8b",
      ],
      {
        encoding: "utf8",
        timeout: 120_000,
        env: { ...process.env, JURY_DB: DB, JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1` },
      },
    );
    if (r.status !== 0)
      throw new Error(`jury memory experiment exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  });

  test("no sideways scroll: the results table scrolls in its box with the configuration column in view, the paired selects fit, axe is clean", async ({
    page,
  }) => {
    await page.goto(`/memory/${seeded.collection}`);
    const rows = page.getByTestId("experiment-row");
    await expect(rows).toHaveCount(2);
    const width = () =>
      page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
      }));
    expect(await width()).toEqual({ scrollWidth: PHONE.width, innerWidth: PHONE.width });
    expect(await overflowingElements(page)).toEqual([]);

    // the table is wider than the phone and scrolls inside its own box…
    const box = page.getByRole("region", { name: "Configurations" });
    const sizes = await box.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(sizes.scroll).toBeGreaterThan(sizes.client);
    // …with each configuration's name and its promote button in view at either end of it
    await box.scrollIntoViewIfNeeded();
    const within = async (l: ReturnType<typeof page.getByTestId>) => {
      const r = await l.boundingBox();
      return r !== null && r.x >= 0 && r.x + r.width <= PHONE.width;
    };
    const keyColumnInView = async () => {
      for (const row of await rows.all()) {
        expect(await within(row.locator("td").first())).toBe(true);
        expect(await within(row.getByTestId("promote-button"))).toBe(true);
      }
    };
    await keyColumnInView();
    expect(await within(rows.last().getByTestId("cost-per-month"))).toBe(false);
    await box.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await expect.poll(() => within(rows.last().getByTestId("cost-per-month"))).toBe(true);
    await keyColumnInView();

    // the paired comparison: two different configurations, each select within the window
    const a = page.getByTestId("paired-a");
    const b = page.getByTestId("paired-b");
    expect(await a.inputValue()).not.toBe(await b.inputValue());
    for (const select of [a, b]) {
      const r = await select.boundingBox();
      expect(r && r.x >= 0 && r.x + r.width <= PHONE.width).toBe(true);
    }
    await expect(page.getByTestId("paired-table")).toBeVisible();
    expect(await width()).toEqual({ scrollWidth: PHONE.width, innerWidth: PHONE.width });

    // a promotion's evidence, opened in the narrow sticky column, keeps the page in the window
    const notBest = page.locator('[data-testid="experiment-row"]:not([data-best])').first();
    await notBest.getByTestId("promote-button").click();
    const confirm = notBest.getByTestId("promote-confirm");
    await expect(confirm.getByTestId("promote-figures")).toContainText(/precision .* n=20/);
    expect(await width()).toEqual({ scrollWidth: PHONE.width, innerWidth: PHONE.width });
    expect(await seriousViolations(page)).toEqual([]);
    await confirm.getByTestId("promote-confirm-no").click();
    await expect(confirm).toHaveCount(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});

test.describe("the runs pages with a 5-case × 6-criterion run of three judges, at 390 px", () => {
  const inWindow = async (l: Locator) => {
    const r = await l.boundingBox({ timeout: 5_000 }).catch(() => null);
    return r !== null && r.width > 0 && r.x >= -0.5 && r.x + r.width <= PHONE.width + 0.5;
  };
  /** the header cells named, within the window as the page opens (their box not scrolled) */
  const headersInView = async (table: Locator, names: string[]) => {
    const out: Record<string, boolean> = {};
    for (const name of names)
      out[name] = await inWindow(table.getByRole("columnheader", { name, exact: true }).first());
    return out;
  };
  const allTrue = (names: string[]) => Object.fromEntries(names.map((n) => [n, true]));
  /** scrolled to its right end, the box still shows its key (first) column */
  const stickyAfterScroll = async (box: Locator, key: Locator) => {
    const sizes = await box.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    if (sizes.scroll <= sizes.client) return true; // nothing to scroll: the whole table is in view
    await box.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await expect.poll(() => box.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    const ok = await inWindow(key);
    await box.evaluate((el) => el.scrollTo({ left: 0 }));
    return ok;
  };
  const pageFits = async (page: Page) => {
    const { scrollWidth, innerWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
    }));
    expect(scrollWidth, (await overflowingElements(page)).join("\n")).toBeLessThanOrEqual(innerWidth);
  };

  test("runs list: run, status, coverage and failures in view, the run's name stays as the table scrolls", async ({
    page,
  }) => {
    await page.goto("/runs");
    const table = page.getByTestId("runs-table");
    await expect(table).toBeVisible();
    await pageFits(page);
    const keys = ["Run", "Status", "Coverage", "Failed"];
    expect(await headersInView(table, keys)).toEqual(allTrue(keys));
    const row = page.getByTestId(`run-row-${seeded.runs[1]}`);
    expect(await inWindow(row.getByTestId("run-status"))).toBe(true);
    expect(await inWindow(row.getByTestId("run-coverage-pct"))).toBe(true);
    expect(await inWindow(row.getByTestId("run-failed"))).toBe(true);
    expect(await stickyAfterScroll(page.getByRole("region", { name: "Runs" }), row.getByRole("link"))).toBe(
      true,
    );
    // the estimate of the run form: its cost and time columns in view
    const estimate = page.getByTestId("estimate").first();
    await expect(estimate).toBeVisible();
    expect(await headersInView(estimate, ["N", "Est. cost", "Est. time"])).toEqual(
      allTrue(["N", "Est. cost", "Est. time"]),
    );
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("run page: the case, its first verdicts and their coverage in view; judge names wrap at word boundaries", async ({
    page,
  }) => {
    await page.goto(`/runs/${seeded.runs[1]}`);
    const table = page.getByTestId("results-table");
    await expect(table).toBeVisible();
    await pageFits(page);
    const first = page.getByTestId(`case-row-${seeded.firstCase}`);
    expect(await inWindow(first.getByRole("rowheader"))).toBe(true);
    expect(await inWindow(table.getByRole("columnheader", { name: "correctness" }))).toBe(true);
    expect(await inWindow(first.getByTestId(`cell-${seeded.firstCase}-correctness`))).toBe(true);
    expect(await inWindow(first.getByTestId("cell-coverage").first())).toBe(true);
    expect(
      await stickyAfterScroll(page.getByRole("region", { name: "Verdicts" }), first.getByRole("rowheader")),
    ).toBe(true);
    // the panel's table: no judge name broken a character per line (at most two lines each)
    const names = page.getByTestId("panel-stats").getByTestId("judge-name");
    await expect(names).toHaveCount(4 * seeded.judges.length);
    const lines = await names.evaluateAll((els) =>
      els.map((el) => {
        const lh = Number.parseFloat(getComputedStyle(el).lineHeight);
        return { name: el.textContent, lines: Math.round(el.getBoundingClientRect().height / lh) };
      }),
    );
    expect(lines.filter((l) => l.lines > 2)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("compare: case, verdict and what each side rests on in view; the cell's name stays as the table scrolls", async ({
    page,
  }) => {
    await page.goto(`/runs/compare?a=${seeded.runs[0]}&b=${seeded.runs[1]}`);
    const table = page.getByTestId("compare-table");
    await expect(table).toBeVisible();
    await pageFits(page);
    const keys = ["Case · criterion", "Verdict", "Answered A / B"];
    expect(await headersInView(table, keys)).toEqual(allTrue(keys));
    const firstCell = table.locator("tbody tr").first().getByRole("rowheader");
    expect(await inWindow(firstCell)).toBe(true);
    expect(await stickyAfterScroll(page.getByRole("region", { name: "Comparison" }), firstCell)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("settings: the price table's Output column is in view", async ({ page }) => {
    await page.goto("/settings");
    const prices = page.getByRole("region", { name: "Prices" });
    await expect(prices).toBeVisible();
    await pageFits(page);
    expect(await headersInView(prices, ["Judge (provider:model)", "Input", "Output"])).toEqual(
      allTrue(["Judge (provider:model)", "Input", "Output"]),
    );
    expect(await inWindow(prices.getByRole("spinbutton", { name: /^Output price of/ }).first())).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });
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
