import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { startScriptedServer } from "../lib/testing/scripted-server";
import { SCRATCH_DIR, SCRIPTED_PORT } from "./constants";
import { overflowingElements } from "./page-list";
import { RunPage, RunsPage } from "./pages/runs-page";
import { SettingsPage } from "./pages/settings-page";

test("change N in the settings modal, start a run, watch it progress, open its spread chart and a sample's reasoning @pg", async ({
  page,
}) => {
  // a run watched live, then labelled, undone and checked on two pages: over a minute on a loaded machine
  test.setTimeout(120_000);
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
  await expect(progress).toContainText(/of \d+ samples/);
  const total = Number((await progress.textContent())?.match(/of (\d+)/)?.[1]);
  await expect(page.getByTestId("run-status")).toHaveText("running");
  await expect(progress).not.toHaveText(`0 of ${total} samples`, { timeout: 15_000 });
  await expect(page.getByTestId("run-status")).toHaveText("done", { timeout: 45_000 });
  await expect(progress).toHaveText(`${total} of ${total} samples`);
  await expect(page.getByTestId("run-coverage")).toContainText("2 of 2 judges answered");

  // the verdict table, then one cell: the spread chart and each sample's reasoning
  await expect(page.getByTestId("results-table")).toBeVisible();
  const cell = page.locator('[data-testid^="cell-"][data-testid$="-correctness"]').first();
  await expect(cell.getByTestId("cell-coverage")).toHaveText("2 of 2 judges · 10 of 10 samples");
  await cell.click();
  await expect(page).toHaveURL(/criterion=correctness/);
  const chart = page.getByTestId("spread-chart");
  await expect(chart.locator("svg.recharts-surface[role=application]")).toBeVisible();
  // recharts' own legend names each judge and the means
  for (const name of ["mock:judge", "local:llama3.1:8b", "judge mean"])
    await expect(chart.locator(".recharts-legend-wrapper")).toContainText(name);
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
  // the cell names who labelled it: on a one-person dashboard, "local"
  await expect(page.getByTestId("human-label").getByTestId("label-author")).toHaveText("labelled by local");
  // the agreement page counts the labelled verdict, and its labels export names the author
  const cellUrl = page.url();
  const runId = /\/runs\/([^/?#]+)/.exec(cellUrl)?.[1];
  const labels = (await (await page.request.get(`/agreement/${runId}/labels?format=json`)).json()) as {
    passed: boolean;
    author: string;
  }[];
  expect(labels.map((l) => [l.passed, l.author])).toEqual([[true, "local"]]);
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

test("the start form after an invalid N: every other field keeps its value, the error sits at N with focus; fixed, the run started is the one typed", async ({
  page,
}) => {
  test.setTimeout(60_000);
  await setProviders(page, { mock: true, local: true });
  const runs = new RunsPage(page);
  await runs.goto();
  await runs.chooseSuite(/Question answering|QA/i);
  const form = page.getByTestId("start-run-form");
  const suite = await page.locator("#suiteDir").inputValue();
  // one judge ticked out of those offered, not the default set
  const boxes = form.locator('input[type="checkbox"][name="judges"]');
  const offered = await boxes.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
  expect(offered).toContain("mock:judge");
  expect(offered.length).toBeGreaterThan(1);
  for (const v of offered)
    await form.locator(`input[name="judges"][value="${v}"]`).setChecked(v === "mock:judge");
  const n = page.locator("#n");
  await n.fill("0");
  const before = await page.getByTestId("runs-table").locator("tbody tr").count();
  await page.getByTestId("start-run").click();

  // the server's error beside N, which has focus; nothing else moved
  const error = form.getByTestId("error-n");
  await expect(error).toHaveText("N must be at least 1");
  await expect(n).toBeFocused();
  await expect(n).toHaveAttribute("aria-invalid", "true");
  await expect(n).toHaveAttribute("aria-describedby", "error-n");
  await expect(error).toHaveAttribute("id", "error-n");
  await expect(n).toHaveValue("0");
  await expect(page.locator("#suiteDir")).toHaveValue(suite);
  for (const v of offered) {
    const box = form.locator(`input[name="judges"][value="${v}"]`);
    if (v === "mock:judge") await expect(box).toBeChecked();
    else await expect(box).not.toBeChecked();
  }
  await expect(page).toHaveURL(/\/runs$/);
  expect(await page.getByTestId("runs-table").locator("tbody tr").count()).toBe(before);

  // fixed: the run that starts is exactly the one typed, as the database holds it
  await n.fill("3");
  await runs.start();
  const runId = page.url().match(/\/runs\/(run_[^/?#]+)/)?.[1] ?? "";
  const shown = await jury(["runs", "show", runId, "--json"]);
  expect(shown.code, shown.stderr).toBe(0);
  const { run } = JSON.parse(shown.stdout) as { run: { options: { judges: string[]; n: number } } };
  expect(run.options.judges).toEqual(["mock:judge"]);
  expect(run.options.n).toBe(3);
  await expect(page.getByTestId("run-status")).toHaveText(/done/, { timeout: 45_000 });
});

test("a judge whose provider has no key: the run is refused before it starts, the form names the judge and the variable", async ({
  page,
}) => {
  await setProviders(page, { anthropic: true, local: true });
  try {
    const runs = new RunsPage(page);
    await runs.goto();
    await runs.chooseSuite(/Question answering|QA/i);
    const form = page.getByTestId("start-run-form");
    // the form starts from the last run's judges: tick the keyless one by hand
    await form.locator('input[value="anthropic:claude-sonnet-4-5"]').check();
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

/** A scratch suite of `cases` cases judged on correctness; `tag` makes its prompts new to the scripted server. */
function writeSuite(name: string, cases: number, tag: string): string {
  const suite = path.resolve(SCRATCH_DIR, name);
  fs.rmSync(suite, { recursive: true, force: true });
  fs.mkdirSync(path.join(suite, "cases"), { recursive: true });
  fs.writeFileSync(
    path.join(suite, "suite.json"),
    JSON.stringify({ name: `Triage ${tag}`, criteria: [{ id: "correctness", threshold: 5 }] }),
  );
  for (let i = 1; i <= cases; i++)
    fs.writeFileSync(
      path.join(suite, "cases", `c${i}.json`),
      JSON.stringify({
        id: `c${i}`,
        name: `Case ${i}`,
        input: { prompt: `${tag}: what is ${i} + ${i}?`, reference: `${2 * i}` },
        output: `It is ${2 * i}, "surely", as anyone can see.`,
      }),
    );
  return suite;
}

/** `jury <args>` against the e2e server's database. */
function jury(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/jury.cjs", ...args], {
      env: { ...process.env, JURY_DB: `${SCRATCH_DIR}/main/jury.db` },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** `jury eval` into the e2e server's database, against its scripted judge server. */
function juryEval(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/jury.cjs", "eval", ...args], {
      env: {
        ...process.env,
        JURY_DB: `${SCRATCH_DIR}/main/jury.db`,
        JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1`,
      },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test("triage: filter a run with transient failures to its failed cells by keyboard, retry them, see the cells update; the call inspector shows what the judge server received @pg", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  await setProviders(page, { local: true });
  // a "flaky…" model fails its first call of each prompt (an answer that is not JSON), then answers
  const tag = `triage-${Date.now()}`;
  const suite = writeSuite("triage-suite", 3, tag);
  const cli = await juryEval([suite, "--judges", "local:judge-ok,local:flaky-judge", "--n", "2", "--json"]);
  expect([0, 1], cli.stderr).toContain(cli.code);
  const out = JSON.parse(cli.stdout);
  expect(out.status).toBe("done_with_failures");
  const runId: string = out.run_id;

  const run = new RunPage(page);
  await run.goto(runId);
  await expect(run.runStatus()).toHaveText("done with failures");
  // the error summary: by judge and kind, the first message, a link to the cells
  const group = page.getByTestId("failure-group");
  await expect(group).toHaveCount(1);
  await expect(group).toContainText("local:flaky-judge");
  await expect(group).toContainText("invalid answer");
  await expect(group.getByRole("cell").nth(2)).toHaveText("3");

  // filter to failed samples from the keyboard: the URL says so, only failed cells remain
  await expect(run.status("failed")).toHaveText("Failed samples (3)");
  await run.filterByKeyboard("failed");
  await expect(page).toHaveURL(/status=failed/);
  await expect(run.status("all")).toHaveAttribute("aria-pressed", "false");
  for (const c of ["c1", "c2", "c3"])
    await expect(run.cell(c, "correctness").getByTestId("cell-coverage")).toHaveText(
      "2 of 2 judges · 3 of 4 samples (1 failed)",
    );
  // the judge filter, linked: the flaky judge's own failures
  await page.getByTestId("triage-judge").selectOption("local:flaky-judge");
  await expect(page).toHaveURL(/judge=local%3Aflaky-judge/);
  await expect(run.cell("c1", "correctness").getByTestId("cell-judge")).toContainText("1 failed");
  await page.getByTestId("triage-judge").selectOption("local:judge-ok");
  await expect(page.getByTestId("triage-empty")).toHaveText("No cell matches this filter.");
  await page.getByTestId("triage-judge").selectOption("");
  await expect(page).toHaveURL(/status=failed/);

  // retry: the run goes back through the job runner, the cells update when it is done
  await expect(page.getByTestId("retry-failed")).toHaveText("Retry 3 failed samples");
  await page.getByTestId("retry-failed").click();
  await expect(run.runStatus()).toHaveText("done", { timeout: 30_000 });
  await expect(page.getByTestId("triage-empty")).toBeVisible(); // no failed cell left
  await expect(run.status("failed")).toHaveText("Failed samples (0)");
  await run.filterByKeyboard("all");
  for (const c of ["c1", "c2", "c3"])
    await expect(run.cell(c, "correctness").getByTestId("cell-coverage")).toHaveText(
      "2 of 2 judges · 4 of 4 samples",
    );
  await expect(page.getByTestId("run-failures")).toHaveCount(0);
  // the failed sample is kept, marked retried
  await run.cell("c1", "correctness").click();
  await expect(page).toHaveURL(/case=c1&criterion=correctness/);
  await expect(page.getByTestId("sample")).toHaveCount(4);
  const old = page.getByTestId("superseded-samples");
  await old.locator(":scope > summary").click();
  await expect(old.getByTestId("superseded-reason")).toContainText("retried");
  await expect(old.getByTestId("superseded-sample")).toContainText("Failed (not scored)");

  // the call inspector: the exact messages, checked against what the scripted server received
  const ok = page.getByTestId("sample").filter({ hasText: "local:judge-ok" }).first();
  await ok.getByTestId("inspect-call").click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}/samples/\\d+$`));
  await expect(page.getByTestId("request-check")).toHaveAttribute("data-check", "verified");
  await expect(page.getByTestId("request-model")).toHaveText("judge-ok");
  const system = await page.getByTestId("message-system").textContent();
  const user = await page.getByTestId("message-user").textContent();
  expect(user).toContain(`${tag}: what is 1 + 1?`);
  const log = (await (await request.get(`http://127.0.0.1:${SCRIPTED_PORT}/__requests?full=1`)).json()) as {
    requests: {
      model: string;
      messages: { role: string; content: string }[];
      body: { temperature: number };
    }[];
  };
  const received = log.requests.filter(
    (r) => r.model === "judge-ok" && r.messages.some((m) => m.role === "user" && m.content === user),
  );
  expect(received.length).toBeGreaterThan(0);
  expect(received[0].messages).toEqual([
    { role: "system", content: system },
    { role: "user", content: user },
  ]);
  await expect(page.getByTestId("request-temperature")).toHaveText(String(received[0].body.temperature));
  await expect(page.getByTestId("raw-response")).toContainText('"score"');
  await expect(page.getByTestId("response-cached")).toBeVisible();
  await expect(page.getByTestId("response-attempts")).toContainText(/\d+ \(\d+ retr(y|ies)\)/);

  // the inspector is readable by everyone and fits a phone
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21aa"]).analyze();
  expect(
    violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id),
  ).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await overflowingElements(page)).toEqual([]);
});

test("re-sample one item: new samples from the judges, the old ones kept and marked", async ({ page }) => {
  test.setTimeout(90_000);
  await setProviders(page, { local: true });
  const tag = `resample-${Date.now()}`;
  const cli = await juryEval([
    writeSuite("resample-suite", 1, tag),
    "--judges",
    "local:judge-ok",
    "--n",
    "2",
    "--json",
  ]);
  expect([0, 1], cli.stderr).toContain(cli.code); // 1: the verdict may fail; it is re-sampled either way
  const runId: string = JSON.parse(cli.stdout).run_id;
  const run = new RunPage(page);
  await run.goto(runId, "?case=c1&criterion=correctness");
  await expect(page.getByTestId("sample")).toHaveCount(2);
  const before = await page
    .getByTestId("sample")
    .evaluateAll((els) => els.map((e) => e.getAttribute("data-sample-id")));
  await page.getByTestId("resample-item").click();
  await expect(page.getByRole("status").filter({ hasText: "2 new samples asked for." })).toBeVisible();
  // the old samples are set apart at once; the new ones land when the run is done again
  const old = page.getByTestId("superseded-samples");
  await expect(old).toBeVisible({ timeout: 15_000 });
  await expect(run.runStatus()).toHaveText("done", { timeout: 30_000 });
  await expect
    .poll(
      async () =>
        (
          await page
            .getByTestId("sample")
            .evaluateAll((els) => els.map((e) => e.getAttribute("data-sample-id")))
        ).filter((id) => !before.includes(id)).length,
      { timeout: 30_000 },
    )
    .toBe(2);
  await expect(page.getByTestId("sample")).toHaveCount(2);
  // asked anew, not taken from the cache
  await expect(page.getByTestId("sample").filter({ hasText: "cached" })).toHaveCount(0);
  await old.locator(":scope > summary").click();
  await expect(old.getByTestId("superseded-sample")).toHaveCount(2);
  await expect(old.getByTestId("superseded-reason").first()).toContainText("re-sampled");
});

test("the runs list patches a running run's row in place (no reload) and aligns status, answered, coverage, failures and cost", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await setProviders(page, { local: true });
  const tag = `list-${Date.now()}`;
  // enough calls at the scripted server's 150 ms to stay running for a few seconds
  const running = juryEval([
    writeSuite("list-suite", 8, tag),
    "--judges",
    "local:judge-a,local:judge-b",
    "--n",
    "5",
    "--concurrency",
    "2",
    "--json",
  ]);
  const row = page.locator('[data-testid^="run-row-"]', { hasText: `Triage ${tag}` });
  // the CLI stores the run within a second or two: load the list once it is there
  await expect(async () => {
    await page.goto("/runs");
    await expect(row).toBeVisible({ timeout: 500 });
  }).toPass({ timeout: 20_000 });
  await expect(row.getByTestId("run-status")).toHaveText(/queued|running/);
  await page.evaluate(() => {
    (window as unknown as { __notReloaded: boolean }).__notReloaded = true;
  });
  const first = await row.getByTestId("run-answered").textContent();
  await expect(row.getByTestId("run-answered")).not.toHaveText(first ?? "", { timeout: 20_000 });
  await expect(row.getByTestId("run-status")).toHaveText("done", { timeout: 45_000 });
  expect(await page.evaluate(() => (window as unknown as { __notReloaded?: boolean }).__notReloaded)).toBe(
    true,
  );
  await expect(row.getByTestId("run-answered")).toHaveText("80 / 80");
  await expect(row.getByTestId("run-coverage-pct")).toHaveText("100%");
  await expect(row.getByTestId("run-failed")).toHaveText("0");
  await expect(row.getByTestId("run-cost")).toHaveText(/^(\$\d+\.\d{4}|unpriced|\$\d+\.\d{4} \+ unpriced)$/);
  const out = await running;
  expect([0, 1], out.stderr).toContain(out.code); // 1: a verdict failed, which the list does not care about
  // status, answered and cost are separate, right-aligned cells
  for (const id of ["run-answered", "run-coverage-pct", "run-failed", "run-cost"])
    expect(await row.getByTestId(id).evaluate((el) => getComputedStyle(el).textAlign)).toBe("right");
});

test("a run with more cases than a page: 50 cases shown, the pager says which, page 2 (by keyboard) shows the next ones and a cell there keeps its page", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await setProviders(page, { local: true });
  const suite = writeSuite("pager-suite", 60, `pager-${Date.now()}`);
  const cli = await juryEval([suite, "--judges", "local:judge-ok", "--n", "1", "--json"]);
  expect([0, 1], cli.stderr).toContain(cli.code);
  const out = JSON.parse(cli.stdout);
  // the table is in case id order: c1, c10, c11, …
  const ids = Array.from({ length: 60 }, (_, i) => `c${i + 1}`).sort();
  const rowIds = () =>
    page
      .locator('[data-testid^="case-row-"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-testid")));

  await page.goto(`/runs/${out.run_id}`);
  const rows = page.locator('[data-testid^="case-row-"]');
  await expect(rows).toHaveCount(50);
  expect(await rowIds()).toEqual(ids.slice(0, 50).map((id) => `case-row-${id}`));
  const pager = page.getByTestId("case-pager");
  await expect(pager.getByTestId("pager-range")).toHaveText("cases 1–50 of 60 · page 1 of 2");
  await expect(page.locator("#verdicts")).toContainText("cases 1–50 of 60");
  // the run-wide figures rest on every case, not the page's
  await expect(page.getByTestId("run-coverage")).toHaveText("1 of 1 judge answered · 60 of 60 samples");

  // by keyboard: the Next link takes focus and Enter opens page 2
  await pager.getByTestId("pager-next").focus();
  await expect(pager.getByTestId("pager-next")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/[?&]page=2/);
  await expect(rows).toHaveCount(10);
  expect(await rowIds()).toEqual(ids.slice(50).map((id) => `case-row-${id}`));
  await expect(pager.getByTestId("pager-range")).toHaveText("cases 51–60 of 60 · page 2 of 2");
  await expect(pager.getByTestId("pager-next")).toHaveCount(0);

  // a cell on page 2 opens with the page kept
  await page.getByTestId(`cell-${ids[55]}-correctness`).click();
  await expect(page).toHaveURL(new RegExp(`case=${ids[55]}.*page=2|page=2.*case=${ids[55]}`));
  await expect(rows).toHaveCount(10);
  await expect(page.locator("#cell")).toContainText(
    `Case ${ids[55].slice(1)} · correctness: 1 of 1 samples answered`,
  );

  // back to page 1, the selected cell kept
  await pager.getByTestId("pager-prev").focus();
  await page.keyboard.press("Enter");
  await expect(page).not.toHaveURL(/page=/);
  await expect(rows).toHaveCount(50);
  await expect(page.locator("#cell")).toContainText(`Case ${ids[55].slice(1)}`);
});
