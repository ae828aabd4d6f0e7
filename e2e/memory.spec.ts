import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { SettingsPage } from "./pages/settings-page";
import { StudyPage } from "./pages/study-page";

test("the example study: example labels, BM25 and a judge with their path mix, a relabel with its history and undo, a fresh annotation @pg", async ({
  page,
}) => {
  await page.goto("/memory");
  await page.getByTestId("import-example-study").click();
  await expect(page).toHaveURL(/\/memory\/shop-api$/);
  await expect(page.getByTestId("annotation-progress")).toContainText("54 memories · 20 queries");
  await expect(page.getByTestId("labels-info")).toContainText("example labels");

  const study = new StudyPage(page);
  const bm25 = await study.runExperiment("bm25");
  await expect(bm25).toContainText("BM25 · auto · top 3 · depth 100");
  await expect(bm25.getByTestId("path-mix")).toContainText("BM25 only on 20 queries");
  await expect(study.precisionOf(bm25)).toHaveText(/^\d+% \[\d+%–\d+%\] n=20$/);
  await expect(bm25.getByTestId("metric-recall")).toHaveText(/^\d+% \[\d+%–\d+%\] n=\d+$/);
  await expect(bm25.getByTestId("evidence")).toContainText("precision rests on");
  await expect(bm25.getByTestId("cost-per-query")).toHaveText("$0 (no calls)");
  const before = (await study.precisionOf(bm25).textContent()) ?? "";

  // relabel the first pooled candidate of the first query with the keyboard: a history entry by a person
  await study.openAnnotate();
  const first = study.poolItems().first();
  const state = (await first.getAttribute("data-state")) ?? "";
  const flipped = state === "relevant" ? "not-relevant" : "relevant";
  await expect(first.getByTestId("label-source")).toContainText("example label");
  const entries = await study.historyCount();
  await page.keyboard.press(state === "relevant" ? "n" : "y");
  await expect(first).toHaveAttribute("data-state", flipped);
  await expect(page.getByTestId("history-count")).toContainText(`${entries + 1} changes`);
  await expect(study.historyEntries().first()).toHaveAttribute("data-source", "human");
  await expect(first.getByTestId("label-source")).toContainText("a person");
  await page.reload();
  await expect(study.poolItems().first()).toHaveAttribute("data-state", flipped);

  // the study's figures follow the new ground truth
  await page.goto("/memory/shop-api");
  await expect(study.precisionOf(study.row("BM25 · auto"))).not.toHaveText(before);

  // undo restores the earlier label, with its source, and is itself in the history
  await study.openAnnotate();
  await expect(study.poolItems().first()).toHaveAttribute("data-state", flipped);
  await study.undo();
  await expect(study.poolItems().first()).toHaveAttribute("data-state", state);
  await expect(page.getByTestId("history-count")).toContainText(`${entries + 2} changes`);
  await expect(study.historyEntries().first()).toHaveAttribute("data-source", "undo");
  await expect(study.poolItems().first().getByTestId("label-source")).toContainText("example label");
  await page.reload();
  await expect(study.poolItems().first()).toHaveAttribute("data-state", state);
  await page.goto("/memory/shop-api");
  await expect(study.precisionOf(study.row("BM25 · auto"))).toHaveText(before);

  // a judge configuration, run from the UI against the scripted OpenAI-compatible server: its
  // provider must be enabled first (no provider is by default; a judge that cannot be called is refused)
  const settings = new SettingsPage(page);
  await settings.goto();
  await settings.field("providers.local.enabled").check();
  await settings.save();
  await expect(settings.status()).toHaveText("Saved.");
  await page.goto("/memory/shop-api");
  const judged = await study.runExperiment("single", "local:judge-model");
  await expect(judged).toContainText("single judge · auto · top 3 · pool 15");
  await expect(judged.getByTestId("path-mix")).toContainText(/judge answered \d+ of \d+ queries asked/);
  await expect(study.precisionOf(judged)).toHaveText(/^(\d+% \[\d+%–\d+%\] n=\d+|— n=0)$/);
  await expect(study.judgePrecisionOf(judged)).toHaveText(/^(\d+% \[\d+%–\d+%\] n=\d+|— n=0)$/);
  await expect(judged.getByTestId("cost-per-query")).toHaveText(/^(unpriced|\$\d+\.\d{5})$/);
  await expect(page.getByTestId("best-verdict")).toHaveText(/^(best precision: |not enough evidence: )/);
  await expect(page.getByTestId("tradeoff-latencyMs")).toBeVisible();

  // the study's exports, as a person downloads them from the header links
  const download = async (name: string) => {
    const [file] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name }).click(),
    ]);
    return { name: file.suggestedFilename(), text: fs.readFileSync((await file.path()) as string, "utf8") };
  };
  const labels = await download("Export labels (CSV)");
  expect(labels.name).toBe("shop-api-labels.csv");
  const labelLines = labels.text.trimEnd().split("\r\n");
  expect(labelLines[0]).toBe(
    "collection,query_id,query_text,memory_id,relevant,relevance,source,author,updated_at",
  );
  expect(labelLines.length).toBeGreaterThan(20); // the example labels, the relabelled one included
  expect(labelLines.slice(1).every((l) => l.startsWith("shop-api,"))).toBe(true);
  const metrics = await download("Export metrics (CSV)");
  expect(metrics.name).toBe("shop-api-metrics.csv");
  // a header and one row per configuration (BM25 and the judge)
  expect(metrics.text.trimEnd().split("\r\n")).toHaveLength(3);
  const qrels = await download("Export qrels");
  expect(qrels.text.trimEnd().split("\n")).toHaveLength(labelLines.length - 1);

  // a fresh annotation of the same queries: no label left, every query needs annotation, no figure
  await study.startFreshAnnotation();
  await expect(page.getByTestId("needs-annotation")).toHaveText("20 of 20 queries need annotation");
  const row = study.row("BM25 · auto");
  await expect(study.precisionOf(row)).toHaveText("— n=0");
  await expect(row.getByTestId("metric-precision-why")).toHaveText(
    "no finished query is labelled (20 need annotation)",
  );
  await expect(page.getByTestId("labels-info")).toContainText("labels set by a person in Jury");
  // the history is kept, and the fresh start is one entry for the query, not one per label it cleared
  await study.openAnnotate();
  await expect(page.getByTestId("query-needs-annotation")).toBeVisible();
  const fresh = study.historyEntries().first();
  await expect(fresh).toHaveAttribute("data-source", "fresh");
  await expect(fresh).toContainText(
    // by whom: the one-person dashboard's "local"
    /fresh annotation started: 54 labels cleared \(\d+ relevant, \d+ not\) · by local/,
  );
  await expect(study.historyEntries().filter({ hasText: "→ no label" })).toHaveCount(0);
  await expect(study.poolItems().first().getByTestId("label-source")).toContainText("no label yet");

  // y and n mark the highlighted memory and move to the next, as the hint says; j then moves on again
  const hint = page.getByTestId("annotation-hint");
  await expect(hint).toContainText("each marks the highlighted memory and moves to the next");
  const items = study.poolItems();
  await expect(items.nth(0)).toHaveAttribute("aria-current", "true");
  await page.keyboard.press("y");
  await expect(items.nth(0)).toHaveAttribute("data-state", "relevant");
  await expect(items.nth(1)).toHaveAttribute("aria-current", "true");
  const total = await items.count();
  await expect(page.getByTestId("annotation-status")).toHaveText(
    new RegExp(`^Marked ".+" relevant; now on memory 2 of ${total}\\.$`),
  );
  await page.keyboard.press("j");
  await expect(items.nth(2)).toHaveAttribute("aria-current", "true");
  await expect(items.nth(1)).toHaveAttribute("data-state", "unmarked");
  await page.keyboard.press("n");
  await expect(items.nth(2)).toHaveAttribute("data-state", "not-relevant");
  await expect(items.nth(3)).toHaveAttribute("aria-current", "true");
  // the two labels are a person's, above the fresh start
  await expect(study.historyEntries().nth(2)).toHaveAttribute("data-source", "fresh");
  // undo walks back one label at a time
  await page.keyboard.press("u");
  await expect(items.nth(2)).toHaveAttribute("data-state", "unmarked");
});
