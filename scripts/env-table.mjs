// Prints the configuration table of docs/configuration.md from the registry of environment variables
// (lib/env/registry.ts), so the table cannot drift from the code:
//   node scripts/env-table.mjs           print the Markdown table
//   node scripts/env-table.mjs --check   exit 1 when docs/configuration.md's table differs
//   node scripts/env-table.mjs --write   replace docs/configuration.md's table (the prose around it is kept)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const readme = path.join(root, "docs", "configuration.md");

const out = await build({
  entryPoints: [path.join(root, "lib/env/registry.ts")],
  bundle: true,
  write: false,
  format: "esm",
  platform: "node",
  logLevel: "warning",
});
const { envMarkdownTable } = await import(
  `data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString("base64")}`
);
const table = envMarkdownTable();

/** The table under "## Configuration": its first run of lines starting with "|". */
function tableIn(text) {
  const lines = text.split("\n");
  const heading = lines.indexOf("# Configuration");
  if (heading < 0) throw new Error("docs/configuration.md has no '# Configuration' heading");
  let start = heading + 1;
  while (start < lines.length && !lines[start].startsWith("|")) {
    if (lines[start].startsWith("## ")) throw new Error("docs/configuration.md has no table");
    start++;
  }
  let end = start;
  while (end < lines.length && lines[end].startsWith("|")) end++;
  return { lines, start, end };
}

const mode = process.argv[2];
if (mode === "--check" || mode === "--write") {
  const text = fs.readFileSync(readme, "utf8");
  const { lines, start, end } = tableIn(text);
  const current = lines.slice(start, end).join("\n");
  if (mode === "--check") {
    if (current !== table) {
      console.error(
        "docs/configuration.md's table differs from lib/env/registry.ts: run node scripts/env-table.mjs --write",
      );
      process.exit(1);
    }
  } else if (current !== table) {
    lines.splice(start, end - start, ...table.split("\n"));
    fs.writeFileSync(readme, lines.join("\n"));
  }
} else if (mode === undefined) {
  process.stdout.write(`${table}\n`);
} else {
  console.error(`Unknown option ${mode}: use --check or --write, or nothing to print the table`);
  process.exit(2);
}
