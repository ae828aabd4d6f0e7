import { expect, type Page } from "@playwright/test";
import { SettingsPage } from "./settings-page";

/** Page object for /runs: the start form, the estimate and the judge settings modal. */
export class RunsPage {
  constructor(readonly page: Page) {}

  async goto() {
    await this.page.goto("/runs");
    await expect(this.page.getByTestId("start-run-form")).toBeVisible();
  }

  modal() {
    return this.page.getByTestId("settings-modal");
  }

  async openSettings(): Promise<SettingsPage> {
    await this.page.getByTestId("open-settings-modal").click();
    await expect(this.modal()).toBeVisible();
    return new SettingsPage(this.page, this.modal().getByTestId("settings-form"));
  }

  modalCalls() {
    return this.modal().getByTestId("estimate-calls");
  }

  formCalls() {
    return this.page.getByTestId("start-run-form").getByTestId("estimate-calls");
  }

  async chooseSuite(name: RegExp) {
    const select = this.page.locator("#suiteDir");
    const value = await select.locator("option", { hasText: name }).first().getAttribute("value");
    await select.selectOption(value ?? "");
  }

  async start() {
    await this.page.getByTestId("start-run").click();
    // the run page of a live run loads its own chunks: slow on a loaded machine
    await expect(this.page).toHaveURL(/\/runs\/run_/, { timeout: 15_000 });
  }
}

/** Page object for one run's page: its triage controls, verdict cells, failures and samples. */
export class RunPage {
  constructor(readonly page: Page) {}

  async goto(runId: string, search = "") {
    await this.page.goto(`/runs/${runId}${search}`);
    await expect(this.page.getByTestId("run-progress")).toBeVisible();
  }

  status(s: string) {
    return this.page.getByTestId(`triage-status-${s}`);
  }

  /** Presses a status toggle from the keyboard (focus, then Enter), as a keyboard user would. */
  async filterByKeyboard(s: string) {
    await this.status(s).focus();
    await this.page.keyboard.press("Enter");
    await expect(this.status(s)).toHaveAttribute("aria-pressed", "true");
  }

  cell(caseId: string, criterionId: string) {
    return this.page.getByTestId(`cell-${caseId}-${criterionId}`);
  }

  runStatus() {
    return this.page.getByTestId("run-status").first();
  }
}
