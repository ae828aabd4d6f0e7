import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, listeningAddresses, startApp, stopApp } from "./app-server";
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

  test("a failed save keeps every field as typed, puts the error beside the field and focuses the first; what is ticked is what is saved", async ({
    page,
  }) => {
    // its own server and database: this test saves
    const port = await freePort();
    const db = path.resolve(SCRATCH_DIR, "form-state", "jury.db");
    fs.rmSync(path.dirname(db), { recursive: true, force: true });
    const app = await startApp({ port, db });
    try {
      const s = new SettingsPage(page);
      const open = async () => {
        await page.goto(`http://127.0.0.1:${port}/settings`);
        await expect(s.root).toBeVisible();
      };
      await open();
      // edits of every kind of control, then two invalid fields: N, and a price left empty
      await s.field("providers.local.enabled").check();
      await s.field("memoryJudge.dual_verification").check();
      await s.field("judging.flagLowConsensus").uncheck();
      await s.field("memoryJudge.modes.auto.verification").selectOption("lenient");
      await s.fill("judging.temperature", "0.3");
      await s.fill("judging.samples", "11");
      await s.price(0, "inputPerMTok").fill("");
      await s.save();
      await expect(s.status()).toContainText("Nothing saved: 2 fields need fixing.");
      // each error under its field; focus on the first one in the page's order
      await expect(s.error("judging.samples")).toHaveText(/at most 10/);
      await expect(s.field("judging.samples")).toHaveAttribute("aria-describedby", "judging.samples-error");
      await expect(s.priceError("openai:gpt-5-mini", "inputPerMTok")).toBeVisible();
      await expect(s.field("judging.samples")).toBeFocused();
      // nothing typed or ticked was reset
      const kept = async (samples: string) => {
        await expect(s.field("providers.local.enabled")).toBeChecked();
        await expect(s.field("memoryJudge.dual_verification")).toBeChecked();
        await expect(s.field("judging.flagLowConsensus")).not.toBeChecked();
        await expect(s.field("memoryJudge.modes.auto.verification")).toHaveValue("lenient");
        await expect(s.field("judging.temperature")).toHaveValue("0.3");
        await expect(s.field("judging.samples")).toHaveValue(samples);
      };
      await kept("11");
      await expect(s.price(0, "inputPerMTok")).toHaveValue("");

      // fix N: the price is now the first invalid field, and takes focus
      await s.fill("judging.samples", "4");
      await s.save();
      await expect(s.status()).toContainText("Nothing saved: 1 field needs fixing.");
      await expect(s.error("judging.samples")).toHaveCount(0);
      await expect(s.price(0, "inputPerMTok")).toBeFocused();
      await kept("4");

      await s.price(0, "inputPerMTok").fill("0.5");
      await s.save();
      await expect(s.status()).toHaveText("Saved.");
      await kept("4"); // a successful save resets nothing either
      await open();
      await kept("4");
      await expect(s.price(0, "inputPerMTok")).toHaveValue("0.5");

      // and the other way: unticked after a failed save is unticked when saved
      await s.field("providers.local.enabled").uncheck();
      await s.fill("judging.temperature", "9");
      await s.save();
      await expect(s.error("judging.temperature")).toHaveText(/≤ 2/);
      await expect(s.field("judging.temperature")).toBeFocused();
      await expect(s.field("providers.local.enabled")).not.toBeChecked();
      await s.fill("judging.temperature", "0.3");
      await s.save();
      await expect(s.status()).toHaveText("Saved.");
      await open();
      await expect(s.field("providers.local.enabled")).not.toBeChecked();
      await expect(s.field("memoryJudge.dual_verification")).toBeChecked();
    } finally {
      await stopApp(app);
    }
  });

  test("+ add model puts the focus in the new field; a blank one is never a judge in the estimate, and is refused naming it", async ({
    page,
  }) => {
    // its own server and database: this test saves
    const port = await freePort();
    const db = path.resolve(SCRATCH_DIR, "add-model", "jury.db");
    fs.rmSync(path.dirname(db), { recursive: true, force: true });
    const app = await startApp({ port, db });
    try {
      await page.goto(`http://127.0.0.1:${port}/runs`);
      await page.getByTestId("open-settings-modal").click();
      const modal = page.getByTestId("settings-modal");
      const s = new SettingsPage(page, modal.getByTestId("settings-form"));
      await s.field("providers.local.enabled").check();
      await modal.getByTestId("providers.local.models-add").click();
      // the new field has the focus: typing goes there
      await expect(s.field("providers.local.models.1")).toBeFocused();
      await page.keyboard.type("qwen2.5:7b");
      await expect(s.field("providers.local.models.1")).toHaveValue("qwen2.5:7b");
      // a second row, left blank: the estimate lists what a run would call, never "local:"
      await modal.getByTestId("providers.local.models-add").click();
      await expect(s.field("providers.local.models.2")).toBeFocused();
      const unpriced = modal.getByTestId("estimate-unpriced");
      await expect(unpriced).toContainText("No price for local:llama3.1:8b, local:qwen2.5:7b:");
      await expect(unpriced).not.toContainText(/local:(,|\s|:|$)/);
      // saving refuses the blank row, at the row, with the focus on it; removing it saves
      await s.save();
      await expect(s.error("providers.local.models.2")).toHaveText("Model id cannot be empty");
      await expect(s.field("providers.local.models.2")).toBeFocused();
      await modal.getByRole("button", { name: "Remove model 3" }).click();
      await s.save();
      await expect(s.status()).toHaveText("Saved.");
      await page.goto(`http://127.0.0.1:${port}/settings`);
      const page2 = new SettingsPage(page);
      await expect(page2.field("providers.local.models.1")).toHaveValue("qwen2.5:7b");
      await expect(page2.field("providers.local.models.2")).toHaveCount(0);
      // on the settings page too, and for a new endpoint's name
      await page.getByTestId("providers.openai.models-add").click();
      await expect(page2.field("providers.openai.models.1")).toBeFocused();
      await page.getByTestId("endpoints-add").click();
      await expect(page2.field("endpoints.0.name")).toBeFocused();
    } finally {
      await stopApp(app);
    }
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
    const port = await freePort();
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
