import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { loadCriteria } from "@/lib/criteria/registry";
import { lengthOk, tempDir } from "@/lib/testing/fixtures";
import { enableProviders } from "@/lib/testing/settings-db";
import {
  beirCases,
  criteriaCases,
  type FolderCase,
  hookCases,
  memoryCases,
  reviewCases,
  studyCases,
  suiteCases,
} from "./cases";

/**
 * Every fixture in test/hostile/corpus goes through the real entry point and must fail cleanly:
 * an error that names the file (and the field or line), no stack trace, and nothing half-written.
 */

const root = path.resolve(__dirname, "../..");
const corpus = path.join(__dirname, "corpus");
const STACK = /^[ \t]+at \S/m;

/** Temp folders of this file (databases, generated inputs up to a few MB), removed at the end. */
const scratchDirs: string[] = [];
const scratch = (prefix: string) => {
  const dir = tempDir(prefix);
  scratchDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of scratchDirs) fs.rmSync(dir, { recursive: true, force: true });
});

type Result = { code: number | null; stdout: string; stderr: string; db: string; log: string };

/** Runs `node bin/jury.cjs` in a temp folder with its own JURY_DB and JURY_HOOK_LOG. */
function jury(args: string[], stdinFile?: string): Promise<Result> {
  const dir = scratch("jury-hostile-");
  const db = path.join(dir, "jury.db");
  const log = path.join(dir, "hook.log");
  enableProviders(db, ["mock"]); // the judges named below (mock:judge) are called only when enabled
  const env: NodeJS.ProcessEnv = { ...process.env, JURY_DB: db, JURY_HOOK_LOG: log };
  for (const k of ["JURY_CRITERIA_DIR", "JURY_MEMORY_COLLECTION", "JUDGE_MODEL", "JUDGE_ENABLED"])
    delete env[k];
  const stdin = stdinFile ? fs.openSync(stdinFile, "r") : "ignore";
  const child = spawn(process.execPath, [path.join(root, "bin/jury.cjs"), ...args], {
    cwd: dir,
    env,
    stdio: [stdin, "pipe", "pipe"],
  });
  if (typeof stdin === "number") fs.closeSync(stdin);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr, db, log })));
}

/** Row counts of the given tables; a database that was never created holds nothing. */
function rows(db: string, tables: string[]): Record<string, number> {
  if (!fs.existsSync(db)) return Object.fromEntries(tables.map((t) => [t, 0]));
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return Object.fromEntries(
      tables.map((t) => [t, d.prepare(`select count(*) from ${t}`).pluck().get() as number]),
    );
  } finally {
    d.close();
  }
}
const none = (tables: string[]) => Object.fromEntries(tables.map((t) => [t, 0]));

const RUN_TABLES = ["runs", "run_cases", "tasks", "samples", "results"];
const IMPORT_TABLES = ["memories", "study_queries", "annotations"];
const REVIEW_TABLES = ["reviews", "judge_events"];
const HOOK_TABLES = ["retrieval_log"];

/** A CLI failure: the expected text on stderr, no stack trace, nothing on stdout, a non-zero exit. */
function expectCleanFailure(r: Result, expected: string[], exit?: number): void {
  const seen = `exit ${r.code}; stdout: ${JSON.stringify(r.stdout.slice(0, 300))}`;
  for (const s of expected) expect(r.stderr, seen).toContain(s);
  expect(r.stderr, "no stack trace").not.toMatch(STACK);
  expect(r.stdout, "nothing printed as if it had worked").toBe("");
  if (exit === undefined) expect(r.code, "non-zero exit").toBeGreaterThan(0);
  else expect(r.code).toBe(exit);
}

/** The hook: exit 0, silent on stdout and stderr, the problem in the log file. */
function expectHookLogged(r: Result, expected: string[]): void {
  const log = fs.existsSync(r.log) ? fs.readFileSync(r.log, "utf8") : "";
  for (const s of expected) expect(log, `hook log (stderr: ${JSON.stringify(r.stderr)})`).toContain(s);
  expect(log, "no stack trace in the log").not.toMatch(STACK);
  expect(r.stdout).toBe("");
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(rows(r.db, HOOK_TABLES)).toEqual(none(HOOK_TABLES));
}

/** [name, case] rows for it.each, so test names read "suites/no-cases" without quotes. */
const named = <T extends { case: string }>(cases: T[]): [string, T][] => cases.map((c) => [c.case, c]);

const listed = (kind: string, cases: { case: string }[]) => ({
  kind,
  names: cases.map((c) => c.case).sort(),
});
const onDisk = (kind: string) =>
  fs
    .readdirSync(path.join(corpus, kind))
    .filter((n) => !n.startsWith("."))
    .sort();
const kinds = [
  listed("criteria", criteriaCases),
  listed("suites", suiteCases),
  listed("memories", memoryCases),
  listed("studies", studyCases),
  listed("beir", beirCases),
  listed("reviews", reviewCases),
  listed("hook", hookCases),
];

describe("the hostile corpus", () => {
  it("lists every fixture on disk, and only those (at least 55)", () => {
    for (const { kind, names } of kinds) expect(names, kind).toEqual(onDisk(kind));
    expect(kinds.reduce((n, k) => n + k.names.length, 0)).toBeGreaterThanOrEqual(55);
  });
});

describe("criteria: loadCriteria names the folder, the field and the problem, and loads nothing", () => {
  const logic = { "det-not-exported": { lengthOk }, "det-bad-name": { lengthOk } };
  it.each(named(criteriaCases))("criteria/%s", (_, c) => {
    const registry = loadCriteria(path.join(corpus, "criteria", c.case), logic);
    const lines = registry.errors.map((e) => `criteria/${e.folder}: ${e.field}: ${e.message}`);
    for (const s of c.expect)
      expect(registry.errors, lines.join("\n")).toContainEqual(
        expect.objectContaining({ folder: c.folder, field: c.field, message: expect.stringContaining(s) }),
      );
    for (const line of lines) expect(line).not.toMatch(STACK);
    expect([...registry.criteria.keys()]).toEqual([]);
  });
});

const folderCases = (
  kind: string,
  cases: FolderCase[],
  args: (dir: string) => string[],
  tables: string[],
): void => {
  describe.concurrent(kind, () => {
    it.each(named(cases))(`${kind}/%s`, async (_, c) => {
      const r = await jury(args(path.join(corpus, kind, c.case)));
      expectCleanFailure(r, c.expect, c.exit);
      expect(r.stderr, "no file content quoted").not.toContain("root:");
      expect(rows(r.db, tables), "nothing half-written").toEqual(none(tables));
    });
  });
};

folderCases("suites", suiteCases, (dir) => ["eval", dir, "--judges", "mock:judge", "--n", "1"], RUN_TABLES);
folderCases("memories", memoryCases, (dir) => ["memory", "import", dir], IMPORT_TABLES);
folderCases("studies", studyCases, (dir) => ["memory", "import-study", dir], IMPORT_TABLES);
folderCases("beir", beirCases, (dir) => ["memory", "import-beir", dir], IMPORT_TABLES);

const REVIEW_BASE = ["review", "--judges", "mock:judge", "--quick", "--passed", "1", "--failed", "0"];

describe.concurrent("reviews", () => {
  it.each(named(reviewCases))("reviews/%s", async (_, c) => {
    const dir = path.join(corpus, "reviews", c.case);
    const r = await jury([...REVIEW_BASE, ...c.args.map((a) => a.replaceAll("{dir}", dir))]);
    expectCleanFailure(r, c.expect, c.exit);
    expect(rows(r.db, REVIEW_TABLES), "nothing half-written").toEqual(none(REVIEW_TABLES));
  });
});

describe.concurrent("hook", () => {
  it.each(named(hookCases))("hook/%s", async (_, c) => {
    expectHookLogged(await jury(["memory", "retrieve"], path.join(corpus, "hook", c.case)), c.expect);
  });
});

/** Large and binary inputs, written to a temp folder at test time instead of being stored in the corpus. */
describe.concurrent("generated", () => {
  const PNG = Buffer.from([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
  ]);
  const DIFF = "diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-old\n+new\n";
  const write = (dir: string, files: Record<string, string | Buffer>) => {
    for (const [name, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), content);
    }
    return dir;
  };
  const review = (files: Record<string, string | Buffer>, args: string[]) => {
    const dir = write(scratch("jury-hostile-review-"), { "criteria.md": "- it works\n", ...files });
    return jury([...REVIEW_BASE, ...args.map((a) => a.replaceAll("{dir}", dir))]);
  };
  const base = ["--criteria", "{dir}/criteria.md", "--diff", "{dir}/change.diff"];

  it("reviews: a binary diff file", async () => {
    const r = await review(
      { "change.diff": Buffer.concat([Buffer.from("diff --git a/logo.png b/logo.png\n+"), PNG]) },
      base,
    );
    expectCleanFailure(r, ["change.diff", "binary"]);
    expect(rows(r.db, REVIEW_TABLES)).toEqual(none(REVIEW_TABLES));
  });

  it("reviews: a binary criteria file", async () => {
    const r = await review({ "criteria.bin": PNG, "change.diff": DIFF }, [
      "--criteria",
      "{dir}/criteria.bin",
      "--diff",
      "{dir}/change.diff",
    ]);
    expectCleanFailure(r, ["criteria.bin", "binary"]);
    expect(rows(r.db, REVIEW_TABLES)).toEqual(none(REVIEW_TABLES));
  });

  it("reviews: a binary test output", async () => {
    const r = await review({ "change.diff": DIFF, "test-output.txt": PNG }, [
      ...base,
      "--test-output",
      "{dir}/test-output.txt",
    ]);
    expectCleanFailure(r, ["test-output.txt", "binary"]);
    expect(rows(r.db, REVIEW_TABLES)).toEqual(none(REVIEW_TABLES));
  });

  it("reviews: a binary test file", async () => {
    const r = await review({ "change.diff": DIFF, "slug.test.ts": PNG }, [
      ...base,
      "--tests",
      "{dir}/slug.test.ts",
    ]);
    expectCleanFailure(r, ["slug.test.ts", "binary"]);
    expect(rows(r.db, REVIEW_TABLES)).toEqual(none(REVIEW_TABLES));
  });

  it("reviews: a 100,000-line diff is judged on its first 3,000 lines, with a note saying what was cut", async () => {
    const lines = ["diff --git a/big.txt b/big.txt", "--- a/big.txt", "+++ b/big.txt", "@@ -0,0 +1,99996 @@"];
    for (let i = 0; lines.length < 100_000; i++) lines.push(`+line ${i}`);
    const r = await review({ "change.diff": `${lines.join("\n")}\n` }, [...base, "--json"]);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stderr).not.toContain("jury review:");
    expect([0, 1]).toContain(r.code);
    const d = new Database(r.db, { readonly: true, fileMustExist: true });
    const stored = d.prepare("select diff from reviews").pluck().all() as string[];
    d.close();
    expect(stored).toHaveLength(1);
    expect(stored[0].split("\n").length).toBeLessThanOrEqual(3001);
    expect(stored[0]).toContain("[diff truncated: showing the first 3000 of 100001 lines; 97001 lines cut]");
  });

  it("beir: a 100,000-line corpus.jsonl whose last line is not JSON", async () => {
    const dir = scratch("jury-hostile-beir-");
    const docs = Array.from({ length: 99_999 }, (_, i) => JSON.stringify({ _id: `d${i}`, text: `doc ${i}` }));
    write(dir, {
      "corpus.jsonl": `${docs.join("\n")}\n{"_id": "d99999", "text": "cut off\n`,
      "queries.jsonl": `${JSON.stringify({ _id: "q1", text: "doc" })}\n`,
      "qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\n",
    });
    const r = await jury(["memory", "import-beir", dir]);
    expectCleanFailure(r, ["corpus.jsonl:100000", "invalid JSON"]);
    expect(rows(r.db, IMPORT_TABLES)).toEqual(none(IMPORT_TABLES));
  });

  it("memories: a binary file named a.json", async () => {
    const dir = write(scratch("jury-hostile-mem-"), { "a.json": PNG });
    const r = await jury(["memory", "import", dir]);
    expectCleanFailure(r, ["a.json", "UTF-8"]);
    expect(rows(r.db, IMPORT_TABLES)).toEqual(none(IMPORT_TABLES));
  });

  const stdin = (content: string | Buffer) =>
    path.join(write(scratch("jury-hostile-stdin-"), { stdin: content }), "stdin");

  it("hook: 2 MB of stdin", async () => {
    const r = await jury(
      ["memory", "retrieve"],
      stdin(JSON.stringify({ prompt: "x".repeat(2 * 1024 * 1024) })),
    );
    expectHookLogged(r, ["stdin is over 1048576 bytes"]);
  });

  it("hook: NUL bytes in stdin", async () => {
    const r = await jury(
      ["memory", "retrieve"],
      stdin(Buffer.concat([Buffer.from('{"prompt": "retry'), Buffer.alloc(8), Buffer.from(' payments"}')])),
    );
    expectHookLogged(r, ["stdin is not JSON"]);
  });

  it("hook: JSON nested 400,000 levels deep", async () => {
    const r = await jury(["memory", "retrieve"], stdin(`${"[".repeat(400_000)}${"]".repeat(400_000)}`));
    expectHookLogged(r, ["unexpected hook input", "expected object, received array"]);
  });
});
