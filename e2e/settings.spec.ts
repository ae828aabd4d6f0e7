import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { listeningAddresses, startApp, stopApp } from "./app-server";
import { SCRATCH_DIR } from "./constants";
import { SettingsPage } from "./pages/settings-page";

test.describe("settings", () => {
  test("invalid input shows a field error and saves nothing", async ({ page }) => {
    const s = new SettingsPage(page);
    await s.goto();
    // whatever is stored now must still be stored after each rejected save
    const savedN = await s.field("judging.samples").inputValue();
    const savedT = await s.field("judging.temperature").inputValue();
    const cases: { path: string; value: string; message: RegExp }[] = [
      { path: "judging.samples", value: "0", message: /at least 1/ },
      { path: "judging.samples", value: "11", message: /at most 10/ },
      { path: "judging.temperature", value: "3", message: /≤ 2/ },
    ];
    for (const c of cases) {
      await s.goto();
      await s.fill(c.path, c.value);
      await s.save();
      await expect(s.error(c.path)).toHaveText(c.message);
      await expect(s.status()).toContainText("Nothing saved");
      await page.reload();
      await expect(s.field("judging.samples")).toHaveValue(savedN);
      await expect(s.field("judging.temperature")).toHaveValue(savedT);
    }

    await s.goto();
    await s.fill("providers.openai.models.0", "");
    await s.save();
    await expect(s.error("providers.openai.models.0")).toHaveText(/cannot be empty/);
    await page.reload();
    await expect(s.field("providers.openai.models.0")).toHaveValue("gpt-5-mini");

    await s.goto();
    await page.getByTestId("endpoints-add").click();
    await s.fill("endpoints.0.name", "ollama");
    await s.fill("endpoints.0.baseUrl", "not a url");
    await s.fill("endpoints.0.models.0", "llama3");
    await s.save();
    await expect(s.error("endpoints.0.baseUrl")).toHaveText(/http\(s\) URL/);
    await page.reload();
    await expect(s.field("endpoints.0.name")).toHaveCount(0);
  });

  test("saved settings survive a server restart; the server binds 127.0.0.1", async ({ page }) => {
    const port = 3191;
    const db = path.resolve(SCRATCH_DIR, "restart", "jury.db");
    fs.rmSync(path.dirname(db), { recursive: true, force: true });
    let app = await startApp({ port, db });
    try {
      expect(listeningAddresses(port)).toEqual(["127.0.0.1"]);
      const s = new SettingsPage(page);
      await page.goto(`http://127.0.0.1:${port}/settings`);
      await s.fill("judging.samples", "5");
      await s.fill("judging.temperature", "0.4");
      await s.field("providers.local.enabled").check();
      await s.field("memoryJudge.enabled").check();
      await s.fill("memoryJudge.candidate_pool_size", "20");
      await s.save();
      await expect(s.status()).toHaveText("Saved.");

      await stopApp(app);
      app = await startApp({ port, db });
      await page.goto(`http://127.0.0.1:${port}/settings`);
      await expect(s.field("judging.samples")).toHaveValue("5");
      await expect(s.field("judging.temperature")).toHaveValue("0.4");
      await expect(s.field("providers.local.enabled")).toBeChecked();
      await expect(s.field("memoryJudge.enabled")).toBeChecked();
      await expect(s.field("memoryJudge.candidate_pool_size")).toHaveValue("20");
    } finally {
      await stopApp(app);
    }
  });
});
