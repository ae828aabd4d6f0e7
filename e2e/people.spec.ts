import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { type Browser, expect, type Page, test } from "@playwright/test";
import { actionId, freePort, requireBuild, startApp, stopApp } from "./app-server";
import { SCRATCH_DIR } from "./constants";

// Two annotators on one dashboard: each signs in with their own token (one through the sign-in form,
// which must keep the browser on 127.0.0.1, one with ?token=), both label the same memories of a
// study query in their own browser; every history entry names its author and the study shows the
// agreement between them (κ with n). An annotator is refused the settings page (403) and a settings
// save sent as a server action changes nothing.

const ANA = [true, true, true, false, false, false];
const BO = [true, true, false, false, false, true];

function addUser(db: string, name: string): string {
  const r = spawnSync("node", ["bin/jury.cjs", "users", "add", name, "--role", "annotator"], {
    env: { ...process.env, JURY_DB: db },
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

async function signedIn(browser: Browser, base: string, token: string, viaForm: boolean): Promise<Page> {
  const page = await (await browser.newContext({ baseURL: base })).newPage();
  if (viaForm) {
    await page.goto("/memory");
    // signed out: sent to the sign-in form, which comes back to /memory on this same host
    await expect(page).toHaveURL(`${base}/sign-in?next=%2Fmemory`);
    await page.getByLabel("Your token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${base}/memory`);
  } else {
    await page.goto(`/memory?token=${token}`);
    await expect(page).toHaveURL(`${base}/memory`);
  }
  return page;
}

/** Labels the first pooled memories of the open annotate page, one click each, waiting for each save. */
async function label(page: Page, marks: boolean[]) {
  const count = page.getByTestId("history-count");
  const start = Number(/^(\d+)/.exec(((await count.textContent()) ?? "").trim())?.[1]);
  for (const [i, relevant] of marks.entries()) {
    const item = page.getByTestId("pool-item").nth(i);
    await item.getByRole("button", { name: relevant ? "relevant (y)" : "not (n)" }).click();
    await expect(item).toHaveAttribute("data-state", relevant ? "relevant" : "not-relevant");
    // every click is one history entry, a second person's same label included
    await expect(count).toContainText(`${start + i + 1} change`);
  }
}

test("two annotators label the same study; authors and the agreement between them show; settings are refused", async ({
  browser,
}) => {
  requireBuild("e2e/people.spec.ts");
  const dir = path.resolve(SCRATCH_DIR, "people");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const db = path.join(dir, "jury.db");
  const anaToken = addUser(db, "ana");
  const boToken = addUser(db, "bo");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = await startApp({ port, db });
  try {
    const ana = await signedIn(browser, base, anaToken, true);
    const bo = await signedIn(browser, base, boToken, false);

    // ana brings in the example study and ranks it with BM25, so its queries have pooled memories
    await ana.getByTestId("import-example-study").click();
    await expect(ana).toHaveURL(`${base}/memory/shop-api`);
    await ana.getByTestId("experiment-kind").selectOption("bm25");
    await ana.getByTestId("run-experiment").click();
    await expect(ana.getByTestId("experiment-row").first()).toContainText(" · done", { timeout: 30_000 });

    await ana.goto("/memory/shop-api/annotate?q=q01");
    await expect(ana.getByTestId("pool-item")).not.toHaveCount(0);
    await label(ana, ANA);
    await bo.goto("/memory/shop-api/annotate?q=q01");
    await label(bo, BO);

    // the history names who made each change, newest first: bo's six, then ana's six
    await bo.reload();
    const authors = bo.getByTestId("history-entry").getByTestId("history-author");
    await expect(authors).toHaveText([...Array(6).fill("bo"), ...Array(6).fill("ana")], {
      timeout: 10_000,
    });
    // a same label from the second person says so
    await expect(bo.getByTestId("history-entry").first()).toContainText("by bo");

    // the study: both people, and κ between them on the 6 memories both labelled:
    // 4 of 6 agree, 3 relevant each → κ = (4/6 − 1/2) / (1/2) = 0.33
    await ana.goto("/memory/shop-api");
    const card = ana.getByTestId("people-agreement");
    await expect(card.getByTestId("person-row")).toHaveCount(2);
    await expect(card.locator('[data-testid="person-row"][data-person="ana"]')).toContainText("6");
    const pair = card.locator('[data-testid="people-pair"][data-a="ana"][data-b="bo"]');
    await expect(pair.getByTestId("people-pair-figure")).toContainText(
      /κ 0\.33 \[[-−]?\d\.\d\d–\d\.\d\d\] n=6/,
    );
    await expect(pair.getByTestId("people-pair-figure")).toContainText("agree 66.7%");
    // the labels export names who gave each label
    const csv = await (await ana.request.get("/memory/shop-api/export?what=labels")).text();
    expect(csv.split("\r\n")[0]).toContain(",source,author,updated_at");
    expect(csv.split("\r\n").filter((l) => l.includes(",human,bo,")).length).toBeGreaterThanOrEqual(3);

    // an annotator asks for the settings page: a refusal page, 403
    const refused = await bo.goto("/settings");
    expect(refused?.status()).toBe(403);
    await expect(bo.locator("body")).toContainText(
      "this needs an admin; you are signed in as bo (annotator)",
    );
    // and a settings save sent as a server action from a page they may use is refused, nothing saved
    const session = (await bo.context().cookies(base)).find((c) => c.name === "jury_session");
    expect(session).toBeTruthy();
    const form = new FormData();
    form.append("_1_judges.models", "local:evil");
    form.append("0", '[null,"$K1"]');
    const save = await fetch(`${base}/memory`, {
      method: "POST",
      headers: {
        "next-action": actionId("app/actions/settings.ts", "saveSettings"),
        accept: "text/x-component",
        origin: base,
        cookie: `jury_session=${session?.value}`,
      },
      body: form,
    });
    const reply = await save.text();
    expect(reply).toContain('"status":403');
    expect(reply).toContain("This needs an admin; you are signed in as bo (annotator). Nothing was changed.");
  } finally {
    await stopApp(app);
  }
});
