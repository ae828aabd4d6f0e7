import { expect, test } from "@playwright/test";
import { CANARY_KEY } from "./constants";

const pages = ["/", "/runs", "/memory", "/reviews", "/criteria", "/settings"];

test("no page's HTML, RSC payload or JS chunk contains the API key", async ({ page, request }) => {
  // it visits every page the specs before it stored (runs, their call inspectors and exports, studies,
  // reviews): in the whole suite that ran past the 60 s default (timed out at 60 s in CI)
  test.setTimeout(180_000);
  const bodies: { url: string; body: string }[] = [];
  page.on("response", async (res) => {
    try {
      bodies.push({ url: res.url(), body: await res.text() });
    } catch {}
  });
  // the list pages, then every detail page they link to (runs, studies and reviews that earlier specs stored,
  // when the whole suite runs: files run in alphabetical order)
  const visit = [...pages];
  for (const p of pages) {
    await page.goto(p);
    for (const href of await page
      .locator('a[href^="/runs/run_"], a[href^="/memory/"], a[href^="/reviews/rev_"]')
      .evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""))) {
      if (href && !visit.includes(href)) visit.push(href);
    }
  }
  // each run page's call inspectors (a few per run: a model call and a deterministic check) and its exports
  for (const p of visit.filter((v) => v.startsWith("/runs/run_"))) {
    await page.goto(p);
    const inspectors = await page
      .locator('a[href*="/samples/"]')
      .evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
    for (const href of inspectors.slice(0, 3)) if (href && !visit.includes(href)) visit.push(href);
    for (const format of ["csv", "json"]) {
      const url = `${p.split("?")[0]}/export?format=${format}`;
      const res = await request.get(url);
      expect(res.status(), url).toBe(200);
      bodies.push({ url, body: await res.text() });
    }
  }
  // with runs stored (the whole suite runs: runs.spec comes first), their call inspectors are visited
  if (visit.some((v) => v.startsWith("/runs/run_")))
    expect(visit.some((v) => /\/runs\/run_[^/]+\/samples\/\d+$/.test(v))).toBe(true);
  for (const p of visit) {
    await page.goto(p);
    await page.waitForLoadState("networkidle");
    // the RSC payload, as the client router fetches it
    const rsc = await request.get(p, { headers: { RSC: "1" } });
    bodies.push({ url: `${p} (RSC)`, body: await rsc.text() });
  }
  // every JS chunk the pages referenced
  const chunkUrls = new Set<string>();
  for (const b of bodies)
    for (const m of b.body.matchAll(/\/_next\/static\/[^"'\s)]+\.js/g)) chunkUrls.add(m[0]);
  for (const u of chunkUrls) bodies.push({ url: u, body: await (await request.get(u)).text() });

  expect(bodies.length).toBeGreaterThan(visit.length * 2);
  expect(chunkUrls.size).toBeGreaterThan(0);
  const leaks = bodies.filter((b) => b.body.includes(CANARY_KEY)).map((b) => b.url);
  expect(leaks).toEqual([]);

  // the settings page does say the key is present
  await page.goto("/settings");
  await expect(page.getByTestId("key-status").locator("li", { hasText: "OPENAI_API_KEY" })).toContainText(
    "set",
  );
});
