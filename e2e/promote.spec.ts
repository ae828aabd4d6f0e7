import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, startApp, stopApp } from "./app-server";
import { SCRATCH_DIR, SCRIPTED_PORT } from "./constants";
import { SettingsPage } from "./pages/settings-page";
import { resetStore, storeEnv } from "./store";

const DB = path.resolve(SCRATCH_DIR, "promote", "jury.db");
const env = {
  ...storeEnv(DB),
  JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1`,
  NEXT_TELEMETRY_DISABLED: "1",
};

function jury(args: string[], ok = [0]): string {
  const r = spawnSync("node", ["bin/jury.cjs", ...args], {
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, ...env },
  });
  if (!ok.includes(r.status ?? -1))
    throw new Error(`jury ${args.join(" ")} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

// its own server and database: promoting changes the settings every other spec reads
test("promoting what measured best: a study configuration (asked first, saying why) and a run's panel; the settings page shows where each came from and a hand edit marks it @pg", async ({
  page,
}) => {
  resetStore(DB);
  jury(["settings", "set", "providers.local.enabled", "true"]);
  jury(["memory", "import-study", "examples/memory-study", "--collection", "shop-api"]);
  jury(["memory", "experiment", "--kind", "bm25", "--collection", "shop-api", "--top-k", "4"]);
  const run = /"(run_\d{8}_[0-9a-f]{8})"/.exec(
    jury(["eval", "examples/suites/qa", "--judges", "local:llama3.1:8b", "--n", "1", "--json"], [0, 1]),
  )?.[1];
  expect(run).toBeTruthy();
  const cases = fs
    .readdirSync("examples/suites/qa/cases")
    .filter((f) => f.endsWith(".json"))
    .sort()
    .slice(0, 3)
    .map((f) => f.replace(/\.json$/, ""));
  for (const [i, c] of cases.entries())
    jury(["agreement", "label", run as string, c, "correctness", i === 0 ? "fail" : "pass"]);

  const port = await freePort();
  const app = await startApp({ port, db: DB, env });
  try {
    const base = `http://127.0.0.1:${port}`;
    // the study: one finished configuration, so not called best: the page asks first and says why
    await page.goto(`${base}/memory/shop-api`);
    const row = page.getByTestId("experiment-row").filter({ hasText: "BM25 · auto · top 4" });
    await row.getByTestId("promote-button").click();
    const confirm = row.getByTestId("promote-confirm");
    await expect(confirm).toBeVisible();
    await expect(confirm.getByTestId("promote-reason")).toContainText(
      "not enough evidence: only one finished configuration has a precision",
    );
    // the figures themselves, in front of the person
    await expect(confirm.getByTestId("promote-figures")).toContainText(
      /^Figures: precision \d+ % \[\d+–\d+ %\] n=20 · recall \d+ % \[\d+–\d+ %\] n=18 · kept \d+ memories over 20 queries$/,
    );
    await expect(confirm).toContainText(
      "collection shop-api · judge off (BM25 top-k) · auto mode: max 4 · fallback top 4",
    );
    await confirm.getByTestId("promote-confirm-yes").click();
    await expect(row.getByTestId("promote-in-use")).toHaveText("used by the hook");
    const exp = /exp_[0-9a-f]+/.exec((await row.textContent()) ?? "")?.[0];

    // the settings page: the memory judge as promoted, with its provenance
    const s = new SettingsPage(page);
    await page.goto(`${base}/settings`);
    await expect(s.field("memoryJudge.modes.auto.max_output")).toHaveValue("4");
    await expect(s.field("memoryJudge.fallback_top_k")).toHaveValue("4");
    const note = s.root.getByTestId("provenance-memoryJudge");
    await expect(note).toContainText(
      new RegExp(
        `from experiment ${exp} \\(BM25 · auto · top 4 .*\\) on \\d{4}-\\d\\d-\\d\\d by local: precision [01]\\.\\d\\d \\[[01]\\.\\d\\d, [01]\\.\\d\\d\\] n=20, recall [01]\\.\\d\\d \\[`,
      ),
    );
    await expect(note).not.toHaveAttribute("data-overridden", "true");

    // the agreement view: the run's panel becomes correctness' default panel
    await page.goto(`${base}/agreement/${run}`);
    const panelRow = page.getByTestId("criterion-correctness").getByTestId("run-agreement-row-panel");
    await panelRow.getByTestId("promote-criterion").click();
    // three labels: the page shows accuracy and κ with their intervals and n, and asks first
    const weak = panelRow.getByTestId("promote-confirm");
    await expect(weak.getByTestId("promote-reason")).toContainText(
      "It rests on 3 labelled cells (fewer than 10).",
    );
    await expect(weak.getByTestId("promote-figures")).toContainText(
      /^Figures: accuracy \d+ % \[\d+–\d+ %\] n=3 · Cohen's κ .* n=3 · answered 3 of 3 labelled cells$/,
    );
    await weak.getByTestId("promote-confirm-yes").click();
    await expect(panelRow.getByTestId("criterion-default")).toHaveText("default for correctness");
    await page.goto(`${base}/settings`);
    await expect(s.field("criteriaPanels.correctness.0")).toHaveValue("local:llama3.1:8b");
    await expect(s.root.getByTestId("provenance-criteriaPanels.correctness")).toContainText(
      new RegExp(
        `from run ${run} \\(the run's panel \\(local:llama3\\.1:8b\\) against people's labels on correctness · few labels, confirmed.*\\) on \\d{4}-\\d\\d-\\d\\d by local: accuracy [01]\\.\\d\\d \\[[01]\\.\\d\\d, [01]\\.\\d\\d\\] n=3`,
      ),
    );

    // a hand edit of a promoted value: said before saving, kept as "changed by hand" after
    await s.fill("memoryJudge.modes.auto.max_output", "5");
    await expect(note.getByTestId("provenance-edited")).toBeVisible();
    await s.save();
    await expect(s.status()).toHaveText("Saved.");
    await page.reload();
    await expect(note).toHaveAttribute("data-overridden", "true");
    await expect(note).toContainText(/changed by hand on \d{4}-\d\d-\d\d since/);
    // the other promotion is untouched
    await expect(s.root.getByTestId("provenance-criteriaPanels.correctness")).not.toHaveAttribute(
      "data-overridden",
      "true",
    );
    // who saved last, and the audit log it links to: the hand edit, both promotions, the CLI's save
    await expect(page.getByTestId("settings-saved-by")).toContainText(
      /^Last saved by local · \d{4}-\d\d-\d\d /,
    );
    await page.getByTestId("settings-saved-by").getByRole("link", { name: "Audit log" }).click();
    await expect(page).toHaveURL(/\/audit$/);
    const rows = page.getByTestId("audit-row");
    await expect(rows).toHaveCount(4);
    await expect(rows.nth(0)).toContainText("local");
    await expect(rows.nth(0).getByTestId("audit-detail")).toContainText(
      "memoryJudge.modes.auto.max_output: 4 → 5",
    );
    await expect(rows.nth(1).getByTestId("audit-action")).toHaveText("promoted a panel");
    await expect(rows.nth(2).getByTestId("audit-action")).toHaveText("promoted an experiment to the hook");
    await expect(rows.nth(3).getByTestId("audit-actor")).toHaveText(/ \(cli\)$/);
    await page.goto(`${base}/memory/shop-api`);
    await expect(row.getByTestId("promote-button")).toBeVisible();
  } finally {
    await stopApp(app);
  }
});
