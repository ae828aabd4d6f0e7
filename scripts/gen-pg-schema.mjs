// Writes db/pg/schema.ts, the PostgreSQL schema, from db/schema.ts (the SQLite one): the same tables,
// columns, defaults, keys and indexes, each column mapped to the PostgreSQL type that stores what
// SQLite stores (db/pg/columns.ts says why: C-collated text, bigint milliseconds, 0/1 integers,
// JSON as text). A column kind or an SQL default it does not know stops it, naming the line.
//   node scripts/gen-pg-schema.mjs           write db/pg/schema.ts
//   node scripts/gen-pg-schema.mjs --check   exit 1 when db/pg/schema.ts is stale, or when
//                                            db/migrations-pg lacks a migration for it (npm run lint)
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE = "db/schema.ts";
const TARGET = "db/pg/schema.ts";
const MIGRATIONS = "db/migrations-pg";

/** SQL defaults, SQLite's → PostgreSQL's (an unknown one is an error: add it here). */
const SQL_DEFAULTS = new Map([["(unixepoch() * 1000)", "(extract(epoch from now()) * 1000)::bigint"]]);

function fail(message) {
  console.error(`gen-pg-schema: ${message}`);
  process.exit(1);
}

/** The index of the parenthesis closing the one at `open` (comments, strings and template literals skipped). */
function closing(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (text.startsWith("//", i)) i = text.indexOf("\n", i);
    else if (text.startsWith("/*", i)) i = text.indexOf("*/", i) + 1;
    else if (c === '"' || c === "'" || c === "`") {
      const end = text.indexOf(c, i + 1);
      if (end < 0) fail(`unterminated string at ${i}`);
      i = end;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return fail(`unbalanced parentheses from ${open}`);
}

/** The comment lines (`/** … *\/` or `//`) right above `at`, with their indentation. */
function commentAbove(text, at) {
  const before = text.slice(0, at).split("\n");
  before.pop(); // the statement's own line, up to `at`
  const out = [];
  while (before.length) {
    const line = before[before.length - 1];
    const t = line.trim();
    if (t.startsWith("//") && t.includes("───")) break; // a section header, not this table's
    if (t.startsWith("*") || t.startsWith("/**") || t.startsWith("//") || t.endsWith("*/")) {
      out.unshift(before.pop());
    } else break;
  }
  return out.join("\n");
}

const lineOf = (text, at) => text.slice(0, at).split("\n").length;

/** One table's source, SQLite builders → PostgreSQL's. */
function mapTable(block, startLine) {
  let out = block.replace(/^sqliteTable\(/, "pgTable(");
  out = out.replaceAll(
    "integer().primaryKey({ autoIncrement: true })",
    'bigint({ mode: "number" }).primaryKey().generatedByDefaultAsIdentity()',
  );
  out = out.replaceAll('integer({ mode: "timestamp_ms" })', "timestampMs()");
  out = out.replaceAll('integer({ mode: "boolean" })', "bool01()");
  out = out.replace(/\.default\((true|false)\)/g, (_, v) => `.default(sql\`${v === "true" ? 1 : 0}\`)`);
  out = out.replace(/\binteger\(\)/g, 'bigint({ mode: "number" })');
  out = out.replaceAll('text({ mode: "json" })', "jsonText()");
  out = out.replace(/text\(\{ enum: (\[[^\]]*\]|[A-Za-z_$][\w$]*) \}\)/g, (_, e) =>
    e.startsWith("[")
      ? `ctext().$type<${[...e.matchAll(/"([^"]*)"/g)].map((m) => JSON.stringify(m[1])).join(" | ")}>()`
      : `ctext().$type<(typeof ${e})[number]>()`,
  );
  out = out.replace(/\btext\(\)/g, "ctext()");
  out = out.replace(/\breal\(\)/g, "doublePrecision()");
  out = out.replace(/\.default\(sql`([^`]*)`\)/g, (whole, expr) => {
    if (/^[01]$/.test(expr)) return whole; // the booleans above
    const pg = SQL_DEFAULTS.get(expr);
    if (!pg) fail(`${SOURCE}: no PostgreSQL form for the default sql\`${expr}\`: add it to SQL_DEFAULTS`);
    return `.default(sql\`${pg}\`)`;
  });
  // anything SQLite-specific left is a column kind this script does not map yet
  const left = out.match(/\b(sqliteTable|integer|text|real|blob|numeric)\(/);
  if (left) {
    const at = lineOf(out, left.index) + startLine - 1;
    fail(`${SOURCE}:${at}: no PostgreSQL mapping for \`${left[0]}\`…: add one to scripts/gen-pg-schema.mjs`);
  }
  return out;
}

/** The generated file's text, before formatting. */
function generate(source) {
  const tables = [];
  const re = /^export const (\w+) = sqliteTable\(/gm;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    const open = m.index + m[0].length - 1;
    const end = closing(source, open);
    const block = source.slice(m.index + m[0].length - "sqliteTable(".length, end + 1);
    tables.push({
      name: m[1],
      comment: commentAbove(source, m.index),
      body: mapTable(block, lineOf(source, m.index)),
    });
  }
  if (!tables.length) fail(`${SOURCE} declares no sqliteTable`);
  const body = tables
    .map((t) => `${t.comment ? `${t.comment}\n` : ""}export const ${t.name} = ${t.body};`)
    .join("\n\n");

  // what the tables name that the SQLite schema declares or imports: imported as types (enums and
  // JSON shapes appear only in `$type<…>`)
  const tableNames = new Set(tables.map((t) => t.name));
  const declared = [...source.matchAll(/^export (?:const|type) (\w+)/gm)]
    .map((m) => m[1])
    .filter((n) => !tableNames.has(n));
  const used = (name) => new RegExp(`\\b${name}\\b`).test(body);
  const fromSchema = declared.filter(used).sort();
  const libImports = [];
  for (const m of source.matchAll(/^import type \{([^}]*)\} from "(\.\.\/lib\/[^"]+)";$/gm)) {
    const names = m[1]
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .filter(used);
    if (names.length) libImports.push(`import type { ${names.join(", ")} } from "../${m[2]}";`);
  }
  const pgCore = ["bigint", "doublePrecision", "index", "pgTable", "uniqueIndex"].filter((n) =>
    body.includes(`${n}(`),
  );
  const columns = ["bool01", "ctext", "jsonText", "timestampMs"].filter((n) => body.includes(`${n}(`));
  return [
    "// Generated by scripts/gen-pg-schema.mjs from db/schema.ts: do not edit. After a change to",
    "// db/schema.ts run `node scripts/gen-pg-schema.mjs`, then",
    "// `npx drizzle-kit generate --config drizzle.pg.config.ts --name <name>` (`npm run lint` fails until both are done).",
    body.includes("sql`") ? 'import { sql } from "drizzle-orm";' : null,
    `import { ${pgCore.join(", ")} } from "drizzle-orm/pg-core";`,
    ...libImports,
    fromSchema.length ? `import type { ${fromSchema.join(", ")} } from "../schema";` : null,
    `import { ${columns.join(", ")} } from "./columns";`,
    "",
    body,
    "",
  ]
    .filter((l) => l !== null)
    .join("\n");
}

/** Biome's formatting of the text, as `biome check` wants the file. */
function format(text) {
  const biome = path.join(root, "node_modules", ".bin", "biome");
  return execFileSync(biome, ["check", "--write", `--stdin-file-path=${TARGET}`], {
    cwd: root,
    input: text,
    encoding: "utf8",
  });
}

/** True when drizzle-kit finds nothing to add to db/migrations-pg for the schema (run in a copy). */
function migrationsCurrent() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "jury-pg-migrations-"));
  try {
    const out = path.join(tmp, "migrations");
    fs.cpSync(path.join(root, MIGRATIONS), out, { recursive: true });
    const config = path.join(root, `.drizzle-pg-check-${process.pid}.config.ts`);
    fs.writeFileSync(
      config,
      `import { defineConfig } from "drizzle-kit";\nexport default defineConfig({ dialect: "postgresql", schema: "./${TARGET}", out: ${JSON.stringify(out)}, casing: "snake_case" });\n`,
    );
    try {
      execFileSync(
        path.join(root, "node_modules", ".bin", "drizzle-kit"),
        ["generate", `--config=${config}`],
        {
          cwd: root,
          stdio: "pipe",
        },
      );
    } finally {
      fs.rmSync(config, { force: true });
    }
    const count = (dir) => fs.readdirSync(dir).filter((f) => f.endsWith(".sql")).length;
    return count(out) === count(path.join(root, MIGRATIONS));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const text = format(generate(fs.readFileSync(path.join(root, SOURCE), "utf8")));
const file = path.join(root, TARGET);
const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
if (process.argv.includes("--check")) {
  if (current !== text) fail(`${TARGET} is stale (db/schema.ts changed): run node scripts/gen-pg-schema.mjs`);
  if (!migrationsCurrent())
    fail(
      `${MIGRATIONS} lacks a migration for ${TARGET}: run npx drizzle-kit generate --config drizzle.pg.config.ts --name <name>`,
    );
} else if (current !== text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  console.log(`wrote ${TARGET}`);
}
