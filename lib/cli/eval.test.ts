import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqliteDriver } from "@/db/sqlite";
import { hashString } from "../providers/mock-model";
import { tempDir } from "../testing/fixtures";
import { spawnJury } from "../testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { enableProviders } from "../testing/settings-db";

// the driver the CLI uses on this Node (better-sqlite3 13 from Node 22 on)
const Database = sqliteDriver();

const root = path.resolve(__dirname, "../..");
const QA = path.join(root, "examples/suites/qa");
let server: ScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer((req) => ({
    delayMs: 40,
    json: { score: 1 + (hashString(`${req.text}#${req.index}`) % 10), reasoning: `call ${req.index}` },
  }));
});
afterAll(() => server.close());

/** `jury …` on `db`; a new database gets settings enabling the local provider (judges must be callable). */
const jury = (args: string[], db: string) => {
  if (!fs.existsSync(db)) enableProviders(db);
  return spawnJury(args, { cwd: tempDir(), env: { JURY_DB: db, JURY_LOCAL_BASE_URL: server.baseURL } });
};

const count = (db: string, sql: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).pluck().get() as number;
  } finally {
    d.close();
  }
};

describe("jury eval", () => {
  it("--json prints the aggregate's fields, equal to what is stored", async () => {
    const db = path.join(tempDir(), "j.db");
    const r = await jury(["eval", QA, "--judges", "local:a,local:b", "--n", "2", "--json"], db).out;
    expect([0, 1]).toContain(r.code);
    const out = JSON.parse(r.stdout);
    expect(out.run_id).toMatch(/^run_/);
    expect(out.status).toBe("done");
    const first = out.cases[0].criteria.find((c: { criterion_type: string }) => c.criterion_type === "llm");
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining([
        "model_results",
        "final_score",
        "cross_model_std",
        "consensus_level",
        "threshold",
        "passed",
        "flag_for_review",
      ]),
    );
    expect(Object.keys(first.model_results)).toEqual(["local:a", "local:b"]);
    expect(first.model_results["local:a"]).toMatchObject({
      n: 2,
      samples: expect.any(Array),
      mean_score: expect.any(Number),
      std: expect.any(Number),
    });
    const d = new Database(db, { readonly: true });
    const stored = d
      .prepare("select case_id, criterion_id, data from results where run_id = ?")
      .all(out.run_id) as { case_id: string; criterion_id: string; data: string }[];
    d.close();
    const printed = out.cases.flatMap((c: { case_id: string; criteria: { criterion_id: string }[] }) =>
      c.criteria.map((x) => ({ case_id: c.case_id, x })),
    );
    expect(printed).toHaveLength(stored.length);
    for (const p of printed) {
      const s = stored.find((row) => row.case_id === p.case_id && row.criterion_id === p.x.criterion_id);
      expect(JSON.parse(s!.data)).toEqual(p.x);
    }
    // exit code: 1 exactly when some verdict failed
    expect(r.code).toBe(printed.some((p: { x: { passed: boolean } }) => !p.x.passed) ? 1 : 0);
  });

  it("survives SIGKILL mid-run: --resume finishes without repeating finished samples", async () => {
    const db = path.join(tempDir(), "k.db");
    const child = jury(
      ["eval", QA, "--judges", "local:a", "--n", "3", "--concurrency", "2", "--no-cache"],
      db,
    );
    // wait until some samples are stored, then kill without warning
    const deadline = Date.now() + 20_000;
    let stored = 0;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        stored = count(db, "select count(*) from samples where judge != 'deterministic'");
      } catch {}
      if (stored >= 6) break;
    }
    child.kill("SIGKILL");
    await child.out;
    expect(stored).toBeGreaterThanOrEqual(6);
    const runId = (() => {
      const d = new Database(db, { readonly: true });
      const id = d.prepare("select id from runs").pluck().get() as string;
      d.close();
      return id;
    })();
    const finishedBefore = count(db, "select count(*) from samples");
    const pendingBefore = count(db, "select count(*) from tasks where status = 'pending'");
    // the model calls among them (a deterministic criterion's task calls no server)
    const callsPending = count(
      db,
      "select count(*) from tasks where status = 'pending' and judge != 'deterministic'",
    );
    const total = count(db, "select count(*) from tasks");
    expect(pendingBefore).toBeGreaterThan(0);
    expect(count(db, "select count(*) from runs where status = 'running'")).toBe(1); // as the killed process left it

    await new Promise((r) => setTimeout(r, 300)); // let abandoned requests reach the server
    const requestsBefore = server.requests.length;
    const r = await jury(["eval", "--resume", runId], db).out;
    expect(r.stderr).toContain(`${pendingBefore} of ${total} tasks to do`);
    expect([0, 1]).toContain(r.code);
    expect(server.requests.length - requestsBefore).toBe(callsPending);
    expect(count(db, "select count(*) from samples")).toBe(total);
    expect(
      count(db, "select count(*) from (select task_id from samples group by task_id having count(*) > 1)"),
    ).toBe(0);
    expect(count(db, `select count(*) from samples where id <= ${finishedBefore}`)).toBe(finishedBefore);
    expect(count(db, "select status = 'done' from runs")).toBe(1);
    const integrity = new Database(db, { readonly: true });
    expect(integrity.pragma("integrity_check", { simple: true })).toBe("ok");
    integrity.close();
  });

  it("rejects bad options with a clear message and exit 2", async () => {
    const db = path.join(tempDir(), "u.db");
    const r = await jury(["eval", QA, "--n", "11"], db).out;
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--n must be a whole number from 1 to 10, got "11"');
    const missing = await jury(["eval", path.join(root, "nope")], db).out;
    expect(missing.code).toBe(2); // a configuration error
    expect(missing.stderr).toMatch(/nope: no suite\.json/);
    const bad = await jury(["eval", QA, "--provider-concurrency", "0"], db).out;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--provider-concurrency must be a whole number from 1 to 256, got "0"');
  });

  it("--concurrency says what the provider limit leaves of it; --provider-concurrency raises that limit", async () => {
    const args = (extra: string[]) => ["eval", QA, "--judges", "local:a", "--n", "4", "--no-cache", ...extra];
    // Settings' default: 4 per provider, so one provider's judges have 4 in flight whatever --concurrency says
    server.resetPeakInFlight();
    const capped = await jury(args(["--concurrency", "12"]), path.join(tempDir(), "c1.db")).out;
    expect([0, 1]).toContain(capped.code);
    expect(capped.stderr).toContain(
      "calls in flight: at most 4, not 12: 4 per provider × 1 provider (local); raise it with --provider-concurrency",
    );
    expect(server.peakInFlight()).toBeLessThanOrEqual(4);

    server.resetPeakInFlight();
    const raised = await jury(
      args(["--concurrency", "12", "--provider-concurrency", "12"]),
      path.join(tempDir(), "c2.db"),
    ).out;
    expect([0, 1]).toContain(raised.code);
    expect(raised.stderr).toContain(
      "calls in flight: at most 12 (--concurrency 12; 12 per provider × 1 provider (local))",
    );
    expect(server.peakInFlight()).toBeGreaterThan(4);
    expect(server.peakInFlight()).toBeLessThanOrEqual(12);
  });
});
