import { expect, type Page } from "@playwright/test";

/** Page object for a memory study (/memory/[collection]) and its annotation page. */
export class StudyPage {
  constructor(readonly page: Page) {}

  rows() {
    return this.page.getByTestId("experiment-row");
  }

  /** The row of a configuration, by (part of) its label. */
  row(label: string) {
    return this.rows().filter({ hasText: label });
  }

  async runExperiment(kind: "bm25" | "single" | "dual_strict" | "dual_lenient", model?: string) {
    const before = await this.rows().count();
    await this.page.getByTestId("experiment-kind").selectOption(kind);
    if (model) await this.page.getByTestId("experiment-model").fill(model);
    await this.page.getByTestId("run-experiment").click();
    await expect(this.rows()).toHaveCount(before + 1);
    // newest first
    await expect(this.rows().first()).toContainText(" · done", { timeout: 30_000 });
    return this.rows().first();
  }

  /** The figure over every query (what the hook would inject). */
  precisionOf(row: ReturnType<StudyPage["rows"]>) {
    return row.getByTestId("metric-precision");
  }

  /** The same figure over the queries the judge answered. */
  judgePrecisionOf(row: ReturnType<StudyPage["rows"]>) {
    return row.getByTestId("metric-precision-judge");
  }

  async openAnnotate() {
    await this.page.getByTestId("annotate-link").click();
    await expect(this.page.getByTestId("pool")).toBeVisible();
  }

  poolItems() {
    return this.page.getByTestId("pool-item");
  }

  historyEntries() {
    return this.page.getByTestId("history-entry");
  }

  /** How many label changes the query's history holds (the list shows the newest ones). */
  async historyCount(): Promise<number> {
    const text = (await this.page.getByTestId("history-count").textContent()) ?? "";
    return Number(/^(\d+) change/.exec(text.trim())?.[1] ?? Number.NaN);
  }

  async undo() {
    await this.page.getByTestId("undo-annotation").click();
  }

  /** Clears every label after the confirmation dialog (the history is kept). */
  async startFreshAnnotation() {
    this.page.once("dialog", (d) => d.accept());
    await this.page.getByTestId("fresh-annotation").click();
  }
}
