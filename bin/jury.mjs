#!/usr/bin/env node
// The `jury` command: a thin launcher for the bundled CLI in dist/ (built by `npm run build:cli`).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
process.env.JURY_MIGRATIONS ??= join(root, "db", "migrations");
process.env.JURY_CRITERIA_DIR ??= join(root, "criteria");
const entry = join(root, "dist", "cli.mjs");
if (!existsSync(entry)) {
  process.stderr.write(
    "jury: the CLI is not built yet. Run `npm run build:cli` (or `npm run build`) in the repository.\n",
  );
  process.exit(2);
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
