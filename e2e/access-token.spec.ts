import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startApp, stopApp } from "./app-server";
import { SCRATCH_DIR } from "./constants";

const TOKEN = "jury-test-token-0123456789abcdef";

test("bound beyond loopback, the server refuses to start without an access token, then requires it", async ({
  page,
  request,
}) => {
  const refused = spawnSync("npm", ["start"], {
    env: { ...process.env, JURY_HOST: "0.0.0.0", PORT: "3192", JURY_ACCESS_TOKEN: "" },
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(refused.status).toBe(2);
  expect(refused.stderr).toContain("refusing to listen on 0.0.0.0 without JURY_ACCESS_TOKEN");

  const port = 3193;
  const app = await startApp({
    port,
    db: path.resolve(SCRATCH_DIR, "token", "jury.db"),
    env: { JURY_HOST: "0.0.0.0", JURY_ACCESS_TOKEN: TOKEN },
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    expect((await request.get(`${base}/settings`)).status()).toBe(401);
    expect(
      (
        await request.get(`${base}/settings`, {
          headers: { authorization: "Bearer wrong-token-wrong-token" },
        })
      ).status(),
    ).toBe(401);
    expect(
      (await request.get(`${base}/settings`, { headers: { authorization: `Bearer ${TOKEN}` } })).status(),
    ).toBe(200);
    // a person opens the link once with ?token=, then browses with the cookie it sets
    await page.goto(`${base}/runs?token=${TOKEN}`);
    await expect(page).toHaveURL(`${base}/runs`);
    // the cookie is an HMAC of the token, never the token itself
    const [cookie] = (await page.context().cookies(base)).filter((c) => c.name === "jury_token");
    expect(cookie.value).toMatch(/^[0-9a-f]{64}$/);
    expect(cookie.value).not.toContain(TOKEN);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", secure: false });
    expect(
      (await request.get(`${base}/settings`, { headers: { authorization: `Token ${TOKEN}` } })).status(),
    ).toBe(401);
    await page.goto(`${base}/settings`);
    await expect(page.getByTestId("settings-form")).toBeVisible();
  } finally {
    await stopApp(app);
  }
});
