import path from "node:path";
import { describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { getRunById } from "@/db/queries/runs";
import { csvText } from "../csv";
import { tempDir } from "../testing/fixtures";
import { runJurySync } from "../testing/run-jury";
import { cliActor } from "./users";

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks. */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  for (const m of text.matchAll(/((?:"(?:[^"]|"")*"|[^",\r\n]*)(?:,(?:"(?:[^"]|"")*"|[^",\r\n]*))*)\r\n/g)) {
    const fields = [...m[1].matchAll(/(?:^|,)("(?:[^"]|"")*"|[^",]*)/g)].map((f) =>
      csvText(f[1].startsWith('"') ? f[1].slice(1, -1).replaceAll('""', '"') : f[1]),
    );
    rows.push(fields);
  }
  return rows;
}

const fresh = () => path.join(tempDir(), "audit.db");
const jury = (db: string, ...args: string[]) => runJurySync(args, { env: { JURY_DB: db } });

describe("jury audit", () => {
  it("says what lands in an empty log", () => {
    const r = jury(fresh(), "audit");
    expect([r.code, r.stdout]).toEqual([0, expect.stringContaining("The audit log is empty")]);
  });

  it("lists settings saves newest first, as the CLI's OS user, and exports them as JSON Lines and CSV", () => {
    const db = fresh();
    expect(jury(db, "settings", "set", "judging.samples", "5").code).toBe(0);
    const endpoint = JSON.stringify([
      {
        name: "router",
        baseUrl: "https://router.example/v1",
        apiKeyEnv: "JURY_ROUTER_API_KEY",
        enabled: true,
        models: ["m"],
      },
    ]);
    const set = jury(db, "settings", "set", "endpoints", endpoint);
    expect(set.code, set.stderr).toBe(0);

    const text = jury(db, "audit");
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    // newest first: the endpoint, then the samples
    expect(lines[0]).toContain(`\t${cliActor()}\tsaved settings\t`);
    expect(lines[0]).toContain("endpoints.router.apiKeyEnv: changed (value not recorded)");
    expect(lines[1]).toContain("judging.samples: 3 → 5");

    const jsonl = jury(db, "audit", "--format", "jsonl");
    expect(jsonl.code).toBe(0);
    const entries = jsonl.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => e.action)).toEqual(["settings.save", "settings.save"]);
    expect(entries[1]).toMatchObject({
      actor: cliActor(),
      target: null,
      detail: { changes: [{ path: "judging.samples", before: 3, after: 5 }] },
    });
    expect(entries[0].id).toBeGreaterThan(entries[1].id);
    expect(new Date(entries[0].at).toISOString()).toBe(entries[0].at);
    // the key's variable is never written, in any format
    for (const out of [text.stdout, jsonl.stdout, jury(db, "audit", "--format", "csv").stdout])
      expect(out).not.toContain("JURY_ROUTER_API_KEY");

    const csv = csvRows(jury(db, "audit", "--format", "csv", "--limit", "1").stdout);
    expect(csv[0]).toEqual(["id", "at", "actor", "action", "target", "summary", "detail"]);
    expect(csv).toHaveLength(2); // the header and the newest entry
    expect(csv[1][2]).toBe(cliActor());
    expect(JSON.parse(csv[1][6]).changes).toContainEqual({
      path: "endpoints.router.apiKeyEnv",
      redacted: true,
    });
  });

  it("a run of jury eval records the CLI's OS user as who started it", async () => {
    const db = fresh();
    expect(jury(db, "settings", "set", "providers.mock.enabled", "true").code).toBe(0);
    const r = jury(
      db,
      "eval",
      path.resolve("examples/suites/qa"),
      "--judges",
      "mock:judge",
      "--n",
      "1",
      "--json",
    );
    expect([0, 1], r.stderr).toContain(r.code); // 1: a verdict under its threshold
    const runId = JSON.parse(r.stdout).run_id;
    const store = createDb(db);
    try {
      expect((await getRunById(store, { id: runId }))?.createdBy).toBe(cliActor());
    } finally {
      store.$client.close();
    }
  });

  it("refuses a format or a limit it does not know with exit 2, naming it", () => {
    const db = fresh();
    const f = jury(db, "audit", "--format", "xml");
    expect([f.code, f.stderr]).toEqual([2, expect.stringContaining("--format")]);
    const l = jury(db, "audit", "--limit", "0");
    expect([l.code, l.stderr]).toEqual([2, expect.stringContaining("--limit")]);
  });
});
