// The hook as Claude Code runs it: bin/jury.cjs → dist/hook.cjs (and dist/hook-full.cjs), built by
// scripts/build-cli.mjs (vitest's global setup), against the scripted OpenAI-compatible server.
// Each test checks the fallback ladder or the hook's time budget on one path that used to break it.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { upsertMemories } from "@/db/queries/memories";
import { sqliteDriver } from "@/db/sqlite";
import { defaultSettings, type Settings } from "../settings/schema";
import { writeSettings } from "../settings/store";
import { tempDir } from "../testing/fixtures";
import { runJury } from "../testing/run-jury";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "../testing/scripted-server";

// the driver the CLI uses on this Node (better-sqlite3 13 from Node 22 on)
const Database = sqliteDriver();

const root = path.resolve(__dirname, "../..");
const FIXTURES = path.join(root, "lib/memory/fixtures");

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

/** Six memories about HTTP timeouts and retries; the hook prompt below matches all of them. */
async function setup(judge: Partial<Settings["memoryJudge"]> | null, extra: Partial<Settings> = {}) {
  const dir = tempDir("jury-hook-");
  const db = path.join(dir, "jury.db");
  const d = createDb(db);
  const m = (id: string, title: string, tags: string[]) => ({
    memoryId: id,
    category: "decision",
    title,
    tags,
    body: `${title}.`,
  });
  upsertMemories(d, "default", [
    m("t1", "HTTP timeout for outbound calls is 10 seconds", ["http", "timeout"]),
    m("t2", "Retry policy: exponential backoff on timeout", ["retry", "timeout"]),
    m("t3", "Checkout tests time out under load", ["checkout", "timeout"]),
    m("t4", "Webhook handler timeout is 5 seconds", ["webhook", "timeout"]),
    m("t5", "Database statement timeout", ["database", "timeout"]),
    m("t6", "Timeout errors are logged at warn level", ["logging", "timeout"]),
  ]);
  if (judge)
    await writeSettings(d, {
      ...defaultSettings,
      ...extra,
      memoryJudge: { ...defaultSettings.memoryJudge, enabled: true, model: "local:judge", ...judge },
    });
  d.$client.close();
  return { dir, db, log: path.join(dir, "hook.log") };
}

const PROMPT = "what is our http timeout policy";

function hook(
  s: { db: string; log: string },
  opts: { input?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  return runJury(["memory", "retrieve"], {
    input: opts.input ?? JSON.stringify({ prompt: PROMPT }),
    env: {
      JURY_DB: s.db,
      JURY_HOOK_LOG: s.log,
      JURY_LOCAL_BASE_URL: server.baseURL,
      ANTHROPIC_API_KEY: "",
      ...opts.env,
    },
  }).then((r) => ({ ...r, ms: performance.now() - started }));
}

type Row = {
  path: string;
  source: string;
  mode: string;
  query: string;
  candidate_ids: string;
  kept_ids: string;
  dropped: string | null;
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  error: string | null;
};
function rows(db: string): Row[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare("select * from retrieval_log order by id").all() as Row[];
  } finally {
    d.close();
  }
}
const ids = (out: string) => [...out.matchAll(/<memory id="([^"]+)"/g)].map((m) => m[1]);
const readLog = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8") : "");
/** What a process start and exit add around the budget on a busy two-core machine. */
const SLACK_MS = 1_500;

/** Keeps the candidates shown with "HTTP timeout" or "Retry policy" in their title; reasons for the rest. */
function keepTwo(req: ScriptRequest) {
  const lines = [...req.text.matchAll(/^\[(\d+)\] \[[^\]]*\] (.*)$/gm)];
  const keep = lines.filter((l) => /HTTP timeout|Retry policy/.test(l[2])).map((l) => Number(l[1]));
  const dropped = lines
    .filter((l) => !keep.includes(Number(l[1])) && !l[2].includes("logged"))
    .map((l) => ({ index: Number(l[1]), reason: `not about ${l[2].split(" ")[0]}` }));
  return { json: { keep, dropped } };
}

describe("the bundles", () => {
  it("dist/hook.cjs and dist/hook-full.cjs come from this build, and the judge path loads hook-full", async () => {
    const hookFile = path.join(root, "dist/hook.cjs");
    const fullFile = path.join(root, "dist/hook-full.cjs");
    for (const src of ["lib/cli/memory-hook.ts", "lib/memory/retrieve.ts", "lib/cli/hook-full.ts"])
      expect(fs.statSync(hookFile).mtimeMs).toBeGreaterThanOrEqual(fs.statSync(path.join(root, src)).mtimeMs);
    const small = fs.readFileSync(hookFile, "utf8");
    expect(small.length).toBeLessThan(200_000);
    expect(small).toContain('require("./hook-full.cjs")');
    expect(small).toContain("JURY_HOOK_BUDGET_MS");
    expect(fs.readFileSync(fullFile, "utf8")).toContain("openHookDb");

    const s = await setup({});
    server.setScript(keepTwo);
    const r = await hook(s, { env: { NODE_DEBUG: "module" } });
    expect(r.code).toBe(0);
    // Node's module trace: the heavy half was required from the built file beside the hook
    expect(r.stderr).toMatch(/hook-full\.cjs/);
    expect(ids(r.stdout).sort()).toEqual(["t1", "t2"]);
  });
});

describe("the fallback ladder through the built hook", () => {
  it("judge on, no API key: path no_api_key and BM25 top 3 (the key check crosses the two bundles)", async () => {
    const s = await setup({ model: "anthropic:claude-haiku-4-5-20251001" });
    const r = await hook(s);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(ids(r.stdout)).toHaveLength(3);
    const [row] = rows(s.db);
    expect(row).toMatchObject({ path: "no_api_key", source: "hook", mode: "auto", dropped: null });
    expect(JSON.parse(row.kept_ids)).toEqual(ids(r.stdout));
    expect(JSON.parse(row.candidate_ids)).toHaveLength(6);
    expect(row.error).toMatch(/ANTHROPIC_API_KEY/);
  });

  it("judge answers: its picks, and the row holds candidates, kept, dropped with the judge's reasons, tokens and cost", async () => {
    const s = await setup({}, { prices: { "local:judge": { inputPerMTok: 1_000, outputPerMTok: 2_000 } } });
    server.setScript(keepTwo);
    const r = await hook(s);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(ids(r.stdout).sort()).toEqual(["t1", "t2"]);
    const [row] = rows(s.db);
    expect(row).toMatchObject({ path: "judge", source: "hook", query: PROMPT, error: null });
    expect(JSON.parse(row.kept_ids).sort()).toEqual(["t1", "t2"]);
    expect(JSON.parse(row.candidate_ids).sort()).toEqual(["t1", "t2", "t3", "t4", "t5", "t6"]);
    const dropped = JSON.parse(row.dropped ?? "null") as { memoryId: string; reason?: string }[];
    expect(dropped.map((d) => d.memoryId).sort()).toEqual(["t3", "t4", "t5", "t6"]);
    expect(dropped.find((d) => d.memoryId === "t3")).toEqual({
      memoryId: "t3",
      reason: "not about Checkout",
    });
    // the judge gave no reason for t6: none is invented
    expect(dropped.find((d) => d.memoryId === "t6")).toEqual({ memoryId: "t6" });
    expect(row.input_tokens).toBeGreaterThan(0);
    expect(row.output_tokens).toBeGreaterThan(0);
    expect(row.cost_usd).toBeCloseTo((row.input_tokens * 1_000 + row.output_tokens * 2_000) / 1e6, 9);
    expect(row.latency_ms).toBeGreaterThan(0);
  });

  it("judge hangs: the fallback (top fallback_top_k) is printed within the budget and the row says timeout", async () => {
    const s = await setup({ timeout_per_call: 60 });
    server.setScript(() => ({ hang: true }));
    const before = server.requests.length;
    const r = await hook(s, { env: { JURY_HOOK_BUDGET_MS: "2500" } });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(server.requests.length).toBe(before + 1); // the judge was asked, and never answered
    expect(r.ms).toBeLessThan(2_500 + SLACK_MS);
    expect(r.ms).toBeGreaterThan(1_500); // it did wait for the judge, up to the budget
    expect(ids(r.stdout)).toHaveLength(2);
    const [row] = rows(s.db);
    expect(row).toMatchObject({ path: "timeout", source: "hook", dropped: null, input_tokens: 0 });
    expect(JSON.parse(row.kept_ids)).toEqual(ids(r.stdout));
    expect(row.error).toMatch(/abandoned/);
    expect(row.latency_ms).toBeLessThan(2_500);
    expect(readLog(s.log)).toMatch(/timeout: the judge had not answered/);
  });

  it("judge slower than its own timeout_per_call but within the budget: path timeout, top 2", async () => {
    const s = await setup({ timeout_per_call: 0.5 });
    server.setScript(() => ({ hang: true }));
    const r = await hook(s);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.ms).toBeLessThan(8_000);
    expect(ids(r.stdout)).toHaveLength(2);
    expect(rows(s.db)[0]).toMatchObject({ path: "timeout" });
    expect(rows(s.db)[0].error).toMatch(/No answer within 500 ms/);
  });

  it("a budget that is not a whole number of milliseconds: the default, and a line in the log", async () => {
    const s = await setup(null);
    const r = await hook(s, { env: { JURY_HOOK_BUDGET_MS: "soon" } });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(ids(r.stdout)).toHaveLength(3);
    expect(readLog(s.log)).toMatch(
      /JURY_HOOK_BUDGET_MS must be a whole number of milliseconds .* got "soon"; using 8000/,
    );
  });
});

describe("nothing holds the hook past its budget", () => {
  it("a transcript_path that is a FIFO nobody writes: never opened, the answer comes within the budget", async () => {
    const s = await setup({});
    const fifo = path.join(s.dir, "transcript.jsonl");
    execFileSync("mkfifo", [fifo]);
    server.setScript(keepTwo);
    const r = await hook(s, {
      input: JSON.stringify({ prompt: PROMPT, transcript_path: fifo }),
      env: { JURY_HOOK_BUDGET_MS: "3000" },
    });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.ms).toBeLessThan(3_000 + SLACK_MS);
    expect(ids(r.stdout).sort()).toEqual(["t1", "t2"]);
    // the judge was asked without a conversation, and the log says why
    expect(server.requests.at(-1)?.text).not.toContain("Recent conversation");
    expect(readLog(s.log)).toMatch(
      /transcript .*transcript\.jsonl is a FIFO \(named pipe\), not a regular file/,
    );
    expect(rows(s.db)[0]).toMatchObject({ path: "judge" });
  });

  it("the real transcript (a regular file) goes to the judge, its tail only", async () => {
    const s = await setup({});
    server.setScript(keepTwo);
    const r = await hook(s, {
      input: JSON.stringify({
        prompt: PROMPT,
        transcript_path: path.join(FIXTURES, "claude-code-transcript.jsonl"),
      }),
    });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(server.requests.at(-1)?.text).toMatch(/Recent conversation:\nuser: |assistant: /);
  });

  for (const judge of [null, {}] as const) {
    it(`a database write-locked by another connection (BEGIN IMMEDIATE held), judge ${judge ? "on" : "off"}: the answer within the budget, the row skipped and said so`, async () => {
      const s = await setup(judge);
      server.setScript(keepTwo);
      const holder = new Database(s.db);
      holder.pragma("journal_mode = WAL");
      holder.exec("BEGIN IMMEDIATE");
      try {
        const r = await hook(s, { env: { JURY_HOOK_BUDGET_MS: "2500" } });
        expect(r).toMatchObject({ code: 0, stderr: "" });
        expect(r.ms).toBeLessThan(2_500 + SLACK_MS);
        // the judge's two, or BM25's top 3
        if (judge) expect(ids(r.stdout).sort()).toEqual(["t1", "t2"]);
        else expect(ids(r.stdout)).toHaveLength(3);
        expect(readLog(s.log)).toMatch(
          /retrieval_log row skipped: the database stayed locked by another connection for the \d+ ms the budget had left \(SQLITE_BUSY/,
        );
      } finally {
        holder.exec("ROLLBACK");
        holder.close();
      }
      expect(rows(s.db)).toEqual([]);
    });
  }

  it("a lock released within the budget: the row is written after the wait", async () => {
    const s = await setup(null);
    const holder = new Database(s.db);
    holder.pragma("journal_mode = WAL");
    holder.exec("BEGIN IMMEDIATE");
    const release = setTimeout(() => {
      holder.exec("ROLLBACK");
      holder.close();
    }, 700);
    const r = await hook(s, { env: { JURY_HOOK_BUDGET_MS: "5000" } });
    clearTimeout(release);
    if (holder.open) holder.close();
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(ids(r.stdout)).toHaveLength(3);
    expect(rows(s.db)).toHaveLength(1);
    expect(readLog(s.log)).not.toMatch(/skipped/);
  });

  it("migration 0008 pending on a large store (as after an upgrade): the hook leaves it to another command, says so, answers at once", async () => {
    // a database as the version before 0008 left it: migrated to 0007, 20,006 memories
    const mig = tempDir("jury-migrations-");
    fs.cpSync(path.join(root, "db", "migrations"), mig, { recursive: true });
    const journalFile = path.join(mig, "meta", "_journal.json");
    const journal = JSON.parse(fs.readFileSync(journalFile, "utf8"));
    journal.entries = journal.entries.filter((e: { tag: string }) => e.tag < "0008");
    fs.writeFileSync(journalFile, JSON.stringify(journal));
    const dir = tempDir("jury-hook-");
    const big = { db: path.join(dir, "jury.db"), log: path.join(dir, "hook.log") };
    const d = createDb(big.db, { migrationsFolder: mig });
    d.$client
      .prepare(
        `with recursive n(i) as (select 0 union all select i + 1 from n where i < 20005)
         insert into memories (collection, memory_id, category, title, tags, body, created_at, updated_at)
         select 'default', 'm' || i, 'decision',
                case when i < 6 then 'HTTP timeout policy ' || i else 'Unrelated note ' || i end,
                '["note"]', 'body', 0, 0 from n`,
      )
      .run();
    const applied = () => d.$client.prepare("select count(*) from __drizzle_migrations").pluck().get();
    const before = applied();
    const started = performance.now();
    const r = await hook(big);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(performance.now() - started).toBeLessThan(3000); // not the migration's time
    expect(fs.readFileSync(big.log, "utf8")).toMatch(
      /migrations pending on a database of 20006 memories: the hook does not apply them .*run `npm run db:migrate` or any other jury command once/,
    );
    expect(applied()).toBe(before);
    d.$client.close();
    // another command migrates; then the hook answers again
    expect((await runJury(["memory", "log", "--json"], { env: { JURY_DB: big.db } })).code).toBe(0);
    const again = await hook(big);
    expect(again.stdout).toContain("HTTP timeout policy");
  });

  it("a hook log path that is a FIFO: the hook neither blocks nor fails", async () => {
    const s = await setup({ model: "anthropic:claude-haiku-4-5-20251001" });
    execFileSync("mkfifo", [s.log]);
    const r = await hook(s, { env: { JURY_HOOK_BUDGET_MS: "2000" } });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.ms).toBeLessThan(2_000 + SLACK_MS);
    expect(ids(r.stdout)).toHaveLength(3);
  });
});

describe("jury memory search and the log", () => {
  it("search works without a conversation, logs source search; log --json and the text view show it", async () => {
    const s = await setup(null);
    const env = { ...process.env, JURY_DB: s.db };
    const run = (args: string[], input?: string) =>
      spawnSync(process.execPath, [path.join(root, "bin/jury.cjs"), ...args], {
        env,
        input,
        encoding: "utf8",
        timeout: 30_000,
      });
    const search = run(["memory", "search", "--json", "--", "timeout retry"]);
    expect(search.status).toBe(0);
    const out = JSON.parse(search.stdout);
    expect(out.path).toBe("judge_disabled");
    expect(out.log_id).toBeGreaterThan(0);
    expect(out.candidates.map((c: { id: string }) => c.id)).toContain("t2");
    expect(out.candidates[0]).toMatchObject({ id: expect.any(String), title: expect.any(String) });

    const rec = run(
      ["memory", "log", "--record", "-"],
      JSON.stringify({
        log_id: out.log_id,
        kept: ["t2"],
        dropped: [{ id: "t3", reason: "checkout, not retries" }],
      }),
    );
    expect(rec.stderr).toBe("");
    expect(rec.stdout).toMatch(/Recorded the skill's decision as #\d+/);

    const log = JSON.parse(run(["memory", "log", "--json", "--limit", "2"]).stdout);
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({ source: "skill", path: "agent_judge", mode: "search", kept_ids: ["t2"] });
    expect(log[0].dropped).toContainEqual({ memoryId: "t3", reason: "checkout, not retries" });
    // every candidate not kept is dropped, with no reason where the skill gave none
    expect(log[0].dropped).toHaveLength(out.candidates.length - 1);
    expect(log[1]).toMatchObject({
      source: "search",
      mode: "search",
      path: "judge_disabled",
      query: "timeout retry",
    });
    expect(log[1].candidate_ids).toEqual(out.candidates.map((c: { id: string }) => c.id));
    const text = run(["memory", "log"]).stdout;
    expect(text).toMatch(/#\d+ .* skill +search +agent_judge +kept 1 of \d+/);
    expect(text).toContain("t3 (checkout, not retries)");
  });

  const bad: [string, string[], RegExp][] = [
    ["--limit 0", ["--limit", "0"], /--limit must be a whole number from 1 to 1000, got "0"/],
    ["--limit x", ["--limit", "x"], /--limit must be a whole number/],
    ["an unknown option", ["--foo"], /Unknown option '--foo'/],
    ["--record not JSON", ["--record", "{oops"], /--record: not JSON/],
    [
      "--record an id that is no candidate",
      ["--record", '{"query":"q","candidates":["t1"],"kept":["zz"]}'],
      /"zz" is not among the search's candidates/,
    ],
    [
      "--record a missing memory",
      ["--record", '{"query":"q","candidates":["nope"],"kept":[]}'],
      /"nope": no such memory in collection "default"/,
    ],
    ["--record a wrong type", ["--record", '{"log_id":"1","kept":[]}'], /--record: log_id: /],
    ["--record without a search", ["--record", '{"kept":[]}'], /give "log_id"/],
  ];
  for (const [name, args, message] of bad)
    it(`jury memory log with ${name}: exit 2 naming it`, async () => {
      const s = await setup(null);
      const r = spawnSync(process.execPath, [path.join(root, "bin/jury.cjs"), "memory", "log", ...args], {
        env: { ...process.env, JURY_DB: s.db },
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
    });

  it("jury memory log --help", () => {
    const r = spawnSync(process.execPath, [path.join(root, "bin/jury.cjs"), "memory", "log", "--help"], {
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: jury memory log \[--json\] \[--limit N\]/);
  });
});
