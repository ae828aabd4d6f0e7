import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Bundles the CLI once before any test file runs: the CLI tests spawn it, and parallel rebuilds would
 * race. A test that leaves JURY_DB unset gets a scratch per-user data folder (the test processes
 * inherit XDG_DATA_HOME), never the person's own database.
 */
export default function setup(): void {
  execFileSync("node", ["scripts/build-cli.mjs"], { stdio: "inherit" });
  process.env.XDG_DATA_HOME = fs.mkdtempSync(path.join(os.tmpdir(), "jury-xdg-"));
}
