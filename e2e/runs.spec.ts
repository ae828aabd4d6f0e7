import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { startScriptedServer } from "../lib/testing/scripted-server";
import { SCRATCH_DIR } from "./constants";
import { RunsPage } from "./pages/runs-page";
import { SettingsPage } from "./pages/settings-page";

test("change N in the settings modal, start a run, watch it progress, open its spread chart and a sample's reasoning", async ({
  page,
}) => {
  // specs before this one share the database and may have turned providers on: start from none
  await setProviders(page, { mock: false, local: false });
  const runs = new RunsPage(page);
  await runs.goto();
  await runs.chooseSuite(/Question answering|QA/i);

  const settings = await runs.openSettings();
  // no provider is on by default, the mock one included: enable two judges by hand
  await settings.field("providers.mock.enabled").check();
  const one = Number((await runs.modalCalls().textContent())?.replace(/,/g, ""));
  expect(one).toBeGreaterThan(0);
  await settings.field("providers.local.enabled").check(); // the scripted server stands in for a local model
  const two = Number((await runs.modalCalls().textContent())?.replace(/,/g, ""));
  expect(two).toBe(one * 2); // two judges instead of one
  await settings.fill("judging.samples", "5");
  await expect(runs.modalCalls()).toHaveText(String((two / 3) * 5));
  await settings.save();
  await expect(settings.status()).toHaveText("Saved.");
  await page.keyboard.press("Escape");

  await expect(page.locator("#n")).toHaveValue("5");
  await expect(runs.formCalls()).toHaveText(String((two / 3) * 5));
  await runs.start();

  // live progress: the count moves, then the run finishes
  const progress = page.getByTestId("progress-count");
  await expect(progress).toContainText(/of \d+ tasks/);
  const total = Number((await progress.textContent())?.match(/of (\d+)/)?.[1]);
  await expect(page.getByTestId("run-status")).toHaveText("running");
  await expect(progress).not.toHaveText(`0 of ${total} tasks`, { timeout: 15_000 });
  await expect(page.getByTestId("run-status")).toHaveText("done", { timeout: 45_000 });
  await expect(progress).toHaveText(`${total} of ${total} tasks`);
  await expect(page.getByTestId("run-coverage")).toContainText("2 of 2 judges answered");

  // the verdict table, then one cell: the spread chart and each sample's reasoning
  await expect(page.getByTestId("results-table")).toBeVisible();
  const cell = page.locator('[data-testid^="cell-"][data-testid$="-correctness"]').first();
  await expect(cell.getByTestId("cell-coverage")).toHaveText("2 of 2 judges · 10 of 10 samples");
  await cell.click();
  await expect(page).toHaveURL(/criterion=correctness/);
  await expect(page.getByTestId("spread-chart").locator("svg.recharts-surface")).toBeVisible();
  await expect(page.getByTestId("sample")).toHaveCount(10); // 2 judges × N = 5
  await expect(
    page.getByTestId("sample-reasoning").filter({ hasText: "Scripted judge" }).first(),
  ).toBeVisible();
  await expect(page.getByTestId("panel-stats")).toContainText("local:llama3.1:8b");

  // a person labels this verdict by keyboard (y = pass), sees it pressed, and undoes it with u
  const label = page.getByTestId("human-label");
  await expect(label.getByTestId("label-pass")).toHaveAttribute("aria-pressed", "false");
  await page.locator("body").click({ position: { x: 2, y: 2 } });
  await page.keyboard.press("y");
  await expect(label.getByTestId("label-pass")).toHaveAttribute("aria-pressed", "true");
  await page.reload();
  await expect(page.getByTestId("human-label").getByTestId("label-pass")).toHaveAttribute(
    "aria-pressed",
    "true",
  );
  // the agreement page counts the labelled verdict
  const cellUrl = page.url();
  await page.goto("/agreement");
  await expect(page.getByTestId("labelled-runs")).toContainText(/1 of \d+/);
  await page.goto(cellUrl);
  await page.locator("body").click({ position: { x: 2, y: 2 } });
  await page.keyboard.press("u");
  await expect(page.getByTestId("human-label").getByTestId("label-pass")).toHaveAttribute(
    "aria-pressed",
    "false",
  );

  // the runs list shows it
  await page.goto("/runs");
  await expect(page.getByTestId("runs-table")).toContainText("done");
});

/** Turns providers on or off in Settings and saves (the CLI and the server read the same settings). */
async function setProviders(page: Page, enabled: Record<string, boolean>) {
  const s = new SettingsPage(page);
  await s.goto();
  for (const [id, on] of Object.entries(enabled)) await s.field(`providers.${id}.enabled`).setChecked(on);
  await s.save();
  await expect(s.status()).toHaveText("Saved.");
}

test("a judge whose provider has no key: the run is refused before it starts, the form names the judge and the variable", async ({
  page,
}) => {
  await setProviders(page, { anthropic: true, local: true });
  try {
    const runs = new RunsPage(page);
    await runs.goto();
    await runs.chooseSuite(/Question answering|QA/i);
    const form = page.getByTestId("start-run-form");
    await expect(form.locator('input[value="anthropic:claude-sonnet-4-5"]')).toBeChecked();
    const before = await page.getByTestId("runs-table").locator("tbody tr").count();
    await page.getByTestId("start-run").click();
    await expect(form.getByRole("alert")).toContainText(
      "anthropic:claude-sonnet-4-5: ANTHROPIC_API_KEY is not set",
    );
    await expect(form.getByTestId("error-judges")).toContainText("ANTHROPIC_API_KEY");
    await expect(page).toHaveURL(/\/runs$/);
    await page.reload();
    await expect(page.getByTestId("runs-table").locator("tbody tr")).toHaveCount(before); // nothing stored
  } finally {
    await setProviders(page, { anthropic: false });
  }
});

test("a panel of two judges where one always answers 500: the run is 'done with failures', each cell says 1 of 2 judges answered and shows no consensus level", async ({
  page,
}) => {
  // its own scripted judge: model "b" always answers 500, every other model a score
  const judge = await startScriptedServer((req) =>
    req.model === "b"
      ? { status: 500, message: "the judge is down" }
      : { json: { score: 7, reasoning: `Scripted judge ${req.model}` } },
  );
  try {
    await setProviders(page, { local: true });
    const suite = path.resolve(SCRATCH_DIR, "failing-judge-suite");
    fs.rmSync(suite, { recursive: true, force: true });
    fs.mkdirSync(path.join(suite, "cases"), { recursive: true });
    fs.writeFileSync(
      path.join(suite, "suite.json"),
      JSON.stringify({ name: "One judge down", criteria: [{ id: "correctness", threshold: 5 }] }),
    );
    for (const i of [1, 2])
      fs.writeFileSync(
        path.join(suite, "cases", `c${i}.json`),
        JSON.stringify({
          id: `c${i}`,
          name: `Case ${i}`,
          input: { prompt: `${i} + ${i}?` },
          output: `${2 * i}`,
        }),
      );
    // the run as a user starts it from a terminal, into the server's database
    const cli = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ["bin/jury.cjs", "eval", suite, "--judges", "local:a,local:b", "--n", "2", "--json"],
        {
          env: {
            ...process.env,
            JURY_DB: `${SCRATCH_DIR}/main/jury.db`,
            JURY_LOCAL_BASE_URL: judge.baseURL,
          },
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    expect([0, 1], cli.stderr).toContain(cli.code);
    const out = JSON.parse(cli.stdout);
    expect(out.status).toBe("done_with_failures");

    // the runs list: its own badge
    await page.goto("/runs");
    const row = page.getByTestId(`run-row-${out.run_id}`);
    await expect(row.getByTestId("run-status")).toHaveText("done with failures");
    await expect(row.getByTestId("run-status")).toHaveAttribute("data-status", "done_with_failures");

    // the run page: the badge, the coverage, every cell 1 of 2 judges and no consensus level
    await row.getByRole("link", { name: out.run_id }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${out.run_id}`));
    await expect(page.getByTestId("run-status")).toHaveText("done with failures");
    await expect(page.getByTestId("run-coverage")).toHaveText(
      "1 of 2 judges answered · 4 of 8 samples (4 failed)",
    );
    const coverage = page.getByTestId("cell-coverage");
    await expect(coverage).toHaveCount(2);
    for (const c of await coverage.all())
      await expect(c).toHaveText("1 of 2 judges · 2 of 4 samples (2 failed)");
    const consensus = page.getByTestId("results-table").getByTestId("consensus");
    await expect(consensus).toHaveCount(2);
    for (const c of await consensus.all()) await expect(c).toHaveText("single judge");
    await expect(page.getByTestId("results-table")).not.toContainText(/STRONG|GOOD|PARTIAL|LOW/);
    await expect(page.getByTestId("run-failures")).toContainText("local:b");
    await expect(page.getByTestId("failure-group")).toHaveCount(1);
    await expect(page.getByTestId("failure-group")).toContainText("HTTP 500");

    // the cell: only answered samples enter the chart and its count
    await page.getByTestId("cell-c1-correctness").click();
    await expect(page.locator("#cell")).toContainText(
      "2 of 4 samples answered, from 1 of 2 judges · 2 failed",
    );
  } finally {
    await judge.close();
  }
});
