import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgmentSchema } from "../review/judgment";
import { tempDir } from "../testing/fixtures";
import { runJury, runJurySync } from "../testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { enableProviders } from "../testing/settings-db";

let server: ScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer((req) =>
    req.model === "down" || (req.model === "gate-only" && !req.text.includes("When in doubt, pass"))
      ? { status: 500, message: "judge is down" }
      : req.text.includes("session transcript")
        ? {
            json: {
              approach: "edited the test's sleep",
              files_consulted: ["tests/checkout.test.ts"],
              point_of_failure: "the webhook wait",
              root_cause: "a fixed sleep",
              suggestion: "poll the order status",
            },
          }
        : req.text.includes("When in doubt, pass")
          ? { json: { verdict: "pass", reasoning: "implements the criteria" } }
          : {
              delayMs: 100,
              json: {
                schema_version: "1.0.0",
                verdict: "pass",
                score: 0.85,
                dimensions: { correctness: 0.9, scope_adherence: 0.85, code_quality: 0.8, completeness: 0.8 },
                issues: [{ severity: "minor", description: "no test for an empty string" }],
                summary: "Correct and proportionate.",
                confidence: "medium",
              },
            },
  );
});
afterAll(() => server.close());

function git(repo: string, ...args: string[]) {
  return execFileSync("git", ["-C", repo, ...args], {
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });
}

function makeRepo(): string {
  const repo = tempDir("jury-repo-");
  git(repo, "init", "-q", "-b", "main");
  fs.mkdirSync(path.join(repo, "src"));
  fs.writeFileSync(path.join(repo, "src/slug.ts"), "export const slugify = (s: string) => s;\n");
  fs.writeFileSync(path.join(repo, "CLAUDE.md"), "# Conventions\nNamed exports only.\n");
  git(repo, "add", ".");
  git(repo, "commit", "-qm", "init");
  git(repo, "checkout", "-qb", "feature");
  fs.writeFileSync(
    path.join(repo, "src/slug.ts"),
    "export const slugify = (s: string) => s.trim().toLowerCase().split(/\\s+/).join('-');\n",
  );
  git(repo, "commit", "-qam", "slugify");
  return repo;
}

/** `jury …`; a new database gets settings enabling the local provider (judges must be callable). */
const jury = (args: string[], env: Record<string, string>) => {
  if (env.JURY_DB && !fs.existsSync(env.JURY_DB)) enableProviders(env.JURY_DB);
  return runJury(args, { env: { JURY_LOCAL_BASE_URL: server.baseURL, JUDGE_ENABLED: "", ...env } });
};

/** `jury review` of makeRepo()'s feature branch against main. */
const reviewOf = (repo: string, criteria: string, ...rest: string[]) => [
  "review",
  "--repo",
  repo,
  "--base",
  "main",
  "--head",
  "feature",
  "--criteria",
  criteria,
  ...rest,
];

describe("jury review", () => {
  it("on a real git repository prints a judgment that validates against the schema, and stores it", async () => {
    const repo = makeRepo();
    const db = path.join(tempDir(), "r.db");
    const r = await jury(
      reviewOf(
        repo,
        "Slugify lowercases and dash-joins words.",
        "--passed",
        "4",
        "--failed",
        "0",
        "--judges",
        "local:a",
        "--json",
      ),
      { JURY_DB: db },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.verdict).toBe("pass");
    expect(out.judge).toMatchObject({ status: "answered", judges: ["local:a"] });
    expect(out.coverage).toEqual({
      judges_asked: 1,
      judges_answered: 1,
      samples_asked: 1,
      samples_answered: 1,
      samples_failed: 0,
    });
    expect(out.gate).toEqual({ verdict: "pass", reasoning: "implements the criteria" });
    expect(judgmentSchema.safeParse(out.judgment).success).toBe(true);
    const sent = server.requests.at(-1)!.text;
    expect(sent).toContain("+export const slugify = (s: string) => s.trim()");
    expect(sent).toContain("Named exports only."); // CLAUDE.md found in the repository
    const d = new Database(db, { readonly: true });
    const row = d.prepare("select verdict, score, diff from reviews where id = ?").get(out.review_id) as {
      verdict: string;
      score: number;
      diff: string;
    };
    d.close();
    expect(row.verdict).toBe("pass");
    expect(row.score).toBeCloseTo(0.4 * 0.9 + 0.2 * 0.85 + 0.2 * 0.8 + 0.2 * 0.8, 3);
    expect(row.diff).toContain("diff --git a/src/slug.ts");
  });

  it("the hourly throttle holds across two processes", async () => {
    const repo = makeRepo();
    const db = path.join(tempDir(), "t.db");
    expect(runJurySync(["db", "migrate"], { env: { JURY_DB: db } }).code).toBe(0);
    enableProviders(db);
    const args = reviewOf(repo, "x", "--judges", "local:a", "--quick", "--json");
    const env = { JURY_DB: db, JUDGE_MAX_PER_HOUR: "1" };
    const [a, b] = await Promise.all([jury(args, env), jury(args, env)]);
    const outs = [a, b].map((x) => JSON.parse(x.stdout));
    expect(outs.filter((o) => o.verdict_source === "judge")).toHaveLength(1);
    const throttled = outs.find((o) => o.verdict_source === "tests");
    expect(throttled.warnings[0]).toMatch(/throttled: 1 judgments in the last hour/);
    const d = new Database(db, { readonly: true });
    expect(d.prepare("select count(*) from judge_events").pluck().get()).toBe(1);
    expect(d.prepare("select count(*) from reviews").pluck().get()).toBe(2);
    d.close();
  });

  it("rejects weights that do not sum to 1 and a bad revision, by name", async () => {
    const repo = makeRepo();
    const db = path.join(tempDir(), "w.db");
    const w = await jury(
      ["review", "--repo", repo, "--base", "main", "--criteria", "x", "--weights", "0.5,0.2,0.2,0.2"],
      { JURY_DB: db },
    );
    expect(w.code).toBe(2); // a usage error naming the flag
    expect(w.stderr).toMatch(/--weights "0.5,0.2,0.2,0.2": .*weights must sum to 1/);
    const rev = await jury(["review", "--repo", repo, "--base", "--upload-pack=x", "--criteria", "x"], {
      JURY_DB: db,
    });
    expect(rev.stderr).toMatch(/Not a git revision|--base/);
  });
});

const rowsOf = (db: string, sql: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    d.close();
  }
};

describe("jury review without a judge (off unless enabled; the tests decide)", () => {
  it("no judge enabled: the mechanical verdict, exit 0 when the tests pass and 1 when they fail, no call", async () => {
    const repo = makeRepo();
    const db = path.join(tempDir(), "m.db");
    const before = server.requests.length;
    const pass = await jury(reviewOf(repo, "Slugify words.", "--passed", "3", "--failed", "0"), {
      JURY_DB: db,
    });
    expect(pass.code).toBe(0);
    expect(pass.stdout).toMatch(/PASS \(from the tests: mechanical verdict\)/);
    expect(pass.stdout).toContain("judge: not enabled");
    const fail = await jury(reviewOf(repo, "Slugify words.", "--passed", "2", "--failed", "1", "--json"), {
      JURY_DB: db,
    });
    expect(fail.code).toBe(1);
    const out = JSON.parse(fail.stdout);
    expect(out).toMatchObject({ verdict: "fail", verdict_source: "tests", judged: false });
    expect(out.judge.status).toBe("not enabled");
    expect(out.judge.summary).toMatch(/^not enabled .*mechanical verdict from the tests/);
    expect(server.requests.length).toBe(before);
    expect(rowsOf(db, "select count(*) as n from judge_events")[0].n).toBe(0);
    expect(rowsOf(db, "select count(*) as n from reviews")[0].n).toBe(2);
  });

  it("JUDGE_ENABLED=false wins over --judges; a value that is not a boolean is a usage error", async () => {
    const repo = makeRepo();
    const db = path.join(tempDir(), "e.db");
    const off = await jury(reviewOf(repo, "x", "--judges", "local:a", "--passed", "1", "--failed", "0"), {
      JURY_DB: db,
      JUDGE_ENABLED: "false",
    });
    expect(off.code).toBe(0);
    expect(off.stdout).toContain("judge: not enabled (JUDGE_ENABLED=false)");
    const bad = await jury(reviewOf(repo, "x", "--passed", "1"), { JURY_DB: db, JUDGE_ENABLED: "maybe" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('JUDGE_ENABLED="maybe" must be true, false, 1, 0, yes or no');
  });

  it("a judge that fails: the tests' verdict, said with the error; --strict exits 3", async () => {
    const repo = makeRepo();
    const db = enableProviders(path.join(tempDir(), "f.db"), ["local"], (s) => ({
      ...s,
      judging: { ...s.judging, maxRetries: 0 },
    }));
    const args = reviewOf(repo, "Slugify words.", "--passed", "3", "--failed", "0", "--quick");
    const r = await jury([...args, "--json"], {
      JURY_DB: db,
      JUDGE_ENABLED: "true",
      JUDGE_MODEL: "local:down",
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ verdict: "pass", verdict_source: "tests" });
    expect(out.judge.status).toBe("failed");
    expect(out.judge.error).toMatch(/HTTP 500/);
    expect(out.judge.summary).toMatch(
      /^failed \(HTTP 500.*fell back to the mechanical verdict from the tests/,
    );
    expect(out.coverage).toMatchObject({ judges_asked: 1, judges_answered: 0, samples_failed: 1 });
    const text = await jury(args, { JURY_DB: db, JUDGE_ENABLED: "1", JUDGE_MODEL: "local:down" });
    expect(text.stdout).toMatch(/judge: failed \(HTTP 500[^\n]*fell back to the mechanical verdict/);
    const strict = await jury([...args, "--strict"], {
      JURY_DB: db,
      JUDGE_ENABLED: "yes",
      JUDGE_MODEL: "local:down",
    });
    expect(strict.code).toBe(3);
  });

  it("the gate answered but the scored judgment failed: the status says so and agrees with the coverage", async () => {
    const repo = makeRepo();
    const db = enableProviders(path.join(tempDir(), "g.db"), ["local"], (s) => ({
      ...s,
      judging: { ...s.judging, maxRetries: 0 },
    }));
    const args = reviewOf(
      repo,
      "Slugify words.",
      "--passed",
      "3",
      "--failed",
      "0",
      "--judges",
      "local:gate-only",
    );
    const r = await jury([...args, "--json"], { JURY_DB: db });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ verdict: "pass", verdict_source: "gate" });
    expect(out.coverage).toMatchObject({ judges_asked: 1, judges_answered: 0, samples_answered: 0 });
    // "answered" would claim what the coverage denies: no judge answered the scored judgment
    expect(out.judge.status).toBe("gate only");
    expect(out.judge.error).toMatch(/^HTTP 500/);
    expect(out.judge.summary).toMatch(
      /^gate only: the gate's verdict stands; the scored judgment failed \(HTTP 500.*\): 0 of 1 judges answered, 0 of 1 samples$/,
    );
    const text = await jury(args, { JURY_DB: db });
    expect(text.stdout).toMatch(/judge: gate only: the gate's verdict stands; the scored judgment failed/);
  });

  it("a judge that cannot be called is refused before any call or row, naming it and the setting (exit 2)", async () => {
    const repo = makeRepo();
    const db = path.join(tempDir(), "p.db");
    const before = server.requests.length;
    const r = await jury(reviewOf(repo, "x", "--passed", "1", "--failed", "0"), {
      JURY_DB: db,
      JUDGE_ENABLED: "true",
      JUDGE_MODEL: "openai:gpt-5-mini",
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "openai:gpt-5-mini: the openai provider is disabled in Settings (enable it: jury settings set providers.openai.enabled true)",
    );
    expect(server.requests.length).toBe(before);
    expect(rowsOf(db, "select count(*) as n from reviews")[0].n).toBe(0);
    expect(rowsOf(db, "select count(*) as n from judge_events")[0].n).toBe(0);
  });

  it("--json prints one object for infra_failure and timeout runs too", async () => {
    const db = path.join(tempDir(), "i.db");
    for (const outcome of ["infra_failure", "timeout"]) {
      const r = await jury(
        ["review", "--criteria", "x", "--diff", "nope.diff", "--meta", `outcome=${outcome}`, "--json"],
        {
          JURY_DB: db,
        },
      );
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ outcome, judged: false, verdict: null, review_id: null });
    }
  });

  it("stores tokens and cost per call; an unpriced judge's cost is unpriced, never $0", async () => {
    const repo = makeRepo();
    const db = path.join(tempDir(), "c.db");
    enableProviders(db, ["local"], (s) => ({
      ...s,
      prices: { "local:a": { inputPerMTok: 1, outputPerMTok: 2 } },
    }));
    const args = (judges: string) =>
      reviewOf(repo, "Slugify words.", "--passed", "1", "--failed", "0", "--judges", judges, "--json");
    const priced = JSON.parse(
      (await runJury(args("local:a"), { env: { JURY_DB: db, JURY_LOCAL_BASE_URL: server.baseURL } })).stdout,
    );
    expect(priced.calls.map((c: { step: string }) => c.step)).toEqual(["gate", "judgment"]);
    for (const c of priced.calls) {
      expect(c.inputTokens).toBeGreaterThan(0);
      expect(c.costUsd).toBeCloseTo((c.inputTokens * 1 + c.outputTokens * 2) / 1e6, 10);
    }
    expect(priced.cost_usd).toBeCloseTo(priced.calls[0].costUsd + priced.calls[1].costUsd, 10);
    const stored = JSON.parse(
      rowsOf(db, `select record from reviews where id = '${priced.review_id}'`)[0].record as string,
    );
    expect(stored.calls).toEqual(priced.calls);
    expect(stored.samples[0]).toMatchObject({
      inputTokens: expect.any(Number),
      costUsd: priced.calls[1].costUsd,
    });

    const unpriced = await runJury(
      args("local:b").filter((a) => a !== "--json"),
      {
        env: { JURY_DB: db, JURY_LOCAL_BASE_URL: server.baseURL },
      },
    );
    expect(unpriced.stdout).toMatch(/cost: unpriced over 2 calls/);
  });

  it("finds the newest session of the project under the Claude projects folder, says which, and diagnoses a test failure from it", async () => {
    const repo = makeRepo();
    const db = path.join(tempDir(), "d.db");
    const projects = tempDir("claude-projects-");
    const folder = path.join(projects, path.resolve(repo).replace(/[^A-Za-z0-9]/g, "-"));
    fs.mkdirSync(folder, { recursive: true });
    const fixture = fs.readFileSync(
      path.resolve(__dirname, "../memory/fixtures/claude-code-transcript.jsonl"),
      "utf8",
    );
    const older = path.join(folder, "older.jsonl");
    const newer = path.join(folder, "newer.jsonl");
    fs.writeFileSync(older, fixture);
    fs.writeFileSync(newer, fixture);
    fs.utimesSync(older, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const before = server.requests.length;
    const r = await jury(
      reviewOf(repo, "Slugify words.", "--passed", "1", "--failed", "2", "--judges", "local:a"),
      {
        JURY_DB: db,
        JURY_CLAUDE_PROJECTS_DIR: projects,
      },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`transcript: ${newer} (the newest session of this project)`);
    expect(r.stdout).toContain("retry feedback: Previous attempt tried edited the test's sleep");
    expect(server.requests.length - before).toBe(1); // the diagnosis only: the tests failed, nothing to judge
    expect(server.requests.at(-1)?.text).toContain("/home/dev/shop-api/tests/checkout.test.ts");
  });
});
