import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { listeningAddresses, startApp, stopApp } from "./app-server";
import { CANARY_KEY, SCRATCH_DIR } from "./constants";
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

  test("an endpoint shows which key variable it sends, and to which URL", async ({ page }) => {
    const s = new SettingsPage(page);
    await s.goto();
    await page.getByTestId("endpoints-add").click();
    const sends = s.root.getByTestId("endpoints.0.sends");
    await s.fill("endpoints.0.baseUrl", "http://127.0.0.1:11434/v1");
    await expect(sends).toHaveText("sends no key to http://127.0.0.1:11434/v1");
    await s.field("endpoints.0.apiKeyEnv").check();
    await expect(sends).toContainText("JURY_<NAME>_API_KEY");
    await s.fill("endpoints.0.name", "ollama");
    // the key variable is the endpoint's own, and follows its name
    await expect(sends).toHaveText("sends $JURY_OLLAMA_API_KEY (not set) to http://127.0.0.1:11434/v1");
    await s.fill("endpoints.0.name", "open-router");
    await expect(sends).toHaveText("sends $JURY_OPEN_ROUTER_API_KEY (not set) to http://127.0.0.1:11434/v1");
    // changing the base URL shows where that key would now go
    await s.fill("endpoints.0.baseUrl", "https://elsewhere.example/v1");
    await expect(sends).toHaveText(
      "sends $JURY_OPEN_ROUTER_API_KEY (not set) to https://elsewhere.example/v1",
    );
    await s.field("endpoints.0.apiKeyEnv").uncheck();
    await expect(sends).toHaveText("sends no key to https://elsewhere.example/v1");
    // nothing saved: the other specs share this database
  });

  test("saved settings survive a server restart; the server binds 127.0.0.1", async ({ page }) => {
    const port = 3191;
    const db = path.resolve(SCRATCH_DIR, "restart", "jury.db");
    fs.rmSync(path.dirname(db), { recursive: true, force: true });
    // a custom endpoint's key, set: the page says so, and never shows it
    const env = { JURY_OLLAMA_API_KEY: `${CANARY_KEY}-ollama` };
    let app = await startApp({ port, db, env });
    try {
      expect(listeningAddresses(port)).toEqual(["127.0.0.1"]);
      const s = new SettingsPage(page);
      await page.goto(`http://127.0.0.1:${port}/settings`);
      await page.getByTestId("endpoints-add").click();
      await s.fill("endpoints.0.name", "ollama");
      await s.fill("endpoints.0.baseUrl", "http://127.0.0.1:11434/v1");
      await s.fill("endpoints.0.models.0", "llama3");
      await s.field("endpoints.0.apiKeyEnv").check();
      await s.fill("judging.samples", "5");
      await s.fill("judging.temperature", "0.4");
      await s.field("providers.local.enabled").check();
      await s.field("memoryJudge.enabled").check();
      await s.fill("memoryJudge.candidate_pool_size", "20");
      await s.save();
      await expect(s.status()).toHaveText("Saved.");

      await stopApp(app);
      app = await startApp({ port, db, env });
      await page.goto(`http://127.0.0.1:${port}/settings`);
      await expect(s.field("judging.samples")).toHaveValue("5");
      await expect(s.field("judging.temperature")).toHaveValue("0.4");
      await expect(s.field("providers.local.enabled")).toBeChecked();
      await expect(s.field("memoryJudge.enabled")).toBeChecked();
      await expect(s.field("memoryJudge.candidate_pool_size")).toHaveValue("20");
      await expect(s.field("endpoints.0.apiKeyEnv")).toBeChecked();
      await expect(s.root.getByTestId("endpoints.0.sends")).toHaveText(
        "sends $JURY_OLLAMA_API_KEY (set) to http://127.0.0.1:11434/v1",
      );
      const html = await (await page.request.get(`http://127.0.0.1:${port}/settings`)).text();
      const rsc = await (
        await page.request.get(`http://127.0.0.1:${port}/settings`, { headers: { RSC: "1" } })
      ).text();
      expect(html).not.toContain(env.JURY_OLLAMA_API_KEY);
      expect(rsc).not.toContain(env.JURY_OLLAMA_API_KEY);
    } finally {
      await stopApp(app);
    }
  });
});
