import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { startScriptedServer } from "../lib/testing/scripted-server";
import { SCRATCH_DIR } from "./constants";
import { RunPage } from "./pages/runs-page";
import { SettingsPage } from "./pages/settings-page";

/**
 * A run watched while it runs, against a slow scripted judge: verdicts appear as their samples
 * arrive, marked partial (no pass/fail, no labelling), and the header's count is the progress bar's
 * at every moment. When it ends: final verdicts, the triage filters hide what does not match, and
 * the counts beside them count what the header counts.
 */

const DELAY_MS = 2500;

async function setProviders(page: Page, enabled: Record<string, boolean>) {
  const s = new SettingsPage(page);
  await s.goto();
  for (const [id, on] of Object.entries(enabled)) await s.field(`providers.${id}.enabled`).setChecked(on);
  await s.save();
  await expect(s.status()).toHaveText("Saved.");
}

/** 3 cases on correctness (threshold 5): case 2 is scored low by both judges, case 3 breaks judge b. */
function writeSuite(tag: string): string {
  const suite = path.resolve(SCRATCH_DIR, "live-run-suite");
  fs.rmSync(suite, { recursive: true, force: true });
  fs.mkdirSync(path.join(suite, "cases"), { recursive: true });
  fs.writeFileSync(
    path.join(suite, "suite.json"),
    JSON.stringify({ name: `Live ${tag}`, criteria: [{ id: "correctness", threshold: 5 }] }),
  );
  for (const i of [1, 2, 3])
    fs.writeFileSync(
      path.join(suite, "cases", `c${i}.json`),
      JSON.stringify({
        id: `c${i}`,
        name: `Case ${i}`,
        input: { prompt: `${tag}: what is ${i} + ${i}?` },
        output: `${2 * i}`,
      }),
    );
  return suite;
}

/** The header's and the bar's counts, read in one go (one moment of the page). */
async function counts(page: Page): Promise<{ header: number; bar: number; total: number }> {
  return page.evaluate(() => {
    const header = document.querySelector('[data-testid="run-count"]')?.getAttribute("data-count");
    const bar = document.querySelector('[data-testid="progress-count"]');
    const total = document.querySelector('[role="progressbar"]')?.getAttribute("aria-valuemax");
    return { header: Number(header), bar: Number(bar?.getAttribute("data-count")), total: Number(total) };
  });
}

test("a live run shows partial verdicts as samples arrive, one count in the header and the bar, no labelling on pending cells; finished, its filters hide what does not match", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const judge = await startScriptedServer((req) => {
    // case 3: judge b answers text that is not the JSON asked for (the sample fails, no HTTP retry)
    if (req.model === "slow-b" && req.text.includes("3 + 3"))
      return { delayMs: DELAY_MS, text: "scripted: no answer" };
    const score = req.text.includes("2 + 2") ? 2 : req.model === "slow-a" ? 6 : 8;
    return { delayMs: DELAY_MS, json: { score, reasoning: `Scripted ${req.model}: ${score}` } };
  });
  let cli: ChildProcess | undefined;
  try {
    await setProviders(page, { local: true });
    const tag = `live-${Date.now()}`;
    const suite = writeSuite(tag);
    cli = spawn(
      process.execPath,
      [
        "bin/jury.cjs",
        "eval",
        suite,
        "--judges",
        "local:slow-a,local:slow-b",
        "--n",
        "3",
        "--concurrency",
        "2",
        "--json",
      ],
      {
        env: { ...process.env, JURY_DB: `${SCRATCH_DIR}/main/jury.db`, JURY_LOCAL_BASE_URL: judge.baseURL },
        stdio: "ignore",
      },
    );
    const exited = new Promise<number | null>((resolve) => cli?.on("close", resolve));

    // the run, from the runs list while it is going
    const row = page.locator('[data-testid^="run-row-"]').filter({ hasText: `Live ${tag}` });
    await expect(async () => {
      await page.goto("/runs");
      await expect(row).toHaveCount(1, { timeout: 500 });
    }).toPass({ timeout: 20_000 });
    const runId = ((await row.getAttribute("data-testid")) ?? "").replace("run-row-", "");
    const run = new RunPage(page);
    // the last case's cell: its samples come last, so it is pending the longest
    await run.goto(runId, "?case=c3&criterion=correctness");
    await expect(run.runStatus()).toHaveText("running");
    // the selected cell (c3, judged last) is pending: no pass/fail labelling offered (one moment of the page)
    const labelling = await page.evaluate(() => ({
      pending: document.querySelector('[data-testid="label-pending"]')?.textContent ?? null,
      human: document.querySelectorAll('[data-testid="human-label"]').length,
      pass: document.querySelectorAll('[data-testid="label-pass"]').length,
    }));
    expect(labelling.pending).toMatch(/Partial verdict: \d of 6 samples still pending/);
    expect(labelling).toMatchObject({ human: 0, pass: 0 });

    // a partial verdict appears before the run ends, with its coverage and no pass/fail
    const partial = page.getByTestId("cell-partial").first();
    await expect(partial).toBeVisible({ timeout: 20_000 });
    const partialCell = page
      .locator('[data-testid^="cell-"]')
      .filter({ has: page.getByTestId("cell-partial") });
    await expect(partialCell.first().getByTestId("cell-coverage")).toContainText(/pending/);
    await expect(partialCell.first()).not.toContainText(/\bpass\b|FAIL/);
    await expect(partialCell.first().getByTestId("consensus")).toHaveCount(0);
    const seen = new Set<number>();
    let total = 0;
    for (let i = 0; i < 6; i++) {
      const c = await counts(page);
      expect(c.header, `moment ${i}`).toBe(c.bar);
      total = c.total;
      seen.add(c.bar);
      await page.waitForTimeout(700);
    }
    expect(total).toBe(18); // 3 cases × 2 judges × N = 3
    expect([...seen].some((n) => n > 0 && n < 18)).toBe(true); // a moment mid-run was seen

    // the end: every count 18, final verdicts, labelling offered
    expect([0, 1]).toContain(await exited); // a verdict fails: 1 (0 if the CLI counts it otherwise)
    await expect(run.runStatus()).toHaveText("done with failures", { timeout: 20_000 });
    await expect(page.getByTestId("progress-count")).toHaveText("18 of 18 samples");
    const end = await counts(page);
    expect(end).toEqual({ header: 18, bar: 18, total: 18 });
    await expect(page.getByTestId("run-coverage")).toHaveText(
      "2 of 2 judges answered · 15 of 18 samples (3 failed)",
    );
    await expect(page.getByTestId("cell-partial")).toHaveCount(0);
    await expect(page.getByTestId("human-label").getByTestId("label-pass")).toBeVisible();

    // one sample numbering: "sample k of N" in the cell and in the call inspector
    const first = page.getByTestId("sample").first();
    await expect(first.getByTestId("sample-number")).toHaveText("sample 1 of 3");
    await first.getByTestId("inspect-call").click();
    await expect(page.getByTestId("inspector-sample")).toHaveText("sample 1 of 3");
    await expect(page.getByTestId("request-params")).toContainText("sample 1 of 3");
    await expect(page.getByTestId("call-inspector")).not.toContainText(/sample index|sample #/);
    await page.goBack();
    await expect(page.getByTestId("results-table")).toBeVisible();

    // filters: FAIL shows only the failing case's cell; failed samples count samples, as the header does
    await expect(run.status("fail")).toHaveText("Verdict FAIL (1)");
    await run.filterByKeyboard("fail");
    await expect(page.locator('[data-testid^="case-row-"]')).toHaveCount(1);
    await expect(page.getByTestId("case-row-c2")).toBeVisible();
    await expect(run.status("failed")).toHaveText("Failed samples (3)");
    // with a judge chosen, "All (N)" and the heading count the same cells
    await page.getByTestId("triage-judge").selectOption("local:slow-a");
    await expect(page).toHaveURL(/judge=local%3Aslow-a/);
    await expect(page.getByTestId("triage-judge")).toHaveValue("local:slow-a");
    await run.filterByKeyboard("all");
    await expect(run.status("all")).toHaveText("All (3)");
    await expect(page.locator("#verdicts")).toContainText(
      "3 of 3 cells local:slow-a was asked on have a verdict",
    );
  } finally {
    cli?.kill();
    await judge.close();
  }
});
