import { expect, type Page } from "@playwright/test";

/** Page object for a memory study (/memory/[collection]) and its annotation page. */
export class StudyPage {
  constructor(readonly page: Page) {}

  rows() {
    return this.page.getByTestId("experiment-row");
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

  precisionOf(row: ReturnType<StudyPage["rows"]>) {
    return row.getByTestId("metric-precision");
  }
}
