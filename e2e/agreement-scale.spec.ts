import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { seriousViolations } from "./axe";
import { SCRATCH_DIR } from "./constants";
import { overflowingElements } from "./page-list";

const root = path.resolve(__dirname, "..");
const DB = `${SCRATCH_DIR}/main/jury.db`;

/** A qrels file of `lines` pairs; a judge's (shift > 0) differs from the gold on some of them. */
function qrels(lines: number, shift: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++)
    out.push(`q${Math.floor(i / 100)} 0 d${i} ${(i * 7 + shift * (i % 3)) % 4}`);
  return `${out.join("\n")}\n`;
}

const jury = (...args: string[]) =>
  execFileSync(process.execPath, [path.join(root, "bin/jury.cjs"), ...args], {
    env: { ...process.env, JURY_DB: DB },
    encoding: "utf8",
  });

test("a large import runs as a job beside the dashboard: other pages answer meanwhile, and the report opens when it is done", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.goto("/agreement");
  const form = page.getByTestId("import-form");
  // a gold file and four judge files of 60,000 pairs each: about 7 MB
  await form.locator('input[name="gold"]').setInputFiles({
    name: "gold.qrels",
    mimeType: "text/plain",
    buffer: Buffer.from(qrels(60_000, 0)),
  });
  await form.locator('input[name="judges"]').setInputFiles(
    [1, 2, 3, 4].map((k) => ({
      name: `judge-${k}.qrels`,
      mimeType: "text/plain",
      buffer: Buffer.from(qrels(60_000, k)),
    })),
  );
  await form.getByRole("button", { name: "Import" }).click();
  const job = page.getByTestId("agreement-job");
  await expect(job).toBeVisible({ timeout: 60_000 });

  // while it runs, another page answers in under a second
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const status = await job.getAttribute("data-status");
    if (status !== "queued" && status !== "running") break;
    const t0 = Date.now();
    const r = await page.request.get("/settings");
    times.push(Date.now() - t0);
    expect(r.status()).toBe(200);
  }
  expect(times.length, "the import ended before /settings could be asked").toBeGreaterThan(0);
  const sorted = [...times].sort((a, b) => a - b);
  expect(sorted[Math.floor(sorted.length / 2)], `GET /settings took ${times.join(", ")} ms`).toBeLessThan(
    1000,
  );

  await expect(page).toHaveURL(/\/agreement\/trec-[A-Za-z0-9_-]+$/, { timeout: 180_000 });
  await expect(page.getByTestId("agreement-row-judge-1")).toBeVisible();
  await expect(page.getByTestId("agreement-table").locator("tbody tr")).toHaveCount(4);
});

test("over the upload limit, the form says the limit and the CLI command", async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto("/agreement");
  const form = page.getByTestId("import-form");
  // the form adds up every file it holds: one just over the limit is enough
  await form.locator('input[name="gold"]').setInputFiles({
    name: "gold.qrels",
    mimeType: "text/plain",
    buffer: Buffer.alloc(10 * 1024 * 1024 + 4096, "q 0 d 1\n"),
  });
  await form.getByRole("button", { name: "Import" }).click();
  const error = page.getByTestId("import-error");
  await expect(error).toContainText("over the dashboard's upload limit of 10 MiB (JURY_UPLOAD_MAX_BYTES");
  await expect(error).toContainText("jury agreement import trec <gold.qrels> <judge.qrels>…");
});

test("at 390 px, the agreement pages of a 31-judge import and an LLMBar report fit, judge names in view", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-e2e-31-"));
  fs.writeFileSync(path.join(dir, "gold.qrels"), qrels(300, 0));
  const judges = Array.from({ length: 31 }, (_, k) => {
    const f = path.join(dir, `gpt-4o-mini-relevance-prompt-variant-${k + 1}.qrels`);
    fs.writeFileSync(f, qrels(300, k + 1));
    return f;
  });
  const { set_id: trec } = JSON.parse(
    jury("agreement", "import", "trec", path.join(dir, "gold.qrels"), ...judges, "--json"),
  ) as { set_id: string };
  const llmbarDir = path.join(root, "examples/agreement/llmbar");
  const { set_id: llmbar } = JSON.parse(
    jury(
      "agreement",
      "import",
      "llmbar",
      "--dataset",
      path.join(llmbarDir, "dataset.json"),
      path.join(llmbarDir, "evaluators/GPT-4/Vanilla/result.json"),
      path.join(llmbarDir, "evaluators/Biased/FirstAlways/result.json"),
      "--json",
    ),
  ) as { set_id: string };

  await page.setViewportSize({ width: 390, height: 844 });
  for (const url of ["/agreement", `/agreement/${trec}`, `/agreement/${llmbar}`]) {
    await page.goto(url);
    await expect(page.locator("h1")).toBeVisible();
    const width = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    expect(width[0], `${url} is ${width[0]} px wide`).toBeLessThanOrEqual(width[1]);
    expect(await overflowingElements(page), url).toEqual([]);
    expect(await seriousViolations(page), url).toEqual([]);
  }
  // the judge column stays in view while the wide table scrolls in its own box
  await page.goto(`/agreement/${trec}`);
  const row = page.getByTestId("agreement-row-gpt-4o-mini-relevance-prompt-variant-7");
  await row.scrollIntoViewIfNeeded();
  await expect(row.locator("td").first()).toBeInViewport();
  await expect(page.getByTestId("set-files")).not.toHaveAttribute("open", "");
  await page.goto(`/agreement/${llmbar}`);
  await expect(page.getByTestId("audit-row-GPT-4/Vanilla").locator("td").first()).toBeInViewport();
  await expect(page.getByTestId("audit-table")).toContainText("Unusable (own order / swapped)");
});
