// `jury review` runs its review as a job: Ctrl-C aborts the calls in flight, stores nothing, leaves
// the job interrupted (never running) and exits 130, as a shell reports an interrupted command.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";
import { spawnJury } from "@/lib/testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "@/lib/testing/scripted-server";
import { enableProviders } from "@/lib/testing/settings-db";

let server: ScriptedServer;
beforeAll(async () => {
  // the gate answers; the scored judgment's calls never do (until the client gives up)
  server = await startScriptedServer((req) =>
    req.text.includes("When in doubt, pass")
      ? { json: { verdict: "pass", reasoning: "ok" } }
      : { hang: true },
  );
});
afterAll(() => server.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("SIGINT during jury review: calls aborted, nothing stored, the job interrupted, exit 130", async () => {
  const dir = tempDir();
  const db = enableProviders(path.join(dir, "jury.db"));
  fs.writeFileSync(path.join(dir, "change.diff"), "--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-old\n+new\n");
  const child = spawnJury(
    ["review", "--diff", path.join(dir, "change.diff"), "--criteria", "x becomes new", "--passed", "1"],
    {
      env: {
        JURY_DB: db,
        JURY_LOCAL_BASE_URL: server.baseURL,
        JUDGE_ENABLED: "true",
        JUDGE_MODEL: "local:judge",
        JUDGE_MAX_PER_HOUR: "100",
      },
    },
  );
  const deadline = Date.now() + 15_000;
  while (server.requests.length < 2 && Date.now() < deadline) await sleep(20);
  expect(server.requests.length).toBe(2); // the gate, then the judgment's one sample, in flight
  child.kill("SIGINT");
  const r = await child.out;
  expect(r.code, r.stderr).toBe(130);
  expect(r.stdout).toBe("");
  expect(r.stderr).toMatch(
    /Review rev_[0-9a-f]{10} interrupted: Stopped before it finished: nothing was stored\./,
  );
  const conn = new Database(db, { readonly: true });
  try {
    expect(conn.prepare("select count(*) as n from reviews").get()).toEqual({ n: 0 });
    expect(conn.prepare("select kind, status, owner_token from jobs").all()).toEqual([
      { kind: "review", status: "interrupted", owner_token: null },
    ]);
  } finally {
    conn.close();
  }
  await sleep(200);
  expect(server.requests.length).toBe(2); // no retry after the stop
});
