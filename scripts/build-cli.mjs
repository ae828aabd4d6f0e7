// Bundles the CLI (and the scripted test server) into dist/ so `jury` starts without a TypeScript loader;
// also the benchmarks (bench/), run by scripts/bench.mjs (dist/run-scale-bench.mjs on its own).
import fs from "node:fs";
import { build } from "esbuild";

import "./gen-criteria-registry.mjs";

/**
 * Built into a fresh folder of its own, then swapped in for dist/: stale chunks of earlier builds do
 * not pile up, and a build running beside another (test runs in the same tree) never deletes files
 * the other, or a running test, is using.
 */
const out = `.dist-build-${process.pid}`;
fs.rmSync(out, { recursive: true, force: true });
process.on("exit", () => fs.rmSync(out, { recursive: true, force: true }));

/**
 * better-sqlite3 stays outside the bundle (it is native). Imported as an ES module, Node would run it
 * through the CommonJS translation, which scans its source for named exports at every start; a plain
 * require() (the banner's) skips that.
 */
const requireExternals = {
  name: "require-externals",
  setup(b) {
    b.onResolve({ filter: /^better-sqlite3(-napi)?$/ }, (a) =>
      a.namespace === "cjs-external"
        ? { path: a.path, external: true }
        : { path: a.path, namespace: "cjs-external" },
    );
    b.onLoad({ filter: /.*/, namespace: "cjs-external" }, (a) => ({
      contents: `module.exports = require(${JSON.stringify(a.path)});`,
      loader: "js",
    }));
  },
};

const base = {
  outdir: out,
  bundle: true,
  platform: "node",
  target: "node20",
  alias: { "@": "." },
  sourcemap: "linked",
  logLevel: "warning",
};

/**
 * Whitespace and syntax minified, names kept (stack traces stay readable, with the source maps):
 * `jury eval` of one item spends about a third of its time compiling these bundles.
 */
const common = {
  ...base,
  minifyWhitespace: true,
  minifySyntax: true,
  outExtension: { ".js": ".mjs" },
  format: "esm",
  plugins: [requireExternals],
  banner: {
    js: "import { createRequire as __jcr } from 'node:module'; const require = __jcr(import.meta.url);",
  },
};

await build({
  ...common,
  entryPoints: {
    "scripted-server": "lib/testing/scripted-server-main.ts",
    bench: "bench/judge-bench.ts",
    "memory-bench": "bench/memory-bench.ts",
    "tokenizer-bench": "bench/tokenizer-bench.ts",
    "agreement-bench": "bench/agreement-bench.ts",
    "cost-bench": "bench/cost-bench.ts",
    "panel-bench": "bench/panel-bench.ts",
    // not in scripts/bench.mjs's list (minutes at 100,000 samples): run on its own
    "run-scale-bench": "bench/run-scale-bench.ts",
    // not in the list either: it needs a PostgreSQL server (JURY_TEST_DATABASE_URL)
    "pg-retrieval-bench": "bench/pg-retrieval-bench.ts",
    // in the list: its PostgreSQL rows need JURY_TEST_DATABASE_URL (or JURY_BENCH_DATABASE_URL), else skipped
    "store-bench": "bench/store-bench.ts",
  },
  external: ["pg-native"],
  splitting: true,
});

/**
 * Deterministic criteria run in a worker thread (lib/criteria/worker-pool.ts), which cannot be handed
 * functions: each worker bundle holds its logic. criteria-worker serves the project's criteria (the
 * CLI finds it beside its own bundle, the Next server under dist/); test-criteria-worker the tests'.
 * One self-contained file each, so a worker loads nothing else.
 */
await build({
  ...common,
  entryPoints: {
    "criteria-worker": "lib/criteria/criteria-worker.ts",
    "test-criteria-worker": "lib/testing/test-criteria-worker.ts",
  },
});

/**
 * The memory hook starts a process per prompt: one CommonJS file (no ES module loader work at start;
 * bin/jury.cjs loads it with V8's code cache), better-sqlite3's JavaScript included (versions 12 and 13; the addon is
 * loaded by path: see nativeBindingPath), without zod, drizzle or the AI SDK. Its two doors to them
 * (hook-full and judge-runtime) lead to dist/hook-full.cjs through require(): code compiled from a
 * code cache cannot use import(), so esbuild turns the dynamic imports into requires.
 */
const cjs = {
  ...base,
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  supported: { "dynamic-import": false },
  define: { "import.meta.url": "__importMetaUrl" },
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
};
await build({
  ...cjs,
  entryPoints: { "hook-full": "lib/cli/hook-full.ts" },
  external: ["better-sqlite3", "better-sqlite3-napi"],
});

/**
 * The CLI: one CommonJS file too, which bin/jury.cjs compiles from V8's code cache (as the hook):
 * compiling the ES module bundles anew was about a third of a one-item `jury eval` (about 70 ms of
 * CPU here). Each subcommand's modules still load only when it runs (esbuild turns the dynamic
 * imports into lazy requires).
 */
/** db/client.ts's dynamic import of ./pg/client, left to dist/pg-client.cjs (built below). */
const pgClientApart = {
  name: "pg-client-apart",
  setup(b) {
    b.onResolve({ filter: /^\.\/pg\/client$/ }, (a) =>
      /[/\\]db$/.test(a.resolveDir) && a.kind === "dynamic-import"
        ? { path: "./pg-client.cjs", external: true }
        : undefined,
    );
  },
};

await build({
  ...cjs,
  entryPoints: { cli: "lib/cli/main.ts" },
  external: ["better-sqlite3", "better-sqlite3-napi"],
  plugins: [pgClientApart],
  minifyWhitespace: true,
  minifySyntax: true,
});

/**
 * The PostgreSQL client (node-postgres and drizzle's PostgreSQL dialect, about 240 KB) is a file of
 * its own, required by db/client.ts's createPgDb only when a store is on PostgreSQL: a SQLite command
 * does not load or compile it. pg's optional native binding (pg-native) is never used.
 */
await build({
  ...cjs,
  entryPoints: { "pg-client": "db/pg/client.ts" },
  external: ["pg-native"],
  minifyWhitespace: true,
  minifySyntax: true,
});

/** `jury ui`'s server process: Next's production server for the built dashboard, loaded at run time. */
await build({ ...cjs, entryPoints: { "ui-server": "lib/cli/ui-server.ts" } });

const heavyModules = /[/\\](lib[/\\]cli[/\\]hook-full|lib[/\\]memory[/\\]judge-runtime)\.ts$/;
await build({
  ...cjs,
  entryPoints: { hook: "lib/cli/memory-hook.ts" },
  plugins: [
    {
      name: "hook-full",
      setup(b) {
        b.onResolve({ filter: /(hook-full|judge-runtime)$/ }, async (a) => {
          if (a.pluginData === "inner") return undefined;
          const r = await b.resolve(a.path, { resolveDir: a.resolveDir, kind: a.kind, pluginData: "inner" });
          return heavyModules.test(r.path) ? { path: "./hook-full.cjs", external: true } : r;
        });
      },
    },
  ],
});

// the hook must stay small: a heavy module pulled in by a new import would quietly undo the above
const hookSize = fs.statSync(`${out}/hook.cjs`).size;
if (hookSize > 200_000) {
  console.error(
    `dist/hook.cjs is ${hookSize} bytes: something heavy (zod, drizzle, the AI SDK) is bundled into the hook`,
  );
  process.exit(1);
}

const old = `.dist-old-${process.pid}`;
try {
  fs.renameSync("dist", old);
} catch (err) {
  if (err.code !== "ENOENT") throw err;
}
try {
  fs.renameSync(out, "dist");
} catch (err) {
  // another build put its dist/ in place in between: built from the same sources, it serves as well
  if (err.code !== "ENOTEMPTY" && err.code !== "EEXIST") throw err;
}
fs.rmSync(old, { recursive: true, force: true });
