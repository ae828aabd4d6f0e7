import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { tempDir, writeJson } from "../testing/fixtures";
import { spawnJury } from "../testing/run-jury";

/** A suite whose only criterion is the catastrophic regex (case-insensitive: no linear fallback). */
function stuckSuite(): string {
  const dir = tempDir("jury-suite-");
  writeJson(path.join(dir, "suite.json"), {
    name: "Catastrophic regex",
    criteria: [{ id: "contains", params: { pattern: "^(a+)+$", regex: true } }],
  });
  for (const id of ["one", "two"])
    writeJson(path.join(dir, "cases", `${id}.json`), {
      id,
      name: id,
      input: { prompt: "p" },
      output: `${"a".repeat(40)}b`,
    });
  return dir;
}

const query = (db: string, sql: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    d.close();
  }
};

const jury = (args: string[], db: string, timeoutMs: number) =>
  spawnJury(args, {
    cwd: tempDir(),
    env: {
      JURY_DB: db,
      JURY_LOCAL_BASE_URL: "http://127.0.0.1:9/v1", // no LLM criterion: never called
      JURY_DETERMINISTIC_TIMEOUT_MS: String(timeoutMs),
    },
  });

/** Starts `jury eval` on the stuck suite and waits until its criteria worker is busy with the regex. */
async function startStuck(db: string) {
  const child = jury(["eval", stuckSuite(), "--judges", "local:a", "--n", "1"], db, 60_000);
  let stderr = "";
  child.stderr?.on("data", (d) => (stderr += d));
  const deadline = Date.now() + 20_000;
  while (!/tasks to do/.test(stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(stderr).toMatch(/run run_\S+: 2 of 2 tasks to do/);
  await new Promise((r) => setTimeout(r, 700)); // the worker starts and is stuck in the regex
  expect(query(db, "select status from runs")).toEqual([{ status: "running" }]);
  return child;
}

describe("jury eval stopped by a signal while a deterministic criterion is stuck", () => {
  it("SIGTERM ends it within a second with exit code 143, the run interrupted and resumable", async () => {
    const db = path.join(tempDir(), "t.db");
    const child = await startStuck(db);
    const start = Date.now();
    child.kill("SIGTERM");
    const r = await child.out;
    expect(Date.now() - start).toBeLessThan(1000);
    expect(r.code).toBe(143);
    expect(r.stderr).toMatch(/Interrupted\. Resume with: jury eval --resume run_/);
    const [run] = query(db, "select id, status, owner_pid from runs");
    expect(run).toMatchObject({ status: "interrupted", owner_pid: null });
    expect(query(db, "select status from tasks")).toEqual([{ status: "pending" }, { status: "pending" }]);

    // resumable: with a short limit the resume finishes, each stuck task recorded as its timeout error
    const resumed = await jury(["eval", "--resume", String(run.id)], db, 200).out;
    expect(resumed.stderr).toContain("2 of 2 tasks to do");
    expect(resumed.code).toBe(3); // both verdicts rest on no answer: their only sample is an error
    expect(query(db, "select status from runs")).toEqual([{ status: "done_with_failures" }]);
    expect(query(db, "select error from samples")).toEqual([
      { error: "deterministic criterion contains did not finish within 200 ms" },
      { error: "deterministic criterion contains did not finish within 200 ms" },
    ]);
  });

  it("SIGINT (Ctrl-C) ends it within a second with exit code 130, the run interrupted", async () => {
    const db = path.join(tempDir(), "i.db");
    const child = await startStuck(db);
    const start = Date.now();
    child.kill("SIGINT");
    const r = await child.out;
    expect(Date.now() - start).toBeLessThan(1000);
    expect(r.code).toBe(130);
    expect(query(db, "select status, owner_pid from runs")).toEqual([
      { status: "interrupted", owner_pid: null },
    ]);
  });
});
