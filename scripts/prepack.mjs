// `npm pack` and `npm publish` run this first (package.json's prepack): it builds what is missing or
// older than its sources (`npm run build`: dist/ and .next/), then assembles dashboard/, the prebuilt
// dashboard that `jury ui` serves from an installed package:
//   dashboard/.next/         the server's build (.next/standalone/.next) and its static files (.next/static)
//   dashboard/node_modules/  what that server loads (next, react, …), as Next's output tracing found it,
//                            less the native packages: those come from the package's own dependencies,
//                            installed for the user's platform and Node
//   dashboard/public/        the public folder, when there is one
// Run it by hand to assemble dashboard/ without packing: node scripts/prepack.mjs
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const at = (...p) => path.join(root, ...p);

/** What the build reads: a file newer than the build means the build is stale. */
const SOURCES = ["app", "components", "lib", "db", "criteria", "bin", "proxy.ts", "instrumentation.ts"];
const SOURCES_TOO = ["next.config.ts", "package.json", "package-lock.json", "scripts/build-cli.mjs"];

function newestMtime(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return /\.test\.tsx?$/.test(p) ? 0 : st.mtimeMs; // tests are not built
  let newest = 0;
  for (const e of fs.readdirSync(p)) {
    if (e === "node_modules" || e.startsWith(".")) continue;
    newest = Math.max(newest, newestMtime(path.join(p, e)));
  }
  return newest;
}

const mtime = (f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0);
const sources = Math.max(...[...SOURCES, ...SOURCES_TOO].map((s) => newestMtime(at(s))));
const built = Math.min(mtime(at(".next", "BUILD_ID")), mtime(at("dist", "cli.cjs")));
if (built < sources || !fs.existsSync(at(".next", "standalone", ".next", "BUILD_ID"))) {
  // the packaging test packs the build `npm test` just made, while the e2e server serves it: never
  // rebuild under it
  if (process.env.JURY_PACK_NO_BUILD) {
    console.error("prepack: the build is missing or older than its sources; run npm run build first");
    process.exit(1);
  }
  console.error("prepack: the build is missing or older than its sources: npm run build");
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
} else console.error("prepack: dist/ and .next/ are up to date with their sources");

/** Native addons, built or prebuilt for one platform and Node: never copied from this machine. */
const NATIVE = new Set([
  "better-sqlite3",
  "better-sqlite3-napi",
  "bindings",
  "file-uri-to-path",
  "sharp",
  "@img",
]);

const standalone = at(".next", "standalone");
const out = at("dashboard");
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out);

// the server's build, less its links to native packages (replaced below)
fs.cpSync(path.join(standalone, ".next"), path.join(out, ".next"), {
  recursive: true,
  filter: (src) => path.relative(path.join(standalone, ".next"), src) !== "node_modules",
});
fs.cpSync(at(".next", "static"), path.join(out, ".next", "static"), { recursive: true });
if (fs.existsSync(at("public"))) fs.cpSync(at("public"), path.join(out, "public"), { recursive: true });

// what the server loads, less the native packages
const modules = path.join(standalone, "node_modules");
for (const e of fs.readdirSync(modules)) {
  if (NATIVE.has(e) || e.startsWith(".")) continue;
  fs.cpSync(path.join(modules, e), path.join(out, "node_modules", e), { recursive: true, dereference: true });
}

// The server requires each external package (next.config.ts's serverExternalPackages) under a name of
// its own (better-sqlite3-<hash>), which the build links to the package; npm does not pack links. In
// their place, a package of that name that loads the real one from the installed package's dependencies.
const links = path.join(standalone, ".next", "node_modules");
let shims = 0;
if (fs.existsSync(links)) {
  for (const name of fs.readdirSync(links)) {
    const target = path.basename(fs.readlinkSync(path.join(links, name)));
    const dir = path.join(out, ".next", "node_modules", name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, "package.json"),
      `${JSON.stringify({ name, main: "index.js" }, null, 2)}\n`,
    );
    fs.writeFileSync(path.join(dir, "index.js"), `module.exports = require(${JSON.stringify(target)});\n`);
    shims++;
  }
}
fs.writeFileSync(
  path.join(out, "package.json"),
  `${JSON.stringify({ name: "jury-dashboard", private: true, description: "Built by scripts/prepack.mjs" }, null, 2)}\n`,
);

let bytes = 0;
let files = 0;
const walk = (p) => {
  for (const e of fs.readdirSync(p, { withFileTypes: true })) {
    const q = path.join(p, e.name);
    if (e.isDirectory()) walk(q);
    else {
      bytes += fs.statSync(q).size;
      files++;
    }
  }
};
walk(out);
console.error(
  `prepack: dashboard/ assembled: ${files} files, ${(bytes / 1024 / 1024).toFixed(1)} MB, ${shims} external package link(s) replaced`,
);
