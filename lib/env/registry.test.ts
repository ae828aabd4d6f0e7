import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { exitCodeFor } from "../exit-codes";
import { ENV_VARS, envMarkdownTable, envSpec, invalidEnv, parseBooleanEnv, readEnv } from "./registry";
import { NAMED_SECRET_ENV } from "./secrets";

const root = path.resolve(__dirname, "../..");

/** The code that reads the environment: these folders and files (tests excluded). */
const SCANNED = ["lib", "app", "db", "bin", "proxy.ts", "instrumentation.ts"];

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p))
        if (e !== "node_modules" && e !== "migrations") walk(path.join(p, e));
    } else if (/\.(ts|tsx|mjs|cjs|js)$/.test(p) && !/\.test\.tsx?$/.test(p)) out.push(p);
  };
  for (const s of SCANNED) walk(path.join(root, s));
  return out;
}

const NAME = "[A-Z_][A-Z0-9_]*";

/**
 * The environment variables a source text reads: `process.env.X`, `process.env["X"]`, `env.X` and
 * `env["X"]` (a function's `env` parameter), `env[CONST]` through a `CONST = "X"` declared anywhere
 * in the scanned code, and every string literal named like Jury's variables (`"JURY_…"`, `"JUDGE_…"`).
 * Returns the constants it could not resolve too.
 */
function envReads(
  text: string,
  constants: Map<string, string>,
): { names: Set<string>; unresolved: string[] } {
  const names = new Set<string>();
  const unresolved: string[] = [];
  const code = text.replace(/^\s*(\/\/|\*).*$/gm, ""); // comment lines mention variables without reading them
  for (const m of code.matchAll(new RegExp(`\\b(?:process\\.env|env)\\??\\.(${NAME})\\b`, "g")))
    names.add(m[1]);
  for (const m of code.matchAll(
    new RegExp(`\\b(?:process\\.env|env)\\??\\.?\\[\\s*["'\`](${NAME})["'\`]\\s*\\]`, "g"),
  ))
    names.add(m[1]);
  for (const m of code.matchAll(new RegExp(`\\b(?:process\\.env|env)\\??\\.?\\[\\s*(${NAME})\\s*\\]`, "g"))) {
    const v = constants.get(m[1]);
    if (v) names.add(v);
    else unresolved.push(m[1]);
  }
  for (const m of code.matchAll(/["'`]((?:JURY|JUDGE)_[A-Z0-9_]+)["'`]/g)) names.add(m[1]);
  return { names, unresolved };
}

function constantsOf(texts: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of texts)
    for (const m of t.matchAll(new RegExp(`\\b(${NAME})\\s*=\\s*["'\`](${NAME})["'\`]`, "g")))
      out.set(m[1], m[2]);
  return out;
}

describe("the registry of environment variables", () => {
  const files = sourceFiles();
  const texts = files.map((f) => fs.readFileSync(f, "utf8"));
  const constants = constantsOf(texts);
  const read = new Map<string, string>(); // variable → first file reading it
  const unresolved: string[] = [];
  files.forEach((f, i) => {
    const r = envReads(texts[i], constants);
    for (const n of r.names) if (!read.has(n)) read.set(n, path.relative(root, f));
    unresolved.push(...r.unresolved.map((c) => `${path.relative(root, f)}: env[${c}]`));
  });

  it("the scanner finds reads of every shape (and would catch a new one)", () => {
    // direct, through a parameter, through a constant, through a literal
    for (const n of [
      "JURY_CRITERIA_DIR",
      "JURY_DB",
      "JURY_MAX_FILE_BYTES",
      "JURY_MAX_REPLY_BYTES",
      "NEXT_RUNTIME",
    ])
      expect(read.has(n), n).toBe(true);
    const synthetic = envReads(
      'const a = process.env.NEW_ONE; const b = env["OTHER_ONE"]; const c = process.env[X_ENV]; f("JURY_THIRD");',
      new Map([["X_ENV", "FROM_CONST"]]),
    );
    expect([...synthetic.names].sort()).toEqual(["FROM_CONST", "JURY_THIRD", "NEW_ONE", "OTHER_ONE"]);
  });

  it("declares every variable read in lib/, app/, db/, bin/, proxy.ts and instrumentation.ts", () => {
    const missing = [...read].filter(([n]) => !envSpec(n)).map(([n, f]) => `${n} (read in ${f})`);
    expect(missing, "add them to lib/env/registry.ts").toEqual([]);
    expect(unresolved, "env[CONST] whose CONST is not a string constant").toEqual([]);
  });

  it("docs/configuration.md's table is the one the registry prints, so every variable is documented", () => {
    const readme = fs.readFileSync(path.join(root, "docs", "configuration.md"), "utf8");
    const lines = readme.slice(readme.indexOf("# Configuration")).split("\n");
    const first = lines.findIndex((l) => l.startsWith("|"));
    let end = first;
    while (lines[end]?.startsWith("|")) end++;
    const table = lines.slice(first, end).join("\n");
    expect(table, "run node scripts/env-table.mjs --write").toBe(envMarkdownTable());
    for (const [n] of read) expect(table).toContain(`\`${envSpec(n)?.name}\``);
  });

  it("scripts/env-table.mjs prints the same table and --check passes on docs/configuration.md", () => {
    const printed = execFileSync("node", ["scripts/env-table.mjs"], { cwd: root, encoding: "utf8" });
    expect(printed.trimEnd()).toBe(envMarkdownTable());
    execFileSync("node", ["scripts/env-table.mjs", "--check"], { cwd: root });
  });

  it("marks every named secret as secret", () => {
    for (const n of NAMED_SECRET_ENV) expect(envSpec(n)?.secret, n).toBe(true);
    expect(envSpec("JURY_OPEN_ROUTER_API_KEY")?.secret).toBe(true);
    expect(ENV_VARS.filter((v) => v.secret).map((v) => v.name)).toContain("JURY_<NAME>_API_KEY");
  });
});

describe("strict parsing", () => {
  it("booleans accept true/false/1/0/yes/no in any case, and nothing else", () => {
    for (const v of ["true", "TRUE", "1", "yes", " Yes "]) expect(parseBooleanEnv(v, "X")).toBe(true);
    for (const v of ["false", "False", "0", "no", "NO"]) expect(parseBooleanEnv(v, "X")).toBe(false);
    for (const v of ["maybe", "off", "2", "ture"])
      expect(() => parseBooleanEnv(v, "JUDGE_ENABLED")).toThrow(
        `JUDGE_ENABLED="${v}" must be true, false, 1, 0, yes or no`,
      );
  });

  it("JUDGE_ENABLED: unset is undefined (settings decide), blank too; a bad value is a configuration error (exit 2)", () => {
    expect(readEnv("JUDGE_ENABLED", {})).toBeUndefined();
    expect(readEnv("JUDGE_ENABLED", { JUDGE_ENABLED: " " })).toBeUndefined();
    expect(readEnv("JUDGE_ENABLED", { JUDGE_ENABLED: "no" })).toBe(false);
    expect(readEnv("JUDGE_ENABLED", { JUDGE_ENABLED: "1" })).toBe(true);
    let err: unknown;
    try {
      readEnv("JUDGE_ENABLED", { JUDGE_ENABLED: "disabled" });
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toBe('JUDGE_ENABLED="disabled" must be true, false, 1, 0, yes or no');
    expect(exitCodeFor(err)).toBe(2);
  });

  it("JUDGE_MAX_PER_HOUR: an invalid value is an error naming it, never a silent 20", () => {
    expect(readEnv("JUDGE_MAX_PER_HOUR", {})).toBe(20);
    expect(readEnv("JUDGE_MAX_PER_HOUR", { JUDGE_MAX_PER_HOUR: "5" })).toBe(5);
    for (const v of ["abc", "0", "-3", "2.5", "1e3", "0x10"])
      expect(() => readEnv("JUDGE_MAX_PER_HOUR", { JUDGE_MAX_PER_HOUR: v })).toThrow(
        `JUDGE_MAX_PER_HOUR="${v}" must be a whole number, at least 1 (default 20)`,
      );
  });

  it("numbers are range-checked with the variable, the value and the unit in the message", () => {
    expect(() =>
      readEnv("JURY_DETERMINISTIC_TIMEOUT_MS", { JURY_DETERMINISTIC_TIMEOUT_MS: "700000" }),
    ).toThrow(
      'JURY_DETERMINISTIC_TIMEOUT_MS="700000" must be a whole number of milliseconds, from 1 to 600000 (default 1000)',
    );
    expect(readEnv("JURY_MAX_REPLY_BYTES", { JURY_MAX_REPLY_BYTES: "2048" })).toBe(2048);
    expect(() => readEnv("JURY_LOCAL_BASE_URL", { JURY_LOCAL_BASE_URL: "ftp://x" })).toThrow(
      /JURY_LOCAL_BASE_URL="ftp:\/\/x" must be an http\(s\) URL/,
    );
  });

  it("invalidEnv lists every bad variable at once", () => {
    const errs = invalidEnv({ JUDGE_ENABLED: "maybe", JUDGE_MAX_PER_HOUR: "lots", JURY_DB: "x.db" });
    expect(errs.map((e) => e.details?.variable).sort()).toEqual(["JUDGE_ENABLED", "JUDGE_MAX_PER_HOUR"]);
  });
});
