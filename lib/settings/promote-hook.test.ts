// Promoting a study configuration changes what the built hook (bin/jury.cjs memory retrieve) does on
// its next run: a study of eight timeout queries, a BM25 top-5 and a single judge (the scripted
// OpenAI-compatible server keeps two memories), each promoted in turn, the hook run after each.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/db/client";
import { runExperiment } from "../memory/experiment";
import { importStudyFolder } from "../memory/import";
import { tempDir } from "../testing/fixtures";
import { runJury } from "../testing/run-jury";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "../testing/scripted-server";
import { promoteExperiment } from "./promote";
import { defaultSettings } from "./schema";
import { readSettings, writeSettings } from "./store";

let server: ScriptedServer;
const savedBaseUrl = process.env.JURY_LOCAL_BASE_URL;
beforeAll(async () => {
  server = await startScriptedServer(keepTwo);
  // the experiments run in this process against the same server as the hook
  process.env.JURY_LOCAL_BASE_URL = server.baseURL;
});
afterAll(async () => {
  if (savedBaseUrl === undefined) delete process.env.JURY_LOCAL_BASE_URL;
  else process.env.JURY_LOCAL_BASE_URL = savedBaseUrl;
  await server.close();
});

/** Keeps the candidates whose title says "HTTP timeout" or "Retry policy". */
function keepTwo(req: ScriptRequest) {
  const lines = [...req.text.matchAll(/^\[(\d+)\] \[[^\]]*\] (.*)$/gm)];
  return {
    json: { keep: lines.filter((l) => /HTTP timeout|Retry policy/.test(l[2])).map((l) => Number(l[1])) },
  };
}

const MEMORIES: [string, string, string[]][] = [
  ["t1", "HTTP timeout for outbound calls is 10 seconds", ["http", "timeout"]],
  ["t2", "Retry policy: exponential backoff on timeout", ["retry", "timeout"]],
  ["t3", "Checkout tests time out under load", ["checkout", "timeout"]],
  ["t4", "Webhook handler timeout is 5 seconds", ["webhook", "timeout"]],
  ["t5", "Database statement timeout", ["database", "timeout"]],
  ["t6", "Timeout errors are logged at warn level", ["logging", "timeout"]],
];
const PROMPTS = [
  "what is our http timeout policy",
  "http timeout and retry policy",
  "which timeout do outbound http calls use",
  "timeout policy for http calls",
  "how long is the http timeout",
  "retry policy on http timeout",
  "what timeout and retry do we use for http",
  "http call timeout policy",
];

/** The study, in the hook's collection ("default"): every query's relevant memories are t1 and t2. */
async function study(): Promise<{ file: string; db: Db }> {
  const dir = tempDir("jury-promote-");
  const folder = path.join(dir, "study");
  fs.mkdirSync(path.join(folder, "memories"), { recursive: true });
  for (const [id, title, tags] of MEMORIES)
    fs.writeFileSync(
      path.join(folder, "memories", `${id}.json`),
      JSON.stringify({ id, category: "decision", title, tags, body: `${title}.` }),
    );
  fs.writeFileSync(path.join(folder, "study.json"), JSON.stringify({ name: "timeouts" }));
  fs.writeFileSync(
    path.join(folder, "queries.json"),
    JSON.stringify(PROMPTS.map((text, i) => ({ id: `q${i + 1}`, text, relevant: ["t1", "t2"] }))),
  );
  const file = path.join(dir, "jury.db");
  const db = createDb(file);
  await importStudyFolder(db, folder, "default");
  const s = await readSettings(db);
  await writeSettings(db, {
    ...s,
    providers: { ...s.providers, local: { enabled: true, models: ["judge"] } },
  });
  return { file, db };
}

function hook(file: string) {
  return runJury(["memory", "retrieve"], {
    input: JSON.stringify({ prompt: PROMPTS[0] }),
    env: { JURY_DB: file, JURY_LOCAL_BASE_URL: server.baseURL, JURY_HOOK_LOG: `${file}.hook.log` },
  });
}
const ids = (out: string) => [...out.matchAll(/<memory id="([^"]+)"/g)].map((m) => m[1]);
function logRows(file: string): { path: string; kept_ids: string }[] {
  const d = new Database(file, { readonly: true });
  try {
    return d.prepare("select path, kept_ids from retrieval_log order by id").all() as never;
  } finally {
    d.close();
  }
}

describe("promoting a study configuration", () => {
  it("changes what the built hook injects on its next run, and jury settings get shows where it came from", async () => {
    const { file, db } = await study();
    const base = { mode: "auto" as const, poolSize: 15, shuffle: false };
    const bm25 = await runExperiment(db, {
      collection: "default",
      config: { ...base, kind: "bm25", topK: 5 },
      settings: await readSettings(db),
    });
    const judge = await runExperiment(db, {
      collection: "default",
      config: { ...base, kind: "single", topK: 3, model: "local:judge" },
      settings: await readSettings(db),
    });

    // before: the defaults (judge off, BM25 top 3)
    const r0 = await hook(file);
    expect(r0.code).toBe(0);
    expect(ids(r0.stdout)).toHaveLength(3);

    // BM25 top 5 measured worse than the judge: refused until acknowledged, with the reason
    await expect(promoteExperiment(db, bm25)).rejects.toThrow(
      /Not called best: another configuration measured best/,
    );
    expect((await readSettings(db)).provenance).toEqual({});
    await promoteExperiment(db, bm25, { confirmed: ["not_best"] });
    const afterBm25 = await readSettings(db);
    expect(afterBm25.memoryJudge).toMatchObject({ enabled: false, fallback_top_k: 5 });
    expect(afterBm25.memoryJudge.modes.auto.max_output).toBe(5);
    // the hook's quick path (judge off, no zod) still takes the row with its provenance
    const r1 = await hook(file);
    expect([r1.code, r1.stderr]).toEqual([0, ""]);
    expect(ids(r1.stdout)).toHaveLength(5);

    // the single judge is called best: promoted without a confirmation
    const p = await promoteExperiment(db, judge);
    expect(p.best).toBe(true);
    expect((await readSettings(db)).memoryJudge).toMatchObject({
      enabled: true,
      model: "local:judge",
      dual_verification: false,
      fallback_top_k: 3,
      modes: { auto: { verification: "strict", max_output: 3, candidate_pool_size: 15 } },
    });
    const before = server.requests.length;
    const r2 = await hook(file);
    expect(r2.code).toBe(0);
    expect(ids(r2.stdout).sort()).toEqual(["t1", "t2"]);
    expect(server.requests.length).toBe(before + 1);
    expect(server.requests.at(-1)?.model).toBe("judge");

    const rows = logRows(file);
    expect(rows.map((r) => r.path)).toEqual(["judge_disabled", "judge_disabled", "judge"]);
    expect(JSON.parse(rows[2].kept_ids).sort()).toEqual(["t1", "t2"]);

    // its provenance: the experiment, its figures with their intervals and n, the date
    const prov = (await readSettings(db)).provenance.memoryJudge;
    expect(prov).toMatchObject({ source: "experiment", id: judge });
    expect(prov.figures.precision).toEqual({ value: 1, low: 1, high: 1, n: 8 });
    expect(prov.figures["judge answered"]).toMatchObject({ value: 1, n: 8 });
    const get = await runJury(["settings", "get", "memoryJudge"], { env: { JURY_DB: file } });
    expect(get.code).toBe(0);
    expect(JSON.parse(get.stdout).model).toBe("local:judge");
    expect(get.stderr).toMatch(
      new RegExp(
        `^memoryJudge: from experiment ${judge} \\(.*\\) on \\d{4}-\\d\\d-\\d\\d: precision 1\\.00 \\[1\\.00, 1\\.00\\] n=8, recall 1\\.00 \\[1\\.00, 1\\.00\\] n=8, judge answered 1\\.00 \\[0\\.\\d\\d, 1\\.00\\] n=8\\n$`,
      ),
    );

    // a hand edit of a promoted value marks it changed; of another value, not
    const s = await readSettings(db);
    await writeSettings(db, { ...s, memoryJudge: { ...s.memoryJudge, timeout_per_call: 5 } });
    expect((await readSettings(db)).provenance.memoryJudge.overriddenAt).toBeUndefined();
    const set = await runJury(["settings", "set", "memoryJudge.modes.auto.max_output", "4"], {
      env: { JURY_DB: file },
    });
    expect(set.code, set.stderr).toBe(0);
    expect((await readSettings(db)).provenance.memoryJudge.overriddenAt).toMatch(/^\d{4}-/);
    const again = await runJury(["settings", "get", "memoryJudge.model"], { env: { JURY_DB: file } });
    expect(again.stdout).toBe("local:judge\n");
    expect(again.stderr).toContain("changed by hand on");
    expect(defaultSettings.provenance).toEqual({});
  });
});
