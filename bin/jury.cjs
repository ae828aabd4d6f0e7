#!/usr/bin/env node
// The `jury` command: a thin launcher for the bundled CLI in dist/ (built by `npm run build:cli`).
// CommonJS on purpose: `jury memory retrieve` starts once per prompt, and an ES module entry costs
// about 10 ms more to start here.
const { existsSync } = require("node:fs");
const { dirname, join } = require("node:path");

const root = join(__dirname, "..");
process.env.JURY_MIGRATIONS ??= join(root, "db", "migrations");
process.env.JURY_CRITERIA_DIR ??= join(root, "criteria");
const args = process.argv.slice(2);
// The hook has its own small bundle so it starts fast.
const hook = args[0] === "memory" && args[1] === "retrieve";
const entry = join(root, "dist", hook ? "hook.cjs" : "cli.cjs");
if (!existsSync(entry)) {
  process.stderr.write(
    "jury: the CLI is not built yet. Run `npm run build:cli` (or `npm run build`) in the repository.\n",
  );
  process.exit(2);
}
if (hook && (args.includes("--help") || args.includes("-h"))) {
  process.stdout.write(`Usage: jury memory retrieve < hook-input.json

Claude Code's UserPromptSubmit hook: reads the hook's JSON on stdin (prompt, transcript_path, …),
prints a <memory-context> block of the memories that qualify (nothing when none does), always
exits 0 and never writes to stderr: problems go to the hook log (JURY_HOOK_LOG, else jury-hook.log
beside the database). It answers within JURY_HOOK_BUDGET_MS (default 8000 ms).

The collection: --collection, else JURY_MEMORY_COLLECTION, else one named after the project (the git
folder around the input's cwd) when it exists, else the one promoted in Settings, else "default".

Environment: JURY_DB, JURY_MEMORY_COLLECTION, JURY_HOOK_BUDGET_MS, JURY_HOOK_LOG
`);
  process.exit(0);
}
if (hook) {
  const { exports, saveCodeCache } = requireWithCodeCache(entry);
  // runHook never rejects (it logs its errors and answers 0); the catch keeps the contract anyway
  exports
    .runHook(args.slice(2))
    .catch(() => 0)
    .then((code) => {
      saveCodeCache();
      exitAtOnce(code);
    });
} else {
  const { exports, saveCodeCache } = requireWithCodeCache(entry);
  exports.main(args).then((code) => {
    saveCodeCache();
    process.exitCode = code;
  });
}

/**
 * The hook's answer is written (synchronously) and its retrieval logged: leave without Node's
 * teardown, in which better-sqlite3 closes the database and SQLite, as the last connection,
 * checkpoints the WAL into the file and deletes it, for the next prompt to create it again (about
 * 5 ms here). Leaving the WAL in place is safe: it is how SQLite survives any exit. process.exit is
 * the fallback where the internal reallyExit is missing.
 */
function exitAtOnce(code) {
  if (typeof process.reallyExit === "function") process.reallyExit(code);
  process.exit(code);
}

/**
 * require() for a bundle with V8's code cache: compiling it anew costs about 6 ms of every prompt
 * for the hook, about 70 ms of a one-item `jury eval` for the CLI. V8 checks only a cache's source length, so the cache (dist/hook.cjs.v8cache) carries
 * the exact source it was made from and is used only when that matches byte for byte (memcmp: a
 * hash would need node:crypto, itself 3 ms to load). A mismatch, a cache V8 rejects (another Node)
 * or no cache yet: compile normally; saveCodeCache() then writes a fresh one after the run
 * (atomically: hooks run side by side). Without a writable dist/ it simply compiles every time.
 */
function requireWithCodeCache(file) {
  const fs = require("node:fs");
  const vm = require("node:vm");
  const Module = require("node:module");
  const source = fs.readFileSync(file);
  const cacheFile = `${file}.v8cache`;
  let cachedData;
  try {
    const raw = fs.readFileSync(cacheFile);
    const n = raw.readUInt32LE(0);
    if (n === source.length && raw.subarray(4, 4 + n).equals(source)) cachedData = raw.subarray(4 + n);
  } catch {}
  // no import() in there (it would need a loader V8 does not keep with a code cache): the bundle
  // loads its heavy half with require()
  const script = new vm.Script(Module.wrap(source.toString("utf8")), { filename: file, cachedData });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, dirname(file));
  const saveCodeCache = () => {
    if (cachedData && !script.cachedDataRejected) return;
    try {
      const tmp = `${cacheFile}.${process.pid}`;
      const length = Buffer.alloc(4);
      length.writeUInt32LE(source.length);
      fs.writeFileSync(tmp, Buffer.concat([length, source, script.createCachedData()]));
      fs.renameSync(tmp, cacheFile);
    } catch {}
  };
  return { exports: mod.exports, saveCodeCache };
}
