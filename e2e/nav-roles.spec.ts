import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, startApp, stopApp } from "./app-server";
import { SCRATCH_DIR } from "./constants";
import { resetStore, storeEnv } from "./store";

// What a role sees: Settings and Audit in the navigation and the runs page's Judge settings button
// are an admin's; a viewer and an annotator see neither (and the server refuses the pages anyway); the
// start-run form is an annotator's, and a link to Settings where no judge is enabled an admin's.
const DB = path.resolve(SCRATCH_DIR, "nav-roles", "jury.db");

function addUser(name: string, role: string): string {
  const r = spawnSync(process.execPath, ["bin/jury.cjs", "users", "add", name, "--role", role], {
    env: { ...process.env, ...storeEnv(DB) },
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

test("the navigation and the runs page show the admin's entries to admins only @pg", async ({ browser }) => {
  resetStore(DB);
  const tokens = {
    admin: addUser("ayse", "admin"),
    annotator: addUser("bo", "annotator"),
    viewer: addUser("cy", "viewer"),
  };
  const port = await freePort();
  const app = await startApp({ port, db: DB, env: storeEnv(DB) });
  try {
    for (const [role, token] of Object.entries(tokens)) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${port}/runs?token=${token}`);
      await expect(page.getByTestId("signed-in-as")).toContainText(role);
      const nav = page.getByRole("navigation", { name: "Main" });
      await expect(nav.getByRole("link", { name: "Runs" })).toBeVisible();
      const admin = role === "admin";
      await expect(nav.getByRole("link", { name: "Settings" })).toHaveCount(admin ? 1 : 0);
      await expect(nav.getByRole("link", { name: "Audit" })).toHaveCount(admin ? 1 : 0);
      await expect(page.getByTestId("open-settings-modal")).toHaveCount(admin ? 1 : 0);
      // a viewer reads runs but cannot start one: no form, a line that says who can
      const viewer = role === "viewer";
      await expect(page.getByTestId("start-run-form")).toHaveCount(viewer ? 0 : 1);
      await expect(page.getByTestId("start-run-refused")).toHaveCount(viewer ? 1 : 0);
      // a criterion's playground with no judge enabled says where judges are enabled; only an admin
      // gets a link there (the others would get a 403)
      await page.goto(`http://127.0.0.1:${port}/criteria/conciseness`);
      const none = page.getByTestId("playground-no-judges");
      await expect(none).toBeVisible();
      await expect(none.getByRole("link", { name: "Settings" })).toHaveCount(admin ? 1 : 0);
      if (!admin) await expect(none).toContainText("an admin enables");
      const settings = await page.request.get(`http://127.0.0.1:${port}/settings`);
      expect(settings.status(), `${role} opens /settings`).toBe(admin ? 200 : 403);
      await context.close();
    }
  } finally {
    await stopApp(app);
  }
});
