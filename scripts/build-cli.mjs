// Bundles the CLI (and the scripted test server) into dist/ so `jury` starts without a TypeScript loader;
// also the benchmark (bench/), run by scripts/bench.mjs.
import { build } from "esbuild";

import "./gen-criteria-registry.mjs";

await build({
  entryPoints: {
    cli: "lib/cli/main.ts",
    "scripted-server": "lib/testing/scripted-server-main.ts",
    bench: "bench/judge-bench.ts",
    "memory-bench": "bench/memory-bench.ts",
  },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Bundling the pure-JS dependencies saves the hook module resolution at every start; the native one stays outside.
  external: ["better-sqlite3"],
  alias: { "@": "." },
  sourcemap: "linked",
  logLevel: "warning",
  banner: {
    js: "import { createRequire as __jcr } from 'node:module'; const require = __jcr(import.meta.url);",
  },
});
