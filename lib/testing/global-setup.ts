import { execFileSync } from "node:child_process";

/** Bundles the CLI once before any test file runs: the CLI tests spawn it, and parallel rebuilds would race. */
export default function setup(): void {
  execFileSync("node", ["scripts/build-cli.mjs"], { stdio: "inherit" });
}
