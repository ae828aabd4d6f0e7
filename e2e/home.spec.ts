import { expect, test } from "@playwright/test";

test("home shows counts from the database and what to do first", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("count-runs")).toHaveText("0");
  await expect(page.getByTestId("count-judges")).toHaveText("0"); // none until one is enabled (mock too)
  await expect(page.getByTestId("home-empty")).toContainText("Settings");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runs" }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await page.getByTestId("open-settings-modal").click();
  await expect(page.getByTestId("settings-modal")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("settings-modal")).toBeHidden();
});
