import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgmentSchema } from "../review/judgment";
import { tempDir } from "../testing/fixtures";
import { runJury, runJurySync } from "../testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";

let server: ScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer((req) =>
    req.text.includes("When in doubt, pass")
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

const jury = (args: string[], env: Record<string, string>) =>
  runJury(args, { env: { JURY_LOCAL_BASE_URL: server.baseURL, ...env } });

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
    expect(w.code).toBe(1);
    expect(w.stderr).toMatch(/weights must sum to 1/);
    const rev = await jury(["review", "--repo", repo, "--base", "--upload-pack=x", "--criteria", "x"], {
      JURY_DB: db,
    });
    expect(rev.stderr).toMatch(/Not a git revision|--base/);
  });
});
