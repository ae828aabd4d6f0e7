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

/** within the window's width (x), as laid out now */
async function inWindow(l: Locator): Promise<boolean> {
  const r = await l.boundingBox({ timeout: 5_000 }).catch(() => null);
  return r !== null && r.width > 0 && r.x >= -0.5 && r.x + r.width <= PHONE.width + 0.5;
}

/**
 * What is wrong with one page at 390 px, as readable strings: the page scrolls sideways, a key cell
 * is out of view (its box not scrolled), a sticky key cell leaves the view when its box is scrolled
 * to the far right, axe's serious violations.
 */
class PhoneCheck {
  problems: string[] = [];
  constructor(private page: Page) {}
  async pageFits() {
    const { scrollWidth, innerWidth } = await this.page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
    }));
    if (scrollWidth > innerWidth)
      this.problems.push(`page ${scrollWidth} px wide: ${(await overflowingElements(this.page)).join("; ")}`);
  }
  async inView(what: string, l: Locator) {
    if (!(await inWindow(l))) this.problems.push(`${what} out of view`);
  }
  async headersInView(table: Locator, names: string[]) {
    for (const name of names)
      await this.inView(`header "${name}"`, table.getByRole("columnheader", { name, exact: true }).first());
  }
  /** scrolled to its right end, the box still shows its key (first) column */
  async stickyAfterScroll(box: Locator, key: Locator, what: string) {
    const sizes = await box.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    if (sizes.scroll <= sizes.client) return; // nothing to scroll: the whole table is in view
    await box.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await expect.poll(() => box.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    if (!(await inWindow(key))) this.problems.push(`${what} scrolls out of view with its table`);
    await box.evaluate((el) => el.scrollTo({ left: 0 }));
  }
  async axe() {
    for (const v of await seriousViolations(this.page)) this.problems.push(`axe: ${v}`);
  }
}

/** judge → its swatch's colour, over every spread legend of the page (one colour each, or a list) */
async function legendColors(page: Page): Promise<Record<string, string>> {
  const items = await page
    .getByTestId("spread-legend-item")
    .evaluateAll((els) =>
      els.map((el) => [
        el.getAttribute("data-key") ?? "",
        el.querySelector("[data-color]")?.getAttribute("data-color") ?? "",
      ]),
    );
  const by: Record<string, Set<string>> = {};
  for (const [k, color] of items) {
    by[k] = by[k] ?? new Set();
    by[k].add(color);
  }
  return Object.fromEntries(Object.entries(by).map(([k, v]) => [k, [...v].join(" | ")]));
}

test("the runs pages with a 5-case × 6-criterion run of three judges at 390 px: no sideways scroll, key columns in view, judge names whole, axe clean", async ({
  page,
}) => {
  test.setTimeout(300_000); // four pages, each laid out and checked by axe, on a shared machine
  const problems: Record<string, string[]> = {};

  // runs list: run, status, coverage and failures in view; the run's name stays as the table scrolls
  await page.goto("/runs");
  let c = new PhoneCheck(page);
  await expect(page.getByTestId("runs-table")).toBeVisible();
  await c.pageFits();
  await c.headersInView(page.getByTestId("runs-table"), ["Run", "Status", "Coverage", "Failed"]);
  const row = page.getByTestId(`run-row-${seeded.runs[1]}`);
  for (const id of ["run-status", "run-coverage-pct", "run-failed"]) await c.inView(id, row.getByTestId(id));
  await c.stickyAfterScroll(
    page.getByRole("region", { name: "Runs" }),
    row.getByRole("link"),
    "the run's id",
  );
  // the run form's estimate: cost and time in view
  const estimate = page.locator('[data-testid="estimate"]:visible');
  await expect(estimate).toBeVisible();
  await c.headersInView(estimate, ["N", "Est. cost", "Est. time"]);
  await c.axe();
  problems.runs = c.problems;

  // run page: the case, its first verdict and coverage in view; the case stays as the table scrolls
  await page.goto(`/runs/${seeded.runs[1]}`);
  c = new PhoneCheck(page);
  const table = page.getByTestId("results-table");
  await expect(table).toBeVisible();
  await c.pageFits();
  const first = page.getByTestId(`case-row-${seeded.firstCase}`);
  await c.inView("the case", first.getByRole("rowheader"));
  await c.headersInView(table, ["correctness"]);
  await c.inView("the first verdict", first.getByTestId(`cell-${seeded.firstCase}-correctness`));
  await c.inView("its coverage", first.getByTestId("cell-coverage").first());
  await c.stickyAfterScroll(
    page.getByRole("region", { name: "Verdicts" }),
    first.getByRole("rowheader"),
    "the case",
  );
  // the panel's table: no judge name broken a character per line (at most two lines each)
  const names = page.getByTestId("panel-stats").getByTestId("judge-name");
  await expect(names).toHaveCount(4 * seeded.judges.length);
  const lines = await names.evaluateAll((els) =>
    els.map((el) => ({
      name: el.textContent,
      lines: Math.round(
        el.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(el).lineHeight),
      ),
    })),
  );
  for (const l of lines.filter((x) => x.lines > 2))
    c.problems.push(`judge name ${l.name} on ${l.lines} lines`);
  // the run's score spreads: a chart per LLM criterion, within the window
  await expect(page.getByTestId("score-spread")).toHaveCount(4);
  // one colour per judge on the whole page, three judges three colours, the panel apart
  const seen = await legendColors(page);
  expect(Object.keys(seen).sort()).toEqual([...seeded.judges, "panel"].sort());
  expect(new Set(Object.values(seen)).size).toBe(seeded.judges.length + 1);
  for (const v of Object.values(seen)) expect(v).not.toContain("|");
  await c.inView("the first score spread", page.getByTestId("score-spread").first());
  // each chart draws a box per judge and the panel's, and a dot per case answered
  const firstChart = page.getByTestId("score-spread").first();
  await expect(firstChart.locator("[data-box]")).toHaveCount(seeded.judges.length + 1);
  await expect(firstChart.locator(".recharts-scatter-symbol")).toHaveCount(5 * (seeded.judges.length + 1));
  const runColors = seen;
  await c.axe();
  problems.run = c.problems;

  // compare: case · criterion, verdict and what each side rests on in view; the cell's name stays
  await page.goto(`/runs/compare?a=${seeded.runs[0]}&b=${seeded.runs[1]}`);
  c = new PhoneCheck(page);
  const compare = page.getByTestId("compare-table");
  await expect(compare).toBeVisible();
  await c.pageFits();
  await c.headersInView(compare, ["Case · criterion", "Verdict", "Answered A / B"]);
  const cell = compare.locator("tbody tr").first().getByRole("rowheader");
  await c.inView("the first cell's name", cell);
  await c.stickyAfterScroll(page.getByRole("region", { name: "Comparison" }), cell, "the cell's name");
  // A's and B's spreads, criterion by criterion; each judge in the colour it has on the run page
  await expect(page.getByTestId("compare-spreads").getByTestId("score-spread")).toHaveCount(8);
  expect(await legendColors(page)).toEqual(runColors);
  await c.axe();
  problems.compare = c.problems;

  // settings: the price table's Output column in view
  await page.goto("/settings");
  c = new PhoneCheck(page);
  const prices = page.getByRole("region", { name: "Prices" });
  await expect(prices).toBeVisible();
  await c.pageFits();
  await c.headersInView(prices, ["Judge (provider:model)", "Input", "Output"]);
  await c.inView(
    "the first output price",
    prices.getByRole("spinbutton", { name: /^Output price of/ }).first(),
  );
  await c.axe();
  problems.settings = c.problems;

  expect(problems).toEqual({ runs: [], run: [], compare: [], settings: [] });
});

// last: it lists every page that is too wide (the tests above would be skipped after a failure)
test("every page at 390×844 is no wider than the window", async ({ page }) => {
  test.setTimeout(180_000); // sixteen pages with a three-judge run's data, on a shared machine
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
