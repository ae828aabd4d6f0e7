import path from "node:path";
import { expect, test } from "@playwright/test";
import { startApp, stopApp } from "./app-server";
import { SCRATCH_DIR, SCRIPTED_PORT } from "./constants";
import { seedDatabase } from "./seed";

test("home on an empty database: counts, and each empty section says what to do next", async ({ page }) => {
  // the shared server: specs that store things into it run after this one (files run in order)
  await page.goto("/");
  await expect(page.getByTestId("count-runs")).toHaveText("0");
  const enabled = (await page.getByTestId("judges-enabled").textContent()) ?? "";
  const judges = enabled.replace("Judges enabled: ", "").trim();
  await expect(page.getByTestId("count-judges")).toHaveText(
    String(judges === "none" ? 0 : judges.split(", ").length),
  );
  await expect(page.getByTestId("home-empty")).toContainText("Settings");
  await expect(page.getByTestId("recent-runs-empty")).toContainText("No run yet");
  await expect(page.getByTestId("recent-runs-empty").getByRole("link", { name: "Runs" })).toHaveAttribute(
    "href",
    "/runs",
  );
  await expect(page.getByTestId("recent-experiments-empty")).toContainText("import the example study");
  await expect(page.getByTestId("recent-reviews-empty")).toContainText("npx jury review");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runs" }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await page.getByTestId("open-settings-modal").click();
  await expect(page.getByTestId("settings-modal")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("settings-modal")).toBeHidden();
});

test("home lists the recent runs, experiments and reviews with their status, newest first, each a link", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const port = 3199;
  const db = path.resolve(SCRATCH_DIR, "home", "jury.db");
  const seeded = seedDatabase(db);
  const app = await startApp({
    port,
    db,
    env: { JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1` },
  });
  try {
    await page.goto(`http://127.0.0.1:${port}/`);
    await expect(page.getByTestId("home-empty")).toHaveCount(0);
    await expect(page.getByTestId("count-runs")).toHaveText("2");
    const runs = page.getByTestId("recent-run");
    await expect(runs).toHaveCount(2);
    // newest first: the second run (N = 2) is on top
    await expect(runs.first().getByRole("link")).toHaveAttribute("href", `/runs/${seeded.runs[1]}`);
    await expect(runs.first()).toContainText("3 judges × N=2");
    await expect(runs.first()).toContainText(/(\d+) of \1 tasks/);
    await expect(runs.first().getByTestId("run-status")).toHaveText(/^done/);
    await expect(runs.nth(1)).toContainText("3 judges × N=1");

    const experiment = page.getByTestId("recent-experiment");
    await expect(experiment).toHaveCount(1);
    await expect(experiment).toContainText("shop-api");
    await expect(experiment.getByTestId("run-status")).toHaveText("done");

    const review = page.getByTestId("recent-review");
    await expect(review).toHaveCount(1);
    await expect(review).toContainText(/seeded review.*(pass|partial|fail)/);
    await review.getByRole("link", { name: "seeded review" }).click();
    await expect(page).toHaveURL(new RegExp(`/reviews/${seeded.review}$`));
  } finally {
    await stopApp(app);
  }
});

test("an unknown URL and a malformed id get the app's own 404 page, never a 500", async ({ page }) => {
  for (const url of ["/no-such-page", "/reviews/%E0%A4%A", "/runs/%E0%A4%A"]) {
    const r = await page.goto(url);
    expect(r?.status(), url).toBe(404);
    await expect(page.getByTestId("not-found"), url).toContainText("Nothing lives at this address");
  }
});
