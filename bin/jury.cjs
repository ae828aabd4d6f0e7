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
const entry = join(root, "dist", hook ? "hook.cjs" : "cli.mjs");
if (!existsSync(entry)) {
  process.stderr.write(
    "jury: the CLI is not built yet. Run `npm run build:cli` (or `npm run build`) in the repository.\n",
  );
  process.exit(2);
}
const run = hook
  ? requireWithCodeCache(entry).runHook(args.slice(2))
  : import(require("node:url").pathToFileURL(entry).href).then((m) => m.main(args));
run.then((code) => {
  process.exitCode = code;
});

/**
 * require() for the hook bundle with V8's code cache: compiling it anew costs about 6 ms of every
 * prompt here. The cache (dist/hook.cjs.v8cache) starts with the SHA-1 of the source it was made
 * from, because V8 checks only the source's length; any mismatch, a cache V8 rejects (another
 * Node), or no cache yet: compile normally and write a fresh one after the run (atomically: hooks
 * can run side by side). Without a writable dist/ it simply compiles every time.
 */
function requireWithCodeCache(file) {
  const fs = require("node:fs");
  const vm = require("node:vm");
  const Module = require("node:module");
  const { createHash } = require("node:crypto");
  const source = fs.readFileSync(file, "utf8");
  const hash = createHash("sha1").update(source).digest();
  const cacheFile = `${file}.v8cache`;
  let cachedData;
  try {
    const raw = fs.readFileSync(cacheFile);
    if (raw.subarray(0, hash.length).equals(hash)) cachedData = raw.subarray(hash.length);
  } catch {}
  // no import() in there (it would need a loader V8 does not keep with a code cache): the bundle
  // loads its heavy half with require()
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, dirname(file));
  if (!cachedData || script.cachedDataRejected) {
    process.once("beforeExit", () => {
      try {
        const tmp = `${cacheFile}.${process.pid}`;
        fs.writeFileSync(tmp, Buffer.concat([hash, script.createCachedData()]));
        fs.renameSync(tmp, cacheFile);
      } catch {}
    });
  }
  return mod.exports;
}
