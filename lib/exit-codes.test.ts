import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { describe, expect, it } from "vitest";
import { hasErrorCode, isJuryError, JuryError } from "./errors";
import { codeFamily, ERROR_EXIT_CODES, EXIT, exitCodeFor } from "./exit-codes";

const root = path.resolve(__dirname, "..");

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "node_modules") out.push(...sources(p));
    } else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

describe("exit codes", () => {
  it("every JuryError code thrown in lib/, app/ and db/ has its exit code (no code falls to the default)", () => {
    const unmapped: string[] = [];
    let seen = 0;
    for (const file of ["lib", "app", "db"].flatMap((d) => sources(path.join(root, d)))) {
      const text = fs.readFileSync(file, "utf8");
      // the first argument of `new JuryError(`: a literal, a template's fixed start, or `opts.code ?? "…"`
      for (const m of text.matchAll(/new JuryError\(\s*(?:[\w.]+\s*\?\?\s*)?(["'`])([a-z_]+)/g)) {
        seen++;
        if (ERROR_EXIT_CODES[codeFamily(m[2])] === undefined)
          unmapped.push(`${path.relative(root, file)}: ${m[2]}`);
      }
    }
    expect(seen).toBeGreaterThan(40);
    expect(unmapped, "add them to ERROR_EXIT_CODES in lib/exit-codes.ts").toEqual([]);
  });

  it("maps usage and configuration to 2, infrastructure to 3, the rest to 1", () => {
    expect(exitCodeFor(new JuryError("usage", "--n must be…"))).toBe(EXIT.usage);
    expect(exitCodeFor(new JuryError("invalid:suite", "x"))).toBe(2);
    expect(exitCodeFor(new JuryError("invalid_env", "x"))).toBe(2);
    expect(exitCodeFor(new JuryError("missing_key:openai", "x"))).toBe(2);
    expect(exitCodeFor(new JuryError("busy:run", "x"))).toBe(2);
    expect(exitCodeFor(new JuryError("unsafe:file", "x"))).toBe(2);
    expect(exitCodeFor(new JuryError("timeout", "x"))).toBe(EXIT.infrastructure);
    expect(exitCodeFor(new JuryError("worker_missing", "x"))).toBe(3);
    expect(exitCodeFor(new JuryError("logic_error", "x"))).toBe(1);
    expect(exitCodeFor(new Error("boom"))).toBe(1);
    expect(exitCodeFor("a string")).toBe(1);
    expect(exitCodeFor(null)).toBe(1);
  });

  it("node:util parseArgs errors (unknown option, missing value) are usage errors", () => {
    const parse = (args: string[]) => {
      try {
        parseArgs({ args, options: { n: { type: "string" } }, strict: true });
      } catch (err) {
        return err;
      }
    };
    expect(exitCodeFor(parse(["--foo"]))).toBe(2);
    expect(exitCodeFor(parse(["--n"]))).toBe(2);
    expect(exitCodeFor(parse(["stray"]))).toBe(2);
  });

  it("a database that stays locked is infrastructure (better-sqlite3's codes, extended ones too)", () => {
    const e = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    expect(exitCodeFor(e)).toBe(3);
    expect(exitCodeFor(Object.assign(new Error("x"), { code: "SQLITE_IOERR_WRITE" }))).toBe(3);
  });
});

describe("JuryError across bundles", () => {
  /** What a second copy of the class (dist/hook-full.cjs beside dist/hook.cjs) throws. */
  class OtherBundleJuryError extends Error {
    readonly isJuryError = true;
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
      this.name = "JuryError";
    }
  }

  it("is recognised by its name and code, not its class", () => {
    const foreign = new OtherBundleJuryError("missing_key:openai", "needs OPENAI_API_KEY");
    expect(foreign instanceof JuryError).toBe(false);
    expect(isJuryError(foreign)).toBe(true);
    expect(hasErrorCode(foreign, "missing_key")).toBe(true);
    expect(hasErrorCode(foreign, "missing")).toBe(false);
    expect(exitCodeFor(foreign)).toBe(2);
    expect(exitCodeFor(new OtherBundleJuryError("timeout", "late"))).toBe(3);
  });

  it("a plain error or an object with a code is not a JuryError", () => {
    expect(isJuryError(new Error("x"))).toBe(false);
    expect(isJuryError({ name: "JuryError", code: "usage" })).toBe(false);
    expect(isJuryError(Object.assign(new Error("x"), { code: "ENOENT" }))).toBe(false);
  });
  it("no code in lib/, app/ or db/ tells a JuryError by its class (instanceof fails across the hook's two bundles)", () => {
    const offenders = ["lib", "app", "db"]
      .flatMap((d) => sources(path.join(root, d)))
      .filter((f) =>
        /\binstanceof JuryError\b/.test(fs.readFileSync(f, "utf8").replace(/^\s*(\/\/|\*).*$/gm, "")),
      )
      .map((f) => path.relative(root, f));
    expect(offenders, "use isJuryError(err) or hasErrorCode(err, code) from lib/errors.ts").toEqual([]);
  });
});
