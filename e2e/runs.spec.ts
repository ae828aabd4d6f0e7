import { expect, test } from "@playwright/test";
import { RunsPage } from "./pages/runs-page";

test("change N in the settings modal, start a run, watch it progress, open its spread chart and a sample's reasoning", async ({
  page,
}) => {
  const runs = new RunsPage(page);
  await runs.goto();
  await runs.chooseSuite(/Question answering|QA/i);

  const settings = await runs.openSettings();
  const before = Number((await runs.modalCalls().textContent())?.replace(/,/g, ""));
  await settings.field("providers.local.enabled").check(); // the scripted server stands in for a local model
  const withLocal = Number((await runs.modalCalls().textContent())?.replace(/,/g, ""));
  expect(withLocal).toBe(before * 2); // two judges instead of one
  await settings.fill("judging.samples", "5");
  await expect(runs.modalCalls()).toHaveText(String((withLocal / 3) * 5));
  await settings.save();
  await expect(settings.status()).toHaveText("Saved.");
  await page.keyboard.press("Escape");

  await expect(page.locator("#n")).toHaveValue("5");
  await expect(runs.formCalls()).toHaveText(String((withLocal / 3) * 5));
  await runs.start();

  // live progress: the count moves, then the run finishes
  const progress = page.getByTestId("progress-count");
  await expect(progress).toContainText(/of \d+ tasks/);
  const total = Number((await progress.textContent())?.match(/of (\d+)/)?.[1]);
  await expect(page.getByTestId("run-status")).toHaveText("running");
  await expect(progress).not.toHaveText(`0 of ${total} tasks`, { timeout: 15_000 });
  await expect(page.getByTestId("run-status")).toHaveText("done", { timeout: 45_000 });
  await expect(progress).toHaveText(`${total} of ${total} tasks`);

  // the verdict table, then one cell: the spread chart and each sample's reasoning
  await expect(page.getByTestId("results-table")).toBeVisible();
  const cell = page.locator('[data-testid^="cell-"][data-testid$="-correctness"]').first();
  await cell.click();
  await expect(page).toHaveURL(/criterion=correctness/);
  await expect(page.getByTestId("spread-chart").locator("svg.recharts-surface")).toBeVisible();
  await expect(page.getByTestId("sample")).toHaveCount(10); // 2 judges × N = 5
  await expect(
    page.getByTestId("sample-reasoning").filter({ hasText: "Scripted judge" }).first(),
  ).toBeVisible();
  await expect(page.getByTestId("panel-stats")).toContainText("local:llama3.1:8b");

  // the runs list shows it
  await page.goto("/runs");
  await expect(page.getByTestId("runs-table")).toContainText("done");
});
