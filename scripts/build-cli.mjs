// Bundles the CLI (and the scripted test server) into dist/ so `jury` starts without a TypeScript loader.
import { build } from "esbuild";

import "./gen-criteria-registry.mjs";

await build({
  entryPoints: { cli: "lib/cli/main.ts", "scripted-server": "lib/testing/scripted-server-main.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  alias: { "@": "." },
  sourcemap: "linked",
  logLevel: "warning",
  banner: {
    js: "import { createRequire as __jcr } from 'node:module'; const require = __jcr(import.meta.url);",
  },
});
