import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readEnv } from "@/lib/env/registry";
import { exitCodeFor } from "@/lib/exit-codes";
import { runJury } from "@/lib/testing/run-jury";
import { resolveDbPath } from "./path";

// JURY_DATABASE_URL asks for the shared PostgreSQL store. Until every query runs there, a process
// started with it must stop and say so (exit 2), never quietly keep its data in a SQLite file.
const URL_WITH_PASSWORD = "postgres://jury:s3cret-pass-word@db.example:5432/jury";

function scratch(): { dir: string; db: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-dburl-"));
  return { dir, db: path.join(dir, "jury.db") };
}

describe("JURY_DATABASE_URL before PostgreSQL support is complete", () => {
  it("resolveDbPath refuses it with a configuration error (exit 2); unset or blank, SQLite as before", () => {
    let err: unknown;
    try {
      resolveDbPath({ JURY_DATABASE_URL: URL_WITH_PASSWORD, JURY_DB: "/tmp/x.db" });
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toMatch(/^PostgreSQL support is in progress: .*Unset JURY_DATABASE_URL/);
    expect((err as Error).message).not.toContain("s3cret");
    expect(exitCodeFor(err)).toBe(2);
    expect(resolveDbPath({ JURY_DB: "/tmp/x.db" })).toBe("/tmp/x.db");
    expect(resolveDbPath({ JURY_DATABASE_URL: " ", JURY_DB: "/tmp/x.db" })).toBe("/tmp/x.db");
  });

  it("`jury db migrate` and `jury runs` exit 2 saying so, and create no SQLite file", async () => {
    const s = scratch();
    for (const args of [["db", "migrate"], ["runs"]]) {
      const r = await runJury(args, { env: { JURY_DB: s.db, JURY_DATABASE_URL: URL_WITH_PASSWORD } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain("PostgreSQL support is in progress");
      expect(r.stderr).toContain("Unset JURY_DATABASE_URL");
      expect(r.stderr + r.stdout).not.toContain("s3cret");
    }
    expect(fs.existsSync(s.db)).toBe(false);
    // without it, the same command uses the SQLite file
    const ok = await runJury(["db", "migrate"], { env: { JURY_DB: s.db } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(fs.existsSync(s.db)).toBe(true);
  });

  it("a value that is no PostgreSQL URL is named (exit 2), its value never printed", async () => {
    const s = scratch();
    const r = await runJury(["runs"], {
      env: { JURY_DB: s.db, JURY_DATABASE_URL: "mysql://root:hunter2-long@db/jury" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("JURY_DATABASE_URL must be a postgres:// or postgresql:// URL");
    expect(r.stderr).not.toContain("hunter2");
    for (const ok of ["postgres://u@h/db", "postgresql://u:p@h:5432/db?sslmode=require", "postgres:///jury"])
      expect(readEnv("JURY_DATABASE_URL", { JURY_DATABASE_URL: ok })).toBe(ok);
    for (const bad of ["http://h/db", "db.example:5432", "postgres"])
      expect(() => readEnv("JURY_TEST_DATABASE_URL", { JURY_TEST_DATABASE_URL: bad })).toThrow(
        "JURY_TEST_DATABASE_URL must be a postgres:// or postgresql:// URL",
      );
  });

  it("the memory hook answers nothing and logs why, rather than read SQLite (a hook never fails the prompt)", async () => {
    const s = scratch();
    const log = path.join(s.dir, "hook.log");
    const r = await runJury(["memory", "retrieve"], {
      input: JSON.stringify({ prompt: "what is our http timeout policy" }),
      env: { JURY_DB: s.db, JURY_HOOK_LOG: log, JURY_DATABASE_URL: URL_WITH_PASSWORD },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(fs.readFileSync(log, "utf8")).toContain("PostgreSQL support is in progress");
    expect(fs.existsSync(s.db)).toBe(false);
    // without JURY_HOOK_LOG the log is beside where the SQLite file would be, as always
    const quiet = await runJury(["memory", "retrieve"], {
      input: JSON.stringify({ prompt: "what is our http timeout policy" }),
      env: { JURY_DB: s.db, JURY_DATABASE_URL: URL_WITH_PASSWORD },
    });
    expect(quiet.code).toBe(0);
    const beside = path.join(s.dir, "jury-hook.log");
    expect(fs.readFileSync(beside, "utf8")).toContain("PostgreSQL support is in progress");
    expect(fs.readFileSync(beside, "utf8")).not.toContain("s3cret");
  });
});
