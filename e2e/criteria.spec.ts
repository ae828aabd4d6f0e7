import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { type AppProcess, startApp, stopApp } from "./app-server";
import { SCRATCH_DIR, SCRIPTED_PORT } from "./constants";

// Its own server: the local provider (the scripted judge) is enabled in its database.
const PORT = 3198;
const BASE = `http://127.0.0.1:${PORT}`;
const DB = path.resolve(SCRATCH_DIR, "criteria", "jury.db");
const JUDGE = "local:llama3.1:8b";
const SCRIPTED = `http://127.0.0.1:${SCRIPTED_PORT}`;

test.use({ baseURL: BASE });

let app: AppProcess;
test.beforeAll(async () => {
  fs.rmSync(path.dirname(DB), { recursive: true, force: true });
  fs.mkdirSync(path.dirname(DB), { recursive: true });
  const r = spawnSync("node", ["bin/jury.cjs", "settings", "set", "providers.local.enabled", "true"], {
    encoding: "utf8",
    env: { ...process.env, JURY_DB: DB },
  });
  expect(r.status, r.stderr).toBe(0);
  app = await startApp({ port: PORT, db: DB, env: { JURY_LOCAL_BASE_URL: `${SCRIPTED}/v1` } });
});
test.afterAll(async () => {
  if (app) await stopApp(app);
});

const calls = async (page: Page) =>
  ((await (await page.request.get(`${SCRIPTED}/__requests`)).json()) as { count: number }).count;

test("the criteria list: one row per criterion, type, scale, threshold and version in their own columns", async ({
  page,
}) => {
  await page.goto("/criteria");
  const row = page.getByTestId("criterion-row-correctness");
  await expect(row.getByTestId("criterion-type")).toHaveText("LLM");
  await expect(row.getByTestId("criterion-scale")).toHaveText("1–10");
  await expect(row.getByTestId("criterion-threshold")).toHaveText("6");
  await expect(row.getByTestId("criterion-version")).toHaveText("1.0");
  const contains = page.getByTestId("criterion-row-contains");
  await expect(contains.getByTestId("criterion-type")).toHaveText("deterministic");
  await expect(contains.getByTestId("criterion-scale")).toHaveText("0–1");
  // the header has exactly these columns, each cell under its own
  await expect(page.getByTestId("criteria-table").locator("thead th")).toHaveText([
    "Criterion",
    "Type",
    "Scale",
    "Default threshold",
    "Version",
    "Description",
  ]);
  await expect(row.locator("td")).toHaveCount(6);
  await expect(row.getByTestId("criterion-summary")).toBeHidden();
  // on a phone each row stacks: the same facts under the name, no column off screen
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(row.getByTestId("criterion-summary")).toContainText("LLM1–10threshold 6v1.0");
  await expect(row.getByTestId("criterion-scale")).toBeHidden();
  await page.setViewportSize({ width: 1280, height: 720 });
  await row.getByTestId("criterion-link").click();
  await expect(page).toHaveURL(/\/criteria\/correctness$/);
});

test("an LLM criterion's page: README, prompt template, response schema; the playground samples the judges, aggregates, and a second try comes from the cache", async ({
  page,
}) => {
  await page.goto("/criteria/correctness");
  await expect(
    page.getByTestId("criterion-readme").getByRole("heading", { name: "What it measures" }),
  ).toBeVisible();
  await expect(page.getByTestId("prompt-template")).toContainText("Evaluate CORRECTNESS on a scale of 1-10");
  await expect(page.getByTestId("response-schema")).toContainText('"additionalProperties": false');
  await expect(page.getByTestId("fact-default-threshold")).toHaveText("6");

  const form = page.getByTestId("playground-form");
  const judge = form.getByRole("checkbox", { name: JUDGE });
  await expect(judge).toBeChecked();
  // no judge picked: the error sits under the judges, focus on them, what was typed stays
  await judge.uncheck();
  await page.getByLabel("Input: the prompt the output answers").fill("Which prizes did Marie Curie win?");
  await page.getByLabel("Reference answer (optional)").fill("Physics (1903) and Chemistry (1911).");
  await page
    .getByLabel("Output to judge")
    .fill("She won the 1903 physics prize and the 1911 chemistry prize.");
  await page.getByLabel("N samples per judge (1–10)").fill("2");
  await page.getByTestId("playground-try").click();
  await expect(page.getByTestId("error-judges")).toHaveText("Pick at least one judge");
  await expect(judge).toBeFocused();
  await expect(page.getByLabel("Output to judge")).toHaveValue(
    "She won the 1903 physics prize and the 1911 chemistry prize.",
  );
  await expect(page.getByLabel("N samples per judge (1–10)")).toHaveValue("2");

  // N out of range: beside N, with focus
  await judge.check();
  await page.getByLabel("N samples per judge (1–10)").fill("11");
  await page.getByTestId("playground-try").click();
  await expect(page.getByTestId("error-n")).toHaveText("N must be at most 10");
  await expect(page.getByLabel("N samples per judge (1–10)")).toBeFocused();
  await expect(judge).toBeChecked();

  await page.getByLabel("N samples per judge (1–10)").fill("2");
  const before = await calls(page);
  await page.getByTestId("playground-try").click();
  const result = page.getByTestId("playground-result");
  await expect(result.getByTestId("playground-sample")).toHaveCount(2);
  await expect(result.getByTestId("playground-sample").first()).toContainText("Scripted judge");
  await expect(result.getByTestId("playground-score")).toHaveText(/^\d+(\.\d+)?$/);
  await expect(result.getByTestId("playground-passed")).toHaveText(/^(passes|fails)$/);
  await expect(result.getByTestId("playground-coverage")).toContainText(
    "1 of 1 judge answered · 2 of 2 samples",
  );
  await expect(result.getByTestId("playground-coverage")).toContainText("2 live calls, 0 from the cache");
  expect(await calls(page)).toBe(before + 2);
  // what the judge was sent: the template, then the typed output as data
  await result.getByText("What each judge was sent").click();
  await expect(result.getByTestId("playground-prompt")).toContainText("Evaluate CORRECTNESS");
  await expect(result.getByTestId("playground-prompt")).toContainText(
    '<data name="output_to_evaluate">\nShe won the 1903 physics prize and the 1911 chemistry prize.',
  );
  const score = await result.getByTestId("playground-score").textContent();

  // the same try again: from the cache, no call, the same aggregate
  await page.getByTestId("playground-try").click();
  await expect(result.getByTestId("playground-coverage")).toContainText("0 live calls, 2 from the cache");
  await expect(result.getByTestId("playground-sample").first()).toContainText("cache");
  await expect(result.getByTestId("playground-score")).toHaveText(score ?? "");
  expect(await calls(page)).toBe(before + 2);

  // no run was created
  await page.goto("/runs");
  await expect(page.getByTestId("runs-empty")).toBeVisible();
});

test("a deterministic criterion: its function and parameters; the playground runs the check with typed parameters", async ({
  page,
}) => {
  await page.goto("/criteria/contains");
  await expect(page.getByTestId("fact-function")).toHaveText("checkContains");
  await expect(page.getByTestId("criterion-logic")).toContainText('"case_sensitive": false');
  const params = page.getByLabel("Parameters (JSON object; blank: the definition's)");
  const output = page.getByLabel("Output to judge");
  await output.fill("She won the 1911 chemistry prize.");
  await params.fill("{not json");
  await page.getByTestId("playground-try").click();
  await expect(page.getByTestId("error-params")).toContainText("Parameters must be a JSON object");
  await expect(params).toBeFocused();
  await expect(output).toHaveValue("She won the 1911 chemistry prize.");
  const before = await calls(page);
  await params.fill('{"pattern": "19[1-9]1", "regex": true}');
  await page.getByTestId("playground-try").click();
  const result = page.getByTestId("playground-result");
  await expect(result.getByTestId("playground-score")).toHaveText("1");
  await expect(result.getByTestId("playground-passed")).toHaveText("passes");
  await expect(result.getByTestId("playground-sample")).toContainText('found regex "19[1-9]1" at index 12');
  await params.fill('{"pattern": "1903"}');
  await page.getByTestId("playground-try").click();
  await expect(result.getByTestId("playground-score")).toHaveText("0");
  await expect(result.getByTestId("playground-passed")).toHaveText("fails");
  expect(await calls(page)).toBe(before); // no judge is called
});

// (a malformed percent-encoding, /criteria/%E0%A4%A, fails in Next's router before the page runs: the
// proxy has to answer it)
test("an unknown or odd criterion id is a 404 page, never a 500", async ({ page }) => {
  for (const url of ["/criteria/nope", "/criteria/Correctness", "/criteria/..%2F..%2Fetc"]) {
    const res = await page.goto(url);
    expect(res?.status(), url).toBe(404);
    await expect(page.getByTestId("not-found")).toBeVisible();
  }
});
