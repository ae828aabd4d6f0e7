#!/usr/bin/env node
// The `jury` command: a thin launcher for the bundled CLI in dist/ (built by `npm run build:cli`).
// CommonJS on purpose: `jury memory retrieve` starts once per prompt, and an ES module entry costs
// about 10 ms more to start here.
const { existsSync } = require("node:fs");
const { join } = require("node:path");

const root = join(__dirname, "..");
process.env.JURY_MIGRATIONS ??= join(root, "db", "migrations");
process.env.JURY_CRITERIA_DIR ??= join(root, "criteria");
const args = process.argv.slice(2);
// The hook has its own small bundle so it starts fast.
const hook = args[0] === "memory" && args[1] === "retrieve";
const entry = join(root, "dist", hook ? "hook.cjs" : "cli.mjs");
if (!existsSync(entry)) {
  process.stderr.write(
    "jury: the CLI is not built yet. Run `npm run build:cli` (or `npm run build`) in the repository.\n",
  );
  process.exit(2);
}
const run = hook
  ? require(entry).runHook(args.slice(2))
  : import(require("node:url").pathToFileURL(entry).href).then((m) => m.main(args));
run.then((code) => {
  process.exitCode = code;
});
