// Regenerates the README's screenshots from real pages: a scratch database seeded through the CLI
// against the scripted judge server (one of the three judges is down, so the run has failures),
// the built dashboard on its own port, Debian's Chromium. Run after `npm run build`:
//   node scripts/screenshots.mjs            writes docs/*.png
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";

const root = path.resolve(import.meta.dirname, "..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-shots-"));
const chromiumPath = execFileSync("bash", [path.join(root, "scripts/ensure-chromium.sh")], {
  encoding: "utf8",
}).trim();

const children = [];
process.on("exit", () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
});

/** Starts a process and resolves with its first stdout line that parses as JSON. */
function startJson(cmd, args, env) {
  const child = spawn(cmd, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let buf = "";
    child.stdout.on("data", (d) => {
      buf += d;
      const line = buf.split("\n").find((l) => l.trim().startsWith("{"));
      if (line) resolve(JSON.parse(line));
    });
    child.on("exit", (code) => reject(new Error(`${cmd} exited ${code}`)));
  });
}

const scripted = await startJson(process.execPath, [path.join(root, "dist/scripted-server.mjs")], {
  SCRIPTED_LATENCY_MS: "20",
});
const env = {
  ...process.env,
  JURY_DB: path.join(dir, "jury.db"),
  JURY_LOCAL_BASE_URL: scripted.baseURL,
  NEXT_TELEMETRY_DISABLED: "1",
};
const jury = (...args) => {
  try {
    return execFileSync(process.execPath, [path.join(root, "bin/jury.cjs"), ...args], {
      cwd: root,
      env,
      encoding: "utf8",
    });
  } catch (err) {
    // jury eval exits 3 when a verdict rests on no answer: expected here, its output is what we need
    if (err.status === 1 || err.status === 3) return err.stdout;
    throw err;
  }
};

jury("settings", "set", "providers.local.enabled", "true");
jury("settings", "set", "providers.local.models", '["judge-a","judge-b","down-c"]');
jury("settings", "set", "judging.maxRetries", "0");
const run = JSON.parse(
  jury(
    "eval",
    "examples/suites/qa",
    "--judges",
    "local:judge-a,local:judge-b,local:down-c",
    "--n",
    "3",
    "--json",
  ),
);
jury("memory", "import-study", "examples/memory-study", "--collection", "shop-api");
jury(
  "memory",
  "experiment",
  "--collection",
  "shop-api",
  "--kind",
  "bm25",
  "--mode",
  "search",
  "--top-k",
  "3",
);
jury("memory", "experiment", "--collection", "shop-api", "--kind", "single", "--model", "local:judge-a");

const port = 3000 + Math.floor(Math.random() * 2000) + 2000;
const app = spawn(
  process.execPath,
  [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
  {
    cwd: root,
    env: { ...env, PORT: String(port), JURY_HOST: "127.0.0.1" },
    stdio: "ignore",
  },
);
children.push(app);
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 240; i++) {
  try {
    if ((await fetch(base)).ok) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 250));
}

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const shots = [
  ["run.png", `/runs/${run.run_id}`, true],
  ["home.png", "/", false],
  ["study.png", "/memory/shop-api", true],
  ["settings.png", "/settings", false],
];
fs.mkdirSync(path.join(root, "docs"), { recursive: true });
for (const [file, url, full] of shots) {
  await page.goto(base + url);
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: path.join(root, "docs", file), fullPage: full });
  console.log(`docs/${file} ← ${url}`);
}
await browser.close();
process.exit(0);
