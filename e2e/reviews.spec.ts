import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { SCRATCH_DIR, SCRIPTED_PORT } from "./constants";

test("open a stored review: its dimensions, issues, diff and each sample's reasoning", async ({ page }) => {
  // store a review the way a user does, with the CLI, in the server's database and against the scripted judge
  const ex = path.resolve("examples/reviews/hardcoded-tests");
  const r = spawnSync(
    "node",
    [
      "bin/jury.cjs",
      "review",
      "--diff",
      `${ex}/change.diff`,
      "--criteria",
      `${ex}/criteria.md`,
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
    ],
    {
      encoding: "utf8",
      env: {
        ...process.env,
        JURY_DB: `${SCRATCH_DIR}/main/jury.db`,
        JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1`,
      },
    },
  );
  // exit 0 on pass, 1 on partial or fail: either way the review is stored
  expect([0, 1], r.stderr).toContain(r.status);
  expect(r.stdout).toMatch(/^rev_[0-9a-f]{10}: /);
  await page.goto("/reviews");
  await page.getByTestId("review-link").filter({ hasText: "hardcoded-tests example" }).first().click();
  await expect(page).toHaveURL(/\/reviews\/rev_/);
  await expect(page.getByTestId("dimension-chart").locator("svg.recharts-surface")).toBeVisible();
  await expect(page.getByTestId("dimensions-table")).toContainText("scope_adherence");
  await expect(page.getByTestId("issues")).toContainText("no test for the empty string");
  await expect(page.getByTestId("diff-view")).toContainText("diff --git");
  await expect(page.getByTestId("review-reasoning").first()).toContainText("Scripted judgment");
  await expect(page.getByTestId("review-samples").locator("li")).toHaveCount(4); // 2 judges × N = 2
});
