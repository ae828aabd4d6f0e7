import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadCriteria } from "@/lib/criteria/registry";
import { readMemoryFolder } from "@/lib/memory/import";
import { readTextFileSafe } from "@/lib/read-text";
import { findConventions, gatherContext } from "@/lib/review/context";
import { loadSuite, resolveOutput } from "@/lib/suites/load-suite";
import { llmDefinition, tempDir, writeJson } from "@/lib/testing/fixtures";
import { runJury } from "@/lib/testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "@/lib/testing/scripted-server";
import { enableProviders } from "@/lib/testing/settings-db";

/**
 * Issue 16, item 5: a suite (or a memory, criteria or review input) cannot make Jury read a file
 * outside its folder, a device, a FIFO or a huge file; the refusal names the case and the path,
 * quotes none of the file, and happens when the suite loads: nothing is read, nothing is sent.
 */

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer(() => ({ json: { score: 7, reasoning: "ok" } }));
});
afterAll(() => server.close());

const scratch: string[] = [];
const dir = (prefix = "jury-files-") => {
  const d = tempDir(prefix);
  scratch.push(d);
  return d;
};
afterAll(() => {
  for (const d of scratch) fs.rmSync(d, { recursive: true, force: true });
});
afterEach(() => {
  delete process.env.JURY_TRUSTED_ROOT;
  delete process.env.JURY_MAX_FILE_BYTES;
});

const mkfifo = (file: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync("mkfifo", [file]);
};

/** A suite folder `/tmp/jury-suite-…` (so ../../etc/passwd is /etc/passwd) whose one case "a" reads its output from `file`. */
function suiteWithOutputFile(file: string, setup?: (suiteDir: string) => void): string {
  const suiteDir = dir("jury-suite-");
  writeJson(path.join(suiteDir, "suite.json"), { name: "shared suite", criteria: [{ id: "conciseness" }] });
  writeJson(path.join(suiteDir, "cases", "a.json"), {
    id: "a",
    name: "Case a",
    input: { prompt: "What is 2+2?" },
    output: { file },
  });
  setup?.(suiteDir);
  return suiteDir;
}

const evalSuite = (suiteDir: string, env: Record<string, string> = {}) => {
  const db = enableProviders(path.join(dir("jury-db-"), "jury.db"));
  return runJury(["eval", suiteDir, "--judges", "local:judge", "--n", "1"], {
    cwd: path.dirname(db),
    env: { JURY_DB: db, JURY_LOCAL_BASE_URL: server.baseURL, ...env },
  }).then((r) => ({ ...r, db }));
};

const runsIn = (db: string) => {
  if (!fs.existsSync(db)) return 0;
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare("select count(*) from run_cases").pluck().get() as number;
  } finally {
    d.close();
  }
};

describe("jury eval: a suite's output files stay inside the suite", () => {
  const leaving: [string, string, (suiteDir: string) => void][] = [
    ["a path climbing out (../../etc/passwd)", "../../etc/passwd", () => {}],
    ["an absolute path (/etc/passwd)", "/etc/passwd", () => {}],
    [
      "a symlink inside the suite pointing out of it",
      "outputs/answer.txt",
      (s) => {
        fs.mkdirSync(path.join(s, "outputs"));
        fs.symlinkSync("/etc/passwd", path.join(s, "outputs", "answer.txt"));
      },
    ],
    [
      "a symlinked folder inside the suite pointing out of it",
      "outputs/passwd",
      (s) => fs.symlinkSync("/etc", path.join(s, "outputs")),
    ],
  ];

  it.each(leaving)(
    "refuses %s at load: exit 2, names the case and path, nothing read or sent",
    async (_, file, setup) => {
      const suiteDir = suiteWithOutputFile(file, setup);
      const before = server.requests.length;
      const r = await evalSuite(suiteDir);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('case "a"');
      expect(r.stderr).toContain(path.join(suiteDir, "cases", "a.json"));
      expect(r.stderr).toMatch(/output file \S*(passwd|answer\.txt)/);
      expect(r.stderr).toContain("outside the folder");
      expect(r.stderr).toContain("JURY_TRUSTED_ROOT");
      expect(r.stderr).not.toContain("root:");
      expect(r.stdout).toBe("");
      expect(server.requests.length - before, "nothing was sent to the judge").toBe(0);
      expect(runsIn(r.db), "no run was stored").toBe(0);
    },
  );

  it("a case file that is a symlink to /etc/passwd is refused without quoting it (it used to leak root:x:0:0)", async () => {
    const suiteDir = suiteWithOutputFile("outputs/answer.txt", (s) => {
      fs.rmSync(path.join(s, "cases", "a.json"));
      fs.symlinkSync("/etc/passwd", path.join(s, "cases", "a.json"));
    });
    const before = server.requests.length;
    const r = await evalSuite(suiteDir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(path.join(suiteDir, "cases", "a.json"));
    expect(r.stderr).toContain("outside the folder");
    expect(r.stderr).not.toContain("root:");
    expect(server.requests.length - before).toBe(0);
  });

  it("control: the same suite with its output file inside runs and reaches the judge", async () => {
    const suiteDir = suiteWithOutputFile("outputs/answer.txt", (s) => {
      fs.mkdirSync(path.join(s, "outputs"));
      fs.writeFileSync(path.join(s, "outputs", "answer.txt"), "4");
    });
    const before = server.requests.length;
    const r = await evalSuite(suiteDir);
    expect([0, 1], r.stderr).toContain(r.code);
    expect(server.requests.length - before).toBe(1);
    expect(server.requests.at(-1)?.text).toContain('<data name="output_to_evaluate">\n4\n</data>');
  });

  it("JURY_TRUSTED_ROOT lets a trusted suite point at files under that folder, and no further", async () => {
    const shared = dir("jury-shared-");
    fs.writeFileSync(path.join(shared, "answer.txt"), "four");
    const suiteDir = suiteWithOutputFile(path.join(shared, "answer.txt"));
    expect(() => loadSuite(suiteDir)).toThrow(/outside the folder/);
    process.env.JURY_TRUSTED_ROOT = shared;
    const suite = loadSuite(suiteDir);
    await expect(resolveOutput(suite.dir, suite.cases[0])).resolves.toBe("four");
    // the trusted folder does not open the rest of the disk
    expect(() => loadSuite(suiteWithOutputFile("/etc/passwd"))).toThrow(/outside the folder/);
    const before = server.requests.length;
    const r = await evalSuite(suiteDir, { JURY_TRUSTED_ROOT: shared });
    expect([0, 1], r.stderr).toContain(r.code);
    expect(server.requests.length - before).toBe(1);
  });
});

describe("special and huge files fail at once, never hang", () => {
  it("/dev/zero: refused outside the suite, and refused as a device even under a trusted root", () => {
    const t0 = Date.now();
    expect(() => loadSuite(suiteWithOutputFile("/dev/zero"))).toThrow(
      /case "a": output file \/dev\/zero: is outside the folder/,
    );
    process.env.JURY_TRUSTED_ROOT = "/dev";
    const linked = suiteWithOutputFile("zero", (s) => fs.symlinkSync("/dev/zero", path.join(s, "zero")));
    expect(() => loadSuite(linked)).toThrow(
      /case "a": output file \S+\/zero: is a character device, not a regular file/,
    );
    expect(Date.now() - t0).toBeLessThan(1000);
  }, 2000);

  it("a FIFO as a case output is refused without being opened", async () => {
    const suiteDir = suiteWithOutputFile("outputs/pipe", (s) => mkfifo(path.join(s, "outputs", "pipe")));
    expect(() => loadSuite(suiteDir)).toThrow(
      /cases\/a\.json: case "a": output file \S+outputs\/pipe: is a FIFO \(named pipe\), not a regular file/,
    );
    // the run's own read (resolveOutput) refuses it too, should the FIFO appear after loading
    const c = { id: "a", name: "a", input: {}, output: { file: "outputs/pipe" } };
    await expect(resolveOutput(suiteDir, c)).rejects.toThrow(/is a FIFO/);
    const before = server.requests.length;
    const t0 = Date.now();
    const r = await evalSuite(suiteDir);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is a FIFO (named pipe), not a regular file");
    expect(server.requests.length - before).toBe(0);
  }, 10_000);

  it("a 2 GB sparse file fails on its size, read from stat, not from its bytes", () => {
    const suiteDir = suiteWithOutputFile("outputs/huge.txt", (s) => {
      fs.mkdirSync(path.join(s, "outputs"));
      const f = path.join(s, "outputs", "huge.txt");
      fs.writeFileSync(f, "");
      fs.truncateSync(f, 2 * 1024 ** 3);
    });
    const t0 = Date.now();
    expect(() => loadSuite(suiteDir)).toThrow(
      /case "a": output file \S+huge\.txt: is 2,147,483,648 bytes, over the 10,485,760-byte limit \(JURY_MAX_FILE_BYTES\)/,
    );
    expect(Date.now() - t0).toBeLessThan(1000);
  }, 2000);

  it("JURY_MAX_FILE_BYTES sets the limit; a bad value is named", () => {
    const suiteDir = suiteWithOutputFile("out.txt", (s) =>
      fs.writeFileSync(path.join(s, "out.txt"), "x".repeat(2000)),
    );
    expect(loadSuite(suiteDir).cases).toHaveLength(1);
    process.env.JURY_MAX_FILE_BYTES = "1000";
    expect(() => loadSuite(suiteDir)).toThrow(
      /is 2,000 bytes, over the 1,000-byte limit \(JURY_MAX_FILE_BYTES\)/,
    );
    process.env.JURY_MAX_FILE_BYTES = "ten";
    expect(() => loadSuite(suiteDir)).toThrow(/JURY_MAX_FILE_BYTES="ten" must be a whole number of bytes/);
  });

  it("jury memory import: a FIFO named a.json is refused at once, nothing imported", async () => {
    const memories = dir("jury-mem-");
    writeJson(path.join(memories, "0.json"), { id: "m0", category: "note", title: "fine" });
    mkfifo(path.join(memories, "a.json"));
    expect(() => readMemoryFolder(memories)).toThrow(/a\.json: is a FIFO \(named pipe\), not a regular file/);
    const db = path.join(dir("jury-db-"), "jury.db");
    const t0 = Date.now();
    const r = await runJury(["memory", "import", memories], { env: { JURY_DB: db } });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${path.join(memories, "a.json")}: is a FIFO (named pipe), not a regular file`,
    );
    if (fs.existsSync(db)) {
      const d = new Database(db, { readonly: true });
      expect(d.prepare("select count(*) from memories").pluck().get()).toBe(0);
      d.close();
    }
  }, 10_000);

  it("jury memory import-beir: a FIFO corpus and a symlink leaving the folder are refused", async () => {
    const beir = dir("jury-beir-");
    mkfifo(path.join(beir, "corpus.jsonl"));
    fs.writeFileSync(path.join(beir, "queries.jsonl"), '{"_id":"q1","text":"x"}\n');
    fs.mkdirSync(path.join(beir, "qrels"));
    const r = await runJury(["memory", "import-beir", beir], {
      env: { JURY_DB: path.join(dir("jury-db-"), "jury.db") },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("corpus.jsonl: is a FIFO");
    fs.rmSync(path.join(beir, "corpus.jsonl"));
    fs.symlinkSync("/etc/passwd", path.join(beir, "corpus.jsonl"));
    const s = await runJury(["memory", "import-beir", beir], {
      env: { JURY_DB: path.join(dir("jury-db-"), "jury.db") },
    });
    expect(s.code).toBe(2);
    expect(s.stderr).toContain("outside the folder");
    expect(s.stderr).not.toContain("root:");
  }, 10_000);

  it("criteria: a FIFO definition.json or README.md, or one linking out, is that criterion's load error", () => {
    const criteria = dir("jury-criteria-");
    mkfifo(path.join(criteria, "piped", "definition.json"));
    writeJson(path.join(criteria, "readme-piped", "definition.json"), llmDefinition("readme-piped"));
    mkfifo(path.join(criteria, "readme-piped", "README.md"));
    fs.mkdirSync(path.join(criteria, "linked"));
    fs.symlinkSync("/etc/passwd", path.join(criteria, "linked", "definition.json"));
    writeJson(path.join(criteria, "fine", "definition.json"), llmDefinition("fine"));
    const registry = loadCriteria(criteria, {});
    expect([...registry.criteria.keys()]).toEqual(["fine"]);
    const byFolder = Object.fromEntries(registry.errors.map((e) => [e.folder, `${e.field}: ${e.message}`]));
    expect(byFolder.piped).toMatch(/^definition\.json: .*is a FIFO/);
    expect(byFolder["readme-piped"]).toMatch(/^README\.md: .*is a FIFO/);
    expect(byFolder.linked).toMatch(/^definition\.json: .*outside the folder/);
    expect(JSON.stringify(registry.errors)).not.toContain("root:");
  }, 2000);

  it("jury review: a FIFO or a device given as an input is refused (any folder: the user named it)", () => {
    const d = dir("jury-review-");
    mkfifo(path.join(d, "change.diff"));
    fs.writeFileSync(path.join(d, "ok.diff"), "diff --git a/x b/x\n");
    expect(() => gatherContext({ criteria: "- works", diffFile: path.join(d, "change.diff") })).toThrow(
      /diff file \S+change\.diff: is a FIFO \(named pipe\), not a regular file/,
    );
    expect(() =>
      gatherContext({ criteria: "/dev/zero", criteriaIsFile: true, diffFile: path.join(d, "ok.diff") }),
    ).toThrow(/criteria file \/dev\/zero: is a character device, not a regular file/);
    // outside the current folder is fine for files the user names on the command line
    fs.writeFileSync(path.join(d, "criteria.md"), "- it works\n");
    expect(
      gatherContext({
        criteria: path.join(d, "criteria.md"),
        criteriaIsFile: true,
        diffFile: path.join(d, "ok.diff"),
      }).criteria,
    ).toBe("- it works\n");
  }, 2000);
});

it("jury review: a repository's CLAUDE.md linking out of it is not read (a note says why)", () => {
  const repo = dir("jury-repo-");
  fs.symlinkSync("/etc/passwd", path.join(repo, "CLAUDE.md"));
  fs.writeFileSync(path.join(repo, "AGENTS.md"), "Use tabs.");
  const conventions = findConventions(repo)!;
  expect(conventions).toContain("# AGENTS.md\nUse tabs.");
  expect(conventions).toMatch(/# CLAUDE\.md\n\[not read by Jury: .*outside the folder/);
  expect(conventions).not.toContain("root:");
});

describe("errors never quote the file", () => {
  const PASSWD = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n";

  it("invalid JSON inside the folder is reported by line and column only", () => {
    const suiteDir = suiteWithOutputFile("x.txt", (s) =>
      fs.writeFileSync(path.join(s, "cases", "a.json"), PASSWD),
    );
    expect(() => loadSuite(suiteDir)).toThrow(
      /cases\/a\.json: invalid JSON at line 1, column 1: unexpected character, expected a JSON value$/,
    );
    const memories = dir("jury-mem-");
    fs.writeFileSync(path.join(memories, "a.json"), `{"id": "m", "title":\n  ${PASSWD}}`);
    let message = "";
    try {
      readMemoryFolder(memories);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/a\.json: invalid JSON at line 2, column 3: /);
    expect(message).not.toContain("root");
  });

  it("readTextFileSafe reads a regular UTF-8 file inside its root, through a symlink that stays inside", () => {
    const root = dir("jury-root-");
    fs.mkdirSync(path.join(root, "sub"));
    fs.writeFileSync(path.join(root, "sub", "a.txt"), "héllo");
    fs.symlinkSync(path.join(root, "sub", "a.txt"), path.join(root, "link.txt"));
    expect(readTextFileSafe(path.join(root, "link.txt"), { root })).toBe("héllo");
    expect(() =>
      readTextFileSafe(path.join(root, "sub", "a.txt"), { root: path.join(root, "sub", "x") }),
    ).toThrow(/outside the folder/);
    expect(() => readTextFileSafe(path.join(root, "nope.txt"), { root })).toThrow(
      /nope\.txt: cannot be read \(ENOENT: no such file or directory\)/,
    );
  });
});
