import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for /settings (and the same form inside the runs page's modal). */
export class SettingsPage {
  constructor(
    readonly page: Page,
    readonly root: Locator = page.getByTestId("settings-form"),
  ) {}

  async goto() {
    await this.page.goto("/settings");
    await expect(this.root).toBeVisible();
  }

  field(path: string) {
    return this.root.locator(`[id="${path}"]`);
  }

  error(path: string) {
    return this.root.getByTestId(`error-${path}`);
  }

  async fill(path: string, value: string) {
    await this.field(path).fill(value);
  }

  /** The input or output price box of the i-th row of the price table. */
  price(i: number, which: "inputPerMTok" | "outputPerMTok") {
    return this.field(`prices.${i}.${which}`);
  }

  /** The error shown under a price, by the judge it prices. */
  priceError(judge: string, which: "inputPerMTok" | "outputPerMTok") {
    return this.error(`prices.${judge}.${which}`);
  }

  async save() {
    await this.root.getByTestId("settings-save").click();
  }

  status() {
    return this.root.getByTestId("settings-status");
  }
}
