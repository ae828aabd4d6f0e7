import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { SCRATCH_DIR, SCRIPTED_PORT } from "./constants";
import { SettingsPage } from "./pages/settings-page";

const ex = path.resolve("examples/reviews/hardcoded-tests");

/** `jury review` of the example, as a user runs it, in the server's database and against the scripted judge. */
function review(args: string[], env: Record<string, string> = {}) {
  return spawnSync(
    "node",
    ["bin/jury.cjs", "review", "--diff", `${ex}/change.diff`, "--criteria", `${ex}/criteria.md`, ...args],
    {
      encoding: "utf8",
      env: {
        ...process.env,
        JURY_DB: `${SCRATCH_DIR}/main/jury.db`,
        JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1`,
        JUDGE_ENABLED: "",
        JUDGE_MODEL: "",
        ...env,
      },
    },
  );
}

test("open a stored review: its dimensions, issues, diff, each sample's reasoning, what the judge did and what it cost", async ({
  page,
}) => {
  // the judges named below must be callable: the local provider is enabled in Settings
  const settings = new SettingsPage(page);
  await settings.goto();
  await settings.field("providers.local.enabled").check();
  await settings.save();
  await expect(settings.status()).toHaveText("Saved.");

  const r = review([
    "--passed",
    "4",
    "--failed",
    "0",
    "--judges",
    "local:a,local:b",
    "--n",
    "2",
    "--mechanical",
    "0.9",
    "--title",
    "hardcoded-tests example",
  ]);
  // exit 0 on pass, 1 on partial or fail: either way the review is stored
  expect([0, 1], r.stderr).toContain(r.status);
  expect(r.stdout).toMatch(/^rev_[0-9a-f]{10}: /);
  expect(r.stdout).toContain("judge: answered: 2 of 2 judges answered, 4 of 4 samples");
  await page.goto("/reviews");
  await page.getByTestId("review-link").filter({ hasText: "hardcoded-tests example" }).first().click();
  await expect(page).toHaveURL(/\/reviews\/rev_/);
  // the chart and its legend's icons are each an svg.recharts-surface: the first is the chart
  await expect(page.getByTestId("dimension-chart").locator("svg.recharts-surface").first()).toBeVisible();
  await expect(page.getByTestId("dimensions-table")).toContainText("scope_adherence");
  await expect(page.getByTestId("dimensions-table")).toContainText("2 of 2 judges · 4 of 4 samples");
  await expect(page.getByTestId("issues")).toContainText("no test for the empty string");
  await expect(page.getByTestId("diff-view")).toContainText("diff --git");
  await expect(page.getByTestId("review-reasoning").first()).toContainText("Scripted judgment");
  await expect(page.getByTestId("review-samples").locator("li")).toHaveCount(4); // 2 judges × N = 2
  await expect(page.getByTestId("review-judge")).toContainText("answered: 2 of 2 judges answered");
  // the gate and the four samples, each with its tokens; local:a and local:b have no price
  await expect(page.getByTestId("review-calls").locator("tbody tr")).toHaveCount(5);
  await expect(page.getByTestId("review-calls")).toContainText("unpriced");
});

test("a review with no judge enabled: the mechanical verdict from the tests, and the page says the judge was not enabled", async ({
  page,
}) => {
  const r = review(["--passed", "4", "--failed", "1", "--title", "no judge example"]);
  expect(r.status, r.stderr).toBe(1); // a failed test: fail
  expect(r.stdout).toContain("judge: not enabled");
  await page.goto("/reviews");
  const row = page.getByTestId("reviews-table").locator("tr", { hasText: "no judge example" }).first();
  await expect(row.getByTestId("review-judge-status")).toHaveText("not enabled");
  await row.getByTestId("review-link").click();
  await expect(page.getByTestId("review-verdict")).toContainText("fail · from the tests");
  await expect(page.getByTestId("review-judge")).toContainText("not enabled");
  await expect(page.getByTestId("review-judge")).toContainText("mechanical verdict from the tests");
});

test("start a review from the dashboard: a refused form keeps its values, the review is followed live and opened once stored", async ({
  page,
}) => {
  const settings = new SettingsPage(page);
  await settings.goto();
  await settings.field("providers.local.enabled").check();
  await settings.save();
  await expect(settings.status()).toHaveText("Saved.");

  await page.goto("/reviews");
  const form = page.getByTestId("review-form");
  await form.getByLabel("Title (optional)").fill("dashboard review");
  await form.getByTestId("review-criteria").fill("slugify lower-cases and joins words with dashes");
  await form
    .getByTestId("review-diff")
    .fill("--- a/s.ts\n+++ b/s.ts\n@@ -0,0 +1 @@\n+export const slugify = (s: string) => s.toLowerCase();\n");
  await form.getByLabel("Tests passed (optional)").fill("4");
  await form.getByLabel("Tests failed (optional)").fill("none");
  // one judge: the scripted local one
  for (const box of await form.locator('input[name="judges"]').all()) await box.uncheck();
  await form.locator('input[name="judges"][value="local:llama3.1:8b"]').check();
  await form.getByLabel("N samples per judge").fill("2");
  await page.getByTestId("start-review").click();
  await expect(form.getByTestId("error-failed")).toHaveText('Failed must be a whole number ≥ 0, got "none"');
  // refused: every field still holds what was typed
  await expect(form.getByTestId("review-criteria")).toHaveValue(
    "slugify lower-cases and joins words with dashes",
  );
  await expect(form.getByTestId("review-diff")).toHaveValue(/slugify/);
  await expect(form.getByLabel("Title (optional)")).toHaveValue("dashboard review");
  await expect(form.locator('input[name="judges"][value="local:llama3.1:8b"]')).toBeChecked();

  await expect(form.getByLabel("N samples per judge")).toHaveValue("2");
  await expect(form.getByLabel("Tests failed (optional)")).toHaveValue("none");
  await form.getByLabel("Tests failed (optional)").fill("0");
  await page.getByTestId("start-review").click();
  const started = page.getByTestId("started-review");
  await expect(started.getByTestId("review-job-status")).toHaveText("done", { timeout: 20_000 });
  await expect(started.getByTestId("review-calls-count")).toHaveText("3 of 3 calls"); // the gate and 2 samples
  await started.getByTestId("open-review").click();
  await expect(page).toHaveURL(/\/reviews\/rev_[0-9a-f]{10}$/);
  await expect(page.getByTestId("review-verdict")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("dashboard review");
  await expect(page.getByTestId("review-judge")).toContainText(
    "answered: 1 of 1 judges answered, 2 of 2 samples",
  );
});

test("a review page shows what the judge saw: the criteria, the diff as sent with its truncation marker, the test output and the conventions, each collapsible", async ({
  page,
}) => {
  // a diff longer than the 3,000 lines sent, and a repository whose CLAUDE.md gives the conventions
  const dir = path.resolve(SCRATCH_DIR, "review-judge-input");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "CLAUDE.md"), "Conventions of this repo: tabs, never spaces.\n");
  const added = Array.from({ length: 3100 }, (_, i) => `+export const line${i} = ${i};`);
  const diff = [
    "diff --git a/src/big.ts b/src/big.ts",
    "--- a/src/big.ts",
    "+++ b/src/big.ts",
    "@@ -0,0 +1,3100 @@",
    ...added,
  ].join("\n");
  fs.writeFileSync(path.join(dir, "big.diff"), diff);
  const r = spawnSync(
    "node",
    [
      "bin/jury.cjs",
      "review",
      "--diff",
      path.join(dir, "big.diff"),
      "--repo",
      dir,
      "--criteria",
      `${ex}/criteria.md`,
      "--test-output",
      `${ex}/test-output.txt`,
      "--passed",
      "4",
      "--failed",
      "1",
      "--title",
      "judge input example",
    ],
    {
      encoding: "utf8",
      env: { ...process.env, JURY_DB: `${SCRATCH_DIR}/main/jury.db`, JUDGE_ENABLED: "", JUDGE_MODEL: "" },
    },
  );
  expect(r.stdout, r.stderr).toMatch(/^rev_[0-9a-f]{10}: /);
  await page.goto(`/reviews/${r.stdout.slice(0, 14)}`);
  const input = page.getByTestId("judge-input");
  await expect(input.getByTestId("judge-input-notes")).toContainText(
    "[diff truncated: showing the first 3000 of 3104 lines; 104 lines cut]",
  );

  const criteria = input.getByTestId("judge-input-criteria");
  await expect(criteria).toHaveAttribute("open", "");
  await expect(criteria).toContainText("Acceptance criteria: slugify");
  // the diff as sent: its first 3,000 lines, then the marker; the cut lines are not there
  const sent = input.getByTestId("judge-input-diff");
  await expect(sent.locator("summary")).toHaveText("Diff as sent (3001 lines)");
  await expect(sent.getByTestId("diff-view")).toContainText("+export const line2995 = 2995;");
  await expect(sent.getByTestId("diff-view")).not.toContainText("line2996 ");
  await expect(sent.getByTestId("diff-view").locator("div").last()).toContainText("[diff truncated");

  // closed until opened: the test output and the conventions
  const tests = input.getByTestId("judge-input-tests");
  await expect(tests.locator("summary")).toHaveText("Test output (4 passed, 1 failed)");
  const output = tests.getByRole("region", { name: "The test output" });
  await expect(output).toBeHidden();
  await tests.locator("summary").click();
  await expect(output).toBeVisible();
  await expect(output).toContainText(fs.readFileSync(`${ex}/test-output.txt`, "utf8").trim().split("\n")[0]);
  const conventions = input.getByTestId("judge-input-conventions");
  await conventions.locator("summary").click();
  await expect(conventions).toContainText("Conventions of this repo: tabs, never spaces.");
});
