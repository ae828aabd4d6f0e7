// The npm package as a user gets it: `npm pack` of this checkout, installed into an empty folder with
// no repository above it and HOME pointed at a scratch folder; there, with no checkout, build or dev
// dependency: `jury --version`, `jury eval` of the package's example suite against the scripted
// server, `jury ui` serving the home page and that run's page in Chromium and stopping on Ctrl-C
// (SIGINT), `jury memory import-example`, then the plugin's hook command (as hooks.json writes it)
// from a copy of the plugin folder in a Claude Code-like cache, fed a UserPromptSubmit input.
// JURY_PACKAGE_NODE (and JURY_PACKAGE_NODEDIR, its headers) run the install and the package on
// another Node: scripts/node24.mjs runs this spec on Node 24. Sizes and times are printed.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { SCRIPTED_PORT } from "./constants";

const root = path.resolve(__dirname, "..");
const NODE = process.env.JURY_PACKAGE_NODE || process.execPath;
const NODEDIR = process.env.JURY_PACKAGE_NODEDIR;
const version = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version;
const fixture = fs.readFileSync(path.join(root, "lib/memory/fixtures/user-prompt-submit.json"));

type Env = Record<string, string | undefined>;
/** An environment for a child process (Next augments ProcessEnv with NODE_ENV, which these leave as they find it). */
const asEnv = (e: Env) => e as NodeJS.ProcessEnv;
type Run = { status: number | null; stdout: string; stderr: string; ms: number };

function du(p: string): number {
  const st = fs.lstatSync(p);
  if (!st.isDirectory()) return st.size;
  return fs.readdirSync(p).reduce((n, e) => n + du(path.join(p, e)), 0);
}

/**
 * better-sqlite3 12 installs through prebuild-install: a prebuilt addon downloaded from GitHub, which
 * this machine cannot reach, so npm compiles it (a minute or more). Once compiled, its addon is kept
 * here in prebuild-install's own format, and installs take it as a local prebuild instead (as a user's
 * download would): the first run on a machine compiles, later ones do not.
 */
const PREBUILDS = path.join(
  process.env.JURY_TEST_CACHE ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "jury-test"),
  "prebuilds",
);

/** Where the kept addon of better-sqlite3 12 for the Node under test goes (prebuild-install's file name). */
function prebuildFile(): string {
  const { version } = JSON.parse(
    fs.readFileSync(path.join(root, "node_modules", "better-sqlite3", "package.json"), "utf8"),
  );
  const abi = spawnSync(NODE, ["-p", "process.versions.modules"], { encoding: "utf8" }).stdout.trim();
  return path.join(
    PREBUILDS,
    `better-sqlite3-v${version}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`,
  );
}

/** Keeps the addon an install compiled, for the next installs. */
function keepPrebuild(modules: string): void {
  const dir = path.join(modules, "better-sqlite3");
  const file = prebuildFile();
  if (fs.existsSync(file) || !fs.existsSync(path.join(dir, "build", "Release", "better_sqlite3.node")))
    return;
  fs.mkdirSync(PREBUILDS, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  spawnSync("tar", ["czf", tmp, "-C", dir, "build/Release/better_sqlite3.node"]);
  fs.renameSync(tmp, file);
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

test.describe("the npm package, installed", () => {
  test.describe.configure({ mode: "serial", timeout: 15 * 60_000 });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "jury-package-"));
  const home = path.join(work, "home");
  const app = path.join(work, "app");
  const bin = path.join(app, "node_modules", ".bin");
  /** The user's environment: a fresh HOME, the Node under test first on PATH, no Jury variable. */
  const env: Env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(JURY_|XDG_DATA_HOME$)/.test(k))),
    HOME: home,
    PATH: [path.dirname(NODE), process.env.PATH].join(path.delimiter),
    // npm's own download cache, as it was before HOME moved: the install fetches what it lacks
    npm_config_cache: process.env.npm_config_cache || path.join(os.homedir(), ".npm"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    ...(NODEDIR ? { npm_config_nodedir: NODEDIR } : {}),
    npm_config_better_sqlite3_local_prebuilds: PREBUILDS,
  };
  const run = (
    cmd: string,
    args: string[],
    opts: { cwd?: string; input?: Buffer; extra?: Env } = {},
  ): Run => {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, {
      cwd: opts.cwd ?? app,
      input: opts.input,
      env: asEnv({ ...env, ...opts.extra }),
      encoding: "utf8",
      timeout: 10 * 60_000,
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - t0 };
  };
  const jury = (args: string[], extra?: Env) => run(path.join(bin, "jury"), args, { extra });
  let tarball = "";
  let runId = "";

  test.afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  test("pack, then install into an empty folder with no repository above it", async () => {
    fs.mkdirSync(home);
    fs.mkdirSync(app);
    // prepack assembles dashboard/ from the build npm test has just made (and refuses a stale one)
    const pack = run("npm", ["pack", "--pack-destination", work], {
      cwd: root,
      extra: { JURY_PACK_NO_BUILD: "1" },
    });
    expect(pack.status, pack.stderr).toBe(0);
    tarball = path.join(work, pack.stdout.trim().split("\n").pop() as string);
    expect(fs.existsSync(tarball)).toBe(true);
    expect(run("git", ["rev-parse", "--show-toplevel"]).status).not.toBe(0); // no repository above
    fs.writeFileSync(
      path.join(app, "package.json"),
      '{ "name": "someone-elses-project", "private": true }\n',
    );
    const prebuilt = fs.existsSync(prebuildFile());
    const install = run("npm", ["install", tarball]);
    expect(install.status, install.stderr).toBe(0);
    // no dev dependency came along: the CLI is bundled, the dashboard prebuilt
    for (const dev of ["typescript", "vitest", "@playwright/test", "esbuild", "drizzle-kit"])
      expect(fs.existsSync(path.join(app, "node_modules", dev)), dev).toBe(false);
    const node = spawnSync(NODE, ["--version"], { encoding: "utf8" }).stdout.trim();
    keepPrebuild(path.join(app, "node_modules"));
    console.log(
      `package (${node}): tarball ${mb(fs.statSync(tarball).size)}; installed node_modules ${mb(du(path.join(app, "node_modules")))}` +
        ` (jury itself ${mb(du(path.join(app, "node_modules", "jury")))}); npm install took ${(install.ms / 1000).toFixed(1)} s` +
        ` (better-sqlite3 12 ${prebuilt ? "from the kept prebuild" : "compiled"})`,
    );
  });

  test("jury --version, then jury eval of the package's example suite against the scripted server", async () => {
    const v = jury(["--version"]);
    expect(v).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: "" });
    const local = { JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1` };
    expect(jury(["settings", "set", "providers.local.enabled", "true"], local).status).toBe(0);
    const suite = path.join(app, "node_modules", "jury", "examples", "suites", "qa");
    const r = jury(["eval", suite, "--judges", "local:scripted-judge", "--n", "1"], local);
    // 0 when every verdict passes, 1 when one fails: both are a finished run, never a crash (134)
    expect([0, 1], r.stderr).toContain(r.status);
    runId = /run (run_[0-9a-z_]+) done/.exec(r.stdout)?.[1] ?? "";
    expect(runId, r.stdout).not.toBe("");
    expect(r.stdout).toContain("1 of 1 judge answered");
    // the per-user default database, under the scratch HOME
    const where = jury(["db", "migrate"]);
    expect(where.stdout).toBe(`Database ready: ${path.join(home, ".local", "share", "jury", "jury.db")}\n`);
  });

  test("jury ui serves the home page and the run's page, then stops on Ctrl-C", async ({ page }) => {
    const port = await freePort();
    const child: ChildProcess = spawn(path.join(bin, "jury"), ["ui", "--port", String(port)], {
      cwd: app,
      env: asEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (d) => (out += d));
    child.stderr?.on("data", (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      await expect
        .poll(() => out, { timeout: 60_000 })
        .toContain(`Jury dashboard: http://127.0.0.1:${port}/`);
      await page.goto(`http://127.0.0.1:${port}/`);
      await expect(page).toHaveTitle(/Jury/);
      // the run jury eval just stored, listed among the recent runs
      await expect(page.getByTestId("recent-run").first()).toBeVisible();
      await page.goto(`http://127.0.0.1:${port}/runs/${runId}`);
      await expect(page.getByTestId("run-status")).toHaveText(/done/);
      await expect(page.locator("body")).toContainText("local:scripted-judge");
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited, out).toBe(0);
    expect(out).toContain("jury ui: stopped.");
    expect(out).not.toMatch(/\n\s+at /);
  });

  test("jury memory import-example, then the plugin's hook from a copied plugin folder prints the memory block", async () => {
    const imported = jury(["memory", "import-example"]);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/Imported the example study: 54 memories/);
    // Claude Code copies an installed plugin into its cache and runs hooks.json's command through sh
    const cache = path.join(home, ".claude", "plugins", "cache", "jury", "jury", version);
    fs.cpSync(path.join(app, "node_modules", "jury", "claude-plugin"), cache, { recursive: true });
    const hooks = JSON.parse(fs.readFileSync(path.join(cache, "hooks", "hooks.json"), "utf8"));
    const command: string = hooks.hooks.UserPromptSubmit[0].hooks[0].command;
    const project = path.join(work, "shop-api");
    fs.mkdirSync(project);
    const input = Buffer.from(JSON.stringify({ ...JSON.parse(fixture.toString()), cwd: project }));
    const r = run("sh", ["-c", command], {
      cwd: project,
      input,
      // no collection named anywhere: the project folder "shop-api" names the collection the
      // example study was imported into, so the hook reads it by the collection rule alone
      extra: { CLAUDE_PLUGIN_ROOT: cache, PATH: [bin, env.PATH].join(path.delimiter) },
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^<memory-context source="jury"/);
    expect(r.stdout).toMatch(/<memory id="[^"]+"/);
  });

  test("installed globally (npm install -g) it works the same, with its own prefix", async () => {
    test.skip(
      Boolean(process.env.JURY_PACKAGE_NODE),
      "the global install is checked once, on the machine's Node",
    );
    const prefix = path.join(work, "global");
    const install = run("npm", ["install", "-g", tarball], { extra: { npm_config_prefix: prefix } });
    expect(install.status, install.stderr).toBe(0);
    const globalJury = path.join(prefix, "bin", "jury");
    const v = run(globalJury, ["--version"], { cwd: work });
    expect(v).toMatchObject({ status: 0, stdout: `${version}\n` });
    const imported = run(globalJury, ["memory", "import-example"], { cwd: work });
    expect(imported.status, imported.stderr).toBe(0);
    console.log(`package: npm install -g took ${(install.ms / 1000).toFixed(1)} s`);
  });
});
