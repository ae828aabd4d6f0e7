import { chromium } from "@playwright/test";

const b = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
});
const p = await b.newPage({ viewport: { width: 1280, height: 900 } });
await p.goto(process.argv[2]);
await p.waitForLoadState("networkidle");
await p.screenshot({ path: process.argv[3], fullPage: process.argv[4] === "full" });
await b.close();
