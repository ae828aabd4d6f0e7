import { expect, test } from "@playwright/test";
import { StudyPage } from "./pages/study-page";

test("import the example study, run BM25, annotate by keyboard, run a judge against the scripted server, see precision and recall with intervals", async ({
  page,
}) => {
  await page.goto("/memory");
  await page.getByTestId("import-example-study").click();
  await expect(page).toHaveURL(/\/memory\/shop-api$/);
  await expect(page.getByTestId("annotation-progress")).toContainText("54 memories · 20 queries");

  const study = new StudyPage(page);
  const bm25 = await study.runExperiment("bm25");
  await expect(study.precisionOf(bm25)).toHaveText(/^\d+% \[\d+%–\d+%\] n=20$/);
  await expect(bm25.getByTestId("metric-recall")).toHaveText(/^\d+% \[\d+%–\d+%\] n=\d+$/);
  const before = (await study.precisionOf(bm25).textContent()) ?? "";

  // annotate: flip the first pooled candidate of the first query with the keyboard
  await page.getByTestId("annotate-link").click();
  await expect(page.getByTestId("annotation-progress")).toContainText(/\d+ of 20 queries complete/);
  const first = page.getByTestId("pool-item").first();
  const state = await first.getAttribute("data-state");
  await page.keyboard.press(state === "relevant" ? "n" : "y");
  await expect(first).toHaveAttribute("data-state", state === "relevant" ? "not-relevant" : "relevant");
  await page.keyboard.press("k"); // back to the first item
  await page.reload();
  await expect(page.getByTestId("pool-item").first()).toHaveAttribute(
    "data-state",
    state === "relevant" ? "not-relevant" : "relevant",
  );

  // the study's figures follow the new ground truth
  await page.goto("/memory/shop-api");
  await expect(study.precisionOf(study.rows().first())).not.toHaveText(before);

  // a judge configuration, run from the UI against the scripted OpenAI-compatible server
  const judged = await study.runExperiment("single", "local:judge-model");
  await expect(judged).toContainText("single judge");
  await expect(study.precisionOf(judged)).toHaveText(/^\d+% \[\d+%–\d+%\] n=\d+$/);
  await expect(judged.getByTestId("metric-recall")).toHaveText(/^\d+% \[\d+%–\d+%\] n=\d+$/);
  await expect(page.getByTestId("tradeoff-latencyMs")).toBeVisible();
});
