import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect as baseExpect, test } from "@playwright/test";
import { freePort, startApp, stopApp } from "./app-server";
import { seriousViolations } from "./axe";
import { SCRATCH_DIR } from "./constants";

const DB = path.resolve(SCRATCH_DIR, "panel", "jury.db");
// the page computes every configuration as it renders: on a shared machine that can take seconds
const expect = baseExpect.configure({ timeout: 30_000 });

/** Runs TypeScript against the database (tsx: the app's modules, as the unit tests load them). */
function tsx(code: string): string {
  const r = spawnSync("npx", ["tsx", "-e", code, DB], { encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) throw new Error(`tsx exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout.trim();
}

// its own server and database: promoting changes the settings every other spec reads
test("the panel optimizer page: frontier chart (hover names the panel) and table at 1280 and 390 px, promote the recommendation, then another configuration after confirming", async ({
  page,
}) => {
  test.setTimeout(240_000);
  fs.rmSync(path.dirname(DB), { recursive: true, force: true });
  fs.mkdirSync(path.dirname(DB), { recursive: true });
  // the test run: 4 judges (one noise, one biased high) × N=5 over 60 cases, every verdict labelled
  const runId = tsx(
    `import { createDb } from "@/db/client"; import { PANEL_PRICES, seedPanelRun } from "@/lib/panel/test-run"; import { readSettings, writeSettings } from "@/lib/settings/store"; const db = createDb(process.argv[1]); (async () => { await writeSettings(db, { ...(await readSettings(db)), prices: PANEL_PRICES }); console.log(await seedPanelRun(db)); })();`,
  );

  const port = await freePort();
  const app = await startApp({ port, db: DB });
  try {
    const base = `http://127.0.0.1:${port}`;
    // reached from the run page and the agreement page
    await page.goto(`${base}/runs/${runId}`);
    await page.getByTestId("panel-link").click();
    await expect(page).toHaveURL(new RegExp(`/runs/${runId}/panel$`));
    await page.goto(`${base}/agreement/${runId}`);
    await expect(page.getByTestId("panel-link")).toHaveAttribute("href", `/runs/${runId}/panel`);

    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${base}/runs/${runId}/panel`);
      const card = page.getByTestId("panel-correctness");
      await expect(card.getByTestId("panel-summary")).toContainText(
        "75 configurations from the stored samples (no new call) · 60 verdicts, 60 labelled by people · full panel recomputed: 60 of 60 stored verdicts equal",
      );
      await expect(card.getByTestId("panel-recommendation")).toContainText(/Recommended: .+ × \d/);
      // the chart: one dot per configuration, the frontier joined; hovering a dot names the panel
      const chart = card.getByTestId("frontier-chart");
      await expect(chart.locator(".recharts-scatter-symbol").first()).toBeVisible();
      expect(await chart.locator(".recharts-scatter-symbol").count()).toBe(75);
      await chart.locator(".recharts-scatter-symbol").first().hover();
      await expect(chart.locator(".recharts-tooltip-wrapper")).toContainText(
        /× \d[\s\S]*accuracy \d+\.\d% \(95% interval/,
      );
      // the table: the frontier, the full panel and the recommendation, none with the noise judge on the frontier
      const rows = card.getByTestId("panel-row");
      expect(await rows.count()).toBeGreaterThan(2);
      for (const row of await rows.all()) {
        const text = (await row.textContent()) ?? "";
        if (text.includes("frontier")) expect(text).not.toContain("local:noise");
      }
      await expect(card.getByTestId("panel-row").filter({ hasText: "full panel" })).toContainText("n 60");
      // no page-level horizontal scroll (the wide table scrolls in its own box); the tooltip closed first
      await page.mouse.move(1, 1);
      await expect(chart.locator(".recharts-tooltip-wrapper")).not.toBeVisible();
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll("body *")]
          .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
          .filter((e) => !e.closest("[data-testid=panel-table-scroll]"))
          .map((e) => `${e.tagName.toLowerCase()}.${e.className}`.slice(0, 80)),
      );
      const sizes = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      expect(sizes.scrollWidth, wide.join("\n")).toBeLessThanOrEqual(sizes.clientWidth);
      expect(await seriousViolations(page)).toEqual([]);

      if (width === 1280) {
        // the recommendation: promoted at once (its figures support it)
        const rec = rows.filter({ hasText: "recommended" });
        await rec.getByTestId("promote-config-button").click();
        await expect(rec.getByTestId("promote-config-message")).toContainText("Default for correctness:");
        await page.reload();
        await expect(rows.filter({ hasText: "recommended" }).getByTestId("config-default")).toHaveText(
          "default for correctness",
        );
      } else {
        // another row: not the recommendation, so the page asks first with the figures
        const other = rows.filter({ hasText: "full panel" });
        await other.getByTestId("promote-config-button").click();
        const confirm = other.getByTestId("promote-confirm");
        await expect(confirm.getByTestId("promote-reason")).toContainText("Not the recommendation");
        await expect(confirm.getByTestId("promote-figures")).toContainText(/accuracy \d+\.\d % \[/);
        expect(await seriousViolations(page)).toEqual([]);
        await confirm.getByTestId("promote-confirm-yes").click();
        await expect(other.getByTestId("promote-config-message")).toContainText(
          "Default for correctness: local:good, local:cheap, local:noise, local:high × N=5",
        );
      }
    }
    const s = JSON.parse(
      tsx(
        `import { createDb } from "@/db/client"; import { readSettings } from "@/lib/settings/store"; readSettings(createDb(process.argv[1])).then((s) => console.log(JSON.stringify(s)));`,
      ),
    );
    expect(s.criteriaPanels.correctness).toEqual(["local:good", "local:cheap", "local:noise", "local:high"]);
    expect(s.criteriaSamples.correctness).toBe(5);
    expect(s.provenance["criteriaSamples.correctness"].label).toContain("not called best, confirmed");
  } finally {
    await stopApp(app);
  }
});
