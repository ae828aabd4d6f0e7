import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hashString } from "../providers/mock-model";
import { tempDir, writeJson } from "../testing/fixtures";
import { runJury } from "../testing/run-jury";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "../testing/scripted-server";
import { enableProviders } from "../testing/settings-db";

let server: ScriptedServer;

/** local:a answers a score in the prompt's scale; local:b (and any model named "down…") always answers 500. */
function panel(req: ScriptRequest) {
  if (req.model === "b" || req.model.startsWith("down"))
    return { status: 500, message: "upstream exploded" } as const;
  return {
    json: { score: 1 + (hashString(`${req.text}#${req.index}`) % 10), reasoning: `call ${req.index}` },
  };
}

beforeAll(async () => {
  server = await startScriptedServer(panel);
});
afterAll(() => server.close());
beforeEach(() => server.setScript(panel));

/** Two cases × (two LLM criteria + one deterministic check). */
function smallSuite(extra: Record<string, unknown> = {}): string {
  const dir = tempDir("jury-suite-");
  writeJson(path.join(dir, "suite.json"), {
    name: "Honest figures",
    criteria: [
      { id: "correctness", threshold: 5 },
      { id: "conciseness", threshold: 5 },
      { id: "length_bounds", params: { min_chars: 1, max_chars: 800 } },
    ],
    ...extra,
  });
  for (const i of [1, 2])
    writeJson(path.join(dir, "cases", `c${i}.json`), {
      id: `c${i}`,
      name: `Case ${i}`,
      input: { prompt: `What is ${i} + ${i}?`, reference: String(2 * i) },
      output: `It is ${2 * i}.`,
    });
  return dir;
}

/** A database whose settings enable the local provider, with no retries (a 500 fails at once). */
const dbFile = (providers: ("local" | "openai" | "anthropic" | "mock")[] = ["local"]) =>
  enableProviders(path.join(tempDir(), "j.db"), providers, (s) => ({
    ...s,
    judging: { ...s.judging, maxRetries: 0, timeoutMs: 5000 },
  }));

const jury = (args: string[], db: string, env: Record<string, string> = {}) =>
  runJury(args, {
    cwd: tempDir(),
    env: { JURY_DB: db, JURY_LOCAL_BASE_URL: server.baseURL, OPENAI_API_KEY: "", ...env },
  });

const rows = (db: string, sql: string, ...params: unknown[]) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).all(...params) as Record<string, unknown>[];
  } finally {
    d.close();
  }
};

type Cov = {
  judges_asked: number;
  judges_answered: number;
  samples_asked: number;
  samples_answered: number;
  samples_failed: number;
};

describe("preflight: a judge that cannot be called is refused before anything is spent or stored", () => {
  it("a panel with one judge whose provider has no key: exit 2 naming the judge and the variable; no call, no row", async () => {
    const db = dbFile(["local", "openai"]); // openai enabled, OPENAI_API_KEY empty
    const before = server.requests.length;
    const r = await jury(["eval", smallSuite(), "--judges", "local:a,openai:gpt-5-mini", "--n", "1"], db);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("openai:gpt-5-mini: OPENAI_API_KEY is not set");
    expect(r.stderr).not.toContain("local:a:");
    expect(server.requests.length).toBe(before);
    for (const t of ["runs", "tasks", "samples", "jobs", "results"])
      expect(rows(db, `select count(*) as n from ${t}`)[0].n, t).toBe(0);
  });

  it("a disabled provider (the mock one is off unless enabled) is named with its setting", async () => {
    const db = dbFile(["local"]);
    const r = await jury(["eval", smallSuite(), "--judges", "mock:judge,anthropic:claude-sonnet-4-5"], db);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "mock:judge: the mock provider is disabled in Settings (enable it: jury settings set providers.mock.enabled true)",
    );
    expect(r.stderr).toContain("anthropic:claude-sonnet-4-5: the anthropic provider is disabled in Settings");
    expect(rows(db, "select count(*) as n from runs")[0].n).toBe(0);
  });
});

describe("a panel of two judges where one always answers 500", () => {
  it("ends done_with_failures; every cell: 1 of 2 judges, no consensus level; --json coverage matches the stored samples", async () => {
    const db = dbFile();
    const r = await jury(["eval", smallSuite(), "--judges", "local:a,local:b", "--n", "2", "--json"], db);
    expect(r.stderr).not.toMatch(/error/i);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe("done_with_failures");
    expect(rows(db, "select status from runs")[0].status).toBe("done_with_failures");

    // recompute every coverage from the stored samples
    const samples = rows(db, "select case_id, criterion_id, judge, score, error from samples") as {
      case_id: string;
      criterion_id: string;
      judge: string;
      score: number | null;
      error: string | null;
    }[];
    const ok = (s: (typeof samples)[number]) => s.score !== null && s.error === null;
    let llmCells = 0;
    for (const c of out.cases) {
      for (const v of c.criteria) {
        const mine = samples.filter((s) => s.case_id === c.case_id && s.criterion_id === v.criterion_id);
        const judges = new Set(mine.filter(ok).map((s) => s.judge));
        const want: Cov = {
          judges_asked: v.criterion_type === "llm" ? 2 : 1,
          judges_answered: judges.size,
          samples_asked: v.criterion_type === "llm" ? 4 : 1,
          samples_answered: mine.filter(ok).length,
          samples_failed: mine.filter((s) => !ok(s)).length,
        };
        expect(v.coverage, `${c.case_id} ${v.criterion_id}`).toEqual(want);
        if (v.criterion_type !== "llm") continue;
        llmCells++;
        expect(v.coverage).toMatchObject({ judges_answered: 1, samples_answered: 2, samples_failed: 2 });
        expect(v.consensus_level).toBeNull();
        expect(v.cross_model_std).toBeNull();
        expect(v.agreement).toBe("single judge");
        // failed samples never enter the score: it is local:a's mean alone
        const aScores = mine.filter((s) => s.judge === "local:a").map((s) => s.score as number);
        expect(v.final_score).toBe(Math.round(((aScores[0] + aScores[1]) / 2) * 100) / 100);
      }
    }
    expect(llmCells).toBe(4);
    // the run's coverage, recomputed
    expect(out.coverage).toEqual({
      judges_asked: 2,
      judges_answered: 1,
      samples_asked: rows(db, "select count(*) as n from tasks")[0].n,
      samples_answered: samples.filter(ok).length,
      samples_failed: samples.filter((s) => !ok(s)).length,
      samples_pending: 0,
    });
    expect(out.coverage.samples_failed).toBe(8);
    expect(out.failures).toEqual([
      { judge: "local:b", kind: "HTTP 500", count: 8, example: expect.stringContaining("HTTP 500") },
    ]);
    // a judge answered every verdict: pass or fail, never 3
    expect([0, 1]).toContain(r.code);

    // the text says the same
    const t = await jury(["eval", smallSuite(), "--judges", "local:a,local:b", "--n", "2"], db);
    expect(t.stdout).toMatch(/done with failures/);
    expect(t.stdout).toMatch(/correctness\s+\S+\s+5\s+\S+\s+1 of 2\s+2 of 4 \(2 failed\)\s+single judge/);
    expect(t.stdout).toContain("coverage: 1 of 2 judges answered · 10 of 18 samples (8 failed)");
    expect(t.stdout).toMatch(/local:b\s+HTTP 500\s+×8/);
    // no price for either judge: the cost is not $0, it is unknown
    expect(t.stdout).toContain("cost: $0.0000 + unpriced (local:a, local:b: no price in Settings)");
    expect(t.stderr).toMatch(/tasks · 8 failed · \$0\.0000 \+ unpriced/);
    expect(out.unpriced_judges).toEqual(["local:a", "local:b"]);
    expect(t.stdout).not.toMatch(/STRONG|GOOD|PARTIAL|LOW/);
  });

  it("--strict exits 3 when any sample failed; no judge answering a verdict exits 3 without it", async () => {
    const db = dbFile();
    const strict = await jury(
      ["eval", smallSuite(), "--judges", "local:a,local:b", "--n", "1", "--strict", "--json"],
      db,
    );
    expect(JSON.parse(strict.stdout).status).toBe("done_with_failures");
    expect(strict.code).toBe(3);

    const none = await jury(
      ["eval", smallSuite(), "--judges", "local:down1,local:down2", "--n", "1", "--json"],
      db,
    );
    const out = JSON.parse(none.stdout);
    const llm = out.cases.flatMap((c: { criteria: { criterion_type: string }[] }) =>
      c.criteria.filter((v) => v.criterion_type === "llm"),
    );
    expect(
      llm.every((v: { agreement: string; final_score: null }) => v.agreement === "no judge answered"),
    ).toBe(true);
    expect(llm.every((v: { final_score: number | null }) => v.final_score === null)).toBe(true);
    expect(none.code).toBe(3);
  });

  it("a clean run is done and exits 0 or 1 by its verdicts", async () => {
    const db = dbFile();
    const r = await jury(["eval", smallSuite(), "--judges", "local:a,local:c", "--n", "1", "--json"], db);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe("done");
    expect(out.coverage).toMatchObject({ judges_answered: 2, samples_failed: 0 });
    const allPassed = out.cases.every((c: { criteria: { passed: boolean }[] }) =>
      c.criteria.every((v) => v.passed),
    );
    expect(r.code).toBe(allPassed ? 0 : 1);
  });
});

describe("preflight for a memory experiment", () => {
  it("a judge configuration whose provider is disabled or has no key is refused before anything is stored (exit 2)", async () => {
    const db = dbFile(["local", "openai"]);
    const root = path.resolve(__dirname, "../..");
    const imp = await jury(
      ["memory", "import-study", path.join(root, "examples/memory-study"), "--collection", "s"],
      db,
    );
    expect(imp.code, imp.stderr).toBe(0);
    const before = server.requests.length;
    const noKey = await jury(
      ["memory", "experiment", "--collection", "s", "--kind", "single", "--model", "openai:gpt-5-mini"],
      db,
    );
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("openai:gpt-5-mini: OPENAI_API_KEY is not set");
    const disabled = await jury(
      [
        "memory",
        "experiment",
        "--collection",
        "s",
        "--kind",
        "dual_strict",
        "--model",
        "google:gemini-2.5-flash",
      ],
      db,
    );
    expect(disabled.code).toBe(2);
    expect(disabled.stderr).toContain("google:gemini-2.5-flash: the google provider is disabled in Settings");
    expect(server.requests.length).toBe(before);
    expect(rows(db, "select count(*) as n from experiments")[0].n).toBe(0);
    expect(rows(db, "select count(*) as n from jobs")[0].n).toBe(0);
  });
});
