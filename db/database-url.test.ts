import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEnv } from "@/lib/env/registry";
import { runJury } from "@/lib/testing/run-jury";
import { emptyPgDatabase, storeKinds } from "@/lib/testing/stores";
import { resolveDbPath } from "./path";

// JURY_DATABASE_URL puts everything on the PostgreSQL database it names: `jury db migrate` creates it,
// every command reads and writes there, and no SQLite file is made on the side. Its value (it may
// carry a password) is never printed.
const URL_WITH_PASSWORD = "postgres://jury:s3cret-pass-word@127.0.0.1:1/jury";

function scratch(): { dir: string; db: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-dburl-"));
  return { dir, db: path.join(dir, "jury.db") };
}

describe("JURY_DATABASE_URL", () => {
  it("leaves the SQLite path rules alone: unset or blank, SQLite as before", () => {
    expect(resolveDbPath({ JURY_DB: "/tmp/x.db" })).toBe("/tmp/x.db");
    expect(resolveDbPath({ JURY_DATABASE_URL: " ", JURY_DB: "/tmp/x.db" })).toBe("/tmp/x.db");
  });

  it("a server that does not answer: exit 3 naming the server, never the password, and no SQLite file", async () => {
    const s = scratch();
    for (const args of [
      ["db", "migrate"],
      ["runs", "list"],
    ]) {
      const r = await runJury(args, { env: { JURY_DB: s.db, JURY_DATABASE_URL: URL_WITH_PASSWORD } });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain("The PostgreSQL store (JURY_DATABASE_URL: PostgreSQL 127.0.0.1:1/jury)");
      expect(r.stderr + r.stdout).not.toContain("s3cret");
    }
    expect(fs.existsSync(s.db)).toBe(false);
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

  it("the memory hook reads a local SQLite file only: with the variable set it injects nothing and logs why", async () => {
    const s = scratch();
    const log = path.join(s.dir, "hook.log");
    const r = await runJury(["memory", "retrieve"], {
      input: JSON.stringify({ prompt: "what is our http timeout policy" }),
      env: { JURY_DB: s.db, JURY_HOOK_LOG: log, JURY_DATABASE_URL: URL_WITH_PASSWORD },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    const said = fs.readFileSync(log, "utf8");
    expect(said).toContain("JURY_DATABASE_URL is set");
    expect(said).not.toContain("s3cret");
    expect(fs.existsSync(s.db)).toBe(false);
  });
});

describe.runIf(storeKinds().includes("pg"))("JURY_DATABASE_URL on a PostgreSQL server", () => {
  let store: Awaited<ReturnType<typeof emptyPgDatabase>>;
  beforeAll(async () => {
    store = await emptyPgDatabase();
  });
  afterAll(() => store.drop());

  it("`jury db migrate` creates it, a run is stored and listed there, and no SQLite file is made", async () => {
    const s = scratch();
    const env = { JURY_DB: s.db, JURY_DATABASE_URL: store.url };
    const migrate = await runJury(["db", "migrate"], { env });
    expect(migrate.code, migrate.stderr).toBe(0);
    const where = new URL(store.url);
    expect(migrate.stdout).toBe(
      `Database ready: PostgreSQL ${where.hostname}:${where.port}${where.pathname}\n`,
    );
    expect((await runJury(["settings", "set", "providers.mock.enabled", "true"], { env })).code).toBe(0);
    const run = await runJury(
      ["eval", "examples/suites/qa", "--judges", "mock:judge,mock:judge-b", "--n", "2", "--json"],
      { env },
    );
    expect([0, 1], run.stderr).toContain(run.code);
    const out = JSON.parse(run.stdout);
    expect(out.status).toBe("done");
    const list = await runJury(["runs", "list", "--json"], { env });
    expect(list.code, list.stderr).toBe(0);
    const runs = JSON.parse(list.stdout) as { id: string; status: string }[];
    expect(runs.map((r) => [r.id, r.status])).toEqual([[out.run_id, "done"]]);
    expect(fs.existsSync(s.db)).toBe(false);
  }, 120_000);
});
