import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const dir = __dirname;

const EXPECTED_VERDICTS: Record<string, "pass" | "fail"> = {
  bloated: "fail",
  "hardcoded-tests": "fail",
  "meets-criteria": "pass",
  "noop-with-weak-tests": "fail",
  "scope-creep": "fail",
};
const REQUIRED_FILES = ["criteria.md", "prompt.md", "change.diff", "test-output.txt", "case.json"];

type CaseJson = {
  id: string;
  name: string;
  expected_verdict: "pass" | "fail";
  why: string;
  tests: { passed: number; failed: number };
  meta: {
    agent: string;
    model: string;
    template: string;
    duration_s: number;
    exit_code: number;
  };
};

type Hunk = { oldStart: number; oldCount: number; newStart: number; newCount: number; lines: string[] };
type FilePatch = { path: string; isNew: boolean; isDeleted: boolean; hunks: Hunk[] };

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(?: .*)?$/;
const EXTENDED_HEADER =
  /^(new file mode|deleted file mode|old mode|new mode|similarity index|rename from|rename to) /;

/**
 * Parses a git unified diff and throws at the first line that breaks the format: every file needs
 * `diff --git`, `index`, `---` and `+++` lines; every hunk's header counts must equal its ' ' and '-'
 * lines (old side) and its ' ' and '+' lines (new side); hunks must be in order, and each hunk's new
 * start must equal its old start shifted by the lines the earlier hunks of the file added or removed.
 */
function parseUnifiedDiff(text: string): FilePatch[] {
  if (!text.endsWith("\n")) throw new Error("the diff does not end with a newline");
  const lines = text.slice(0, -1).split("\n");
  const files: FilePatch[] = [];
  let i = 0;
  const fail = (message: string): never => {
    throw new Error(`line ${i + 1}: ${message} (${JSON.stringify(lines[i] ?? "<end of diff>")})`);
  };

  while (i < lines.length) {
    const start = /^diff --git a\/(\S+) b\/(\S+)$/.exec(lines[i]) ?? fail('expected "diff --git a/… b/…"');
    const [, oldPath, newPath] = start;
    const file: FilePatch = { path: newPath, isNew: false, isDeleted: false, hunks: [] };
    i++;
    while (i < lines.length && EXTENDED_HEADER.test(lines[i])) {
      if (lines[i].startsWith("new file mode")) file.isNew = true;
      if (lines[i].startsWith("deleted file mode")) file.isDeleted = true;
      i++;
    }
    if (!/^index [0-9a-f]{7,40}\.\.[0-9a-f]{7,40}( [0-7]{6})?$/.test(lines[i] ?? ""))
      fail("expected an index line");
    i++;
    if (lines[i] !== (file.isNew ? "--- /dev/null" : `--- a/${oldPath}`)) fail("expected the --- line");
    i++;
    if (lines[i] !== (file.isDeleted ? "+++ /dev/null" : `+++ b/${newPath}`)) fail("expected the +++ line");
    i++;

    let shift = 0;
    let oldEnd = 0;
    while (i < lines.length && lines[i].startsWith("@@")) {
      const header = HUNK_HEADER.exec(lines[i]) ?? fail("malformed hunk header");
      const hunk: Hunk = {
        oldStart: Number(header[1]),
        oldCount: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newCount: header[4] === undefined ? 1 : Number(header[4]),
        lines: [],
      };
      i++;
      let oldSeen = 0;
      let newSeen = 0;
      while (oldSeen < hunk.oldCount || newSeen < hunk.newCount) {
        if (i >= lines.length) fail(`hunk ends after ${oldSeen} old and ${newSeen} new lines`);
        const line = lines[i];
        if (line.startsWith(" ")) {
          oldSeen++;
          newSeen++;
        } else if (line.startsWith("-")) {
          oldSeen++;
        } else if (line.startsWith("+")) {
          newSeen++;
        } else if (!line.startsWith("\\")) {
          fail("hunk line does not start with ' ', '-', '+' or '\\'");
        }
        if (oldSeen > hunk.oldCount || newSeen > hunk.newCount) {
          fail(`hunk has more lines than its header's -${hunk.oldCount} +${hunk.newCount}`);
        }
        hunk.lines.push(line);
        i++;
      }
      if (i < lines.length && lines[i].startsWith("\\")) hunk.lines.push(lines[i++]);

      // An empty side names the line before it, so a side's first line is start + 1 when its count is 0.
      const oldFrom = hunk.oldCount === 0 ? hunk.oldStart + 1 : hunk.oldStart;
      const newFrom = hunk.newCount === 0 ? hunk.newStart + 1 : hunk.newStart;
      if (oldFrom < oldEnd) fail("hunks overlap or are out of order");
      if (newFrom - oldFrom !== shift) fail(`new start should be old start ${shift >= 0 ? "+" : ""}${shift}`);
      shift += hunk.newCount - hunk.oldCount;
      oldEnd = oldFrom + hunk.oldCount;
      file.hunks.push(hunk);
    }
    if (file.hunks.length === 0) fail(`${newPath} has no hunks`);
    if (
      file.isNew &&
      (file.hunks.length !== 1 || file.hunks[0].oldStart !== 0 || file.hunks[0].oldCount !== 0)
    ) {
      throw new Error(`${newPath} is a new file, so it needs exactly one hunk starting at -0,0`);
    }
    files.push(file);
  }
  return files;
}

/** The content a new file in the diff ends up with. */
function newFileContent(file: FilePatch): string {
  const added = file.hunks[0].lines.filter((l) => l.startsWith("+")).map((l) => l.slice(1));
  const noFinalNewline = file.hunks[0].lines.at(-1)?.startsWith("\\") ?? false;
  return added.join("\n") + (noFinalNewline ? "" : "\n");
}

function listFiles(root: string): string[] {
  return fs
    .readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .sort();
}

const caseIds = fs
  .readdirSync(dir, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

const read = (id: string, file: string) => fs.readFileSync(path.join(dir, id, file), "utf8");

describe("examples/reviews", () => {
  it("has the five cases", () => {
    expect(caseIds).toEqual(Object.keys(EXPECTED_VERDICTS).sort());
  });

  it("describes every case in the README", () => {
    const readme = fs.readFileSync(path.join(dir, "README.md"), "utf8");
    for (const id of caseIds) expect(readme).toContain(`\`${id}\``);
  });

  describe.each(caseIds)("%s", (id) => {
    it("has every file", () => {
      for (const file of REQUIRED_FILES) expect(fs.existsSync(path.join(dir, id, file)), file).toBe(true);
      const testFiles = fs.readdirSync(path.join(dir, id, "tests")).filter((f) => f.endsWith(".test.ts"));
      expect(testFiles).toHaveLength(1);
      expect(read(id, `tests/${testFiles[0]}`)).toContain('from "vitest"');
    });

    it("has a case.json with every field, and the id of its folder", () => {
      const c = JSON.parse(read(id, "case.json")) as CaseJson;
      expect(Object.keys(c).sort()).toEqual(["expected_verdict", "id", "meta", "name", "tests", "why"]);
      expect(c.id).toBe(id);
      expect(c.name).toEqual(expect.any(String));
      expect(c.name.length).toBeGreaterThan(0);
      expect(c.expected_verdict).toBe(EXPECTED_VERDICTS[id]);
      expect(c.why).toMatch(/^\S.*\.$/);
      expect(Object.keys(c.tests).sort()).toEqual(["failed", "passed"]);
      expect(Number.isInteger(c.tests.passed) && c.tests.passed > 0).toBe(true);
      expect(c.tests.failed).toBe(0);
      expect(Object.keys(c.meta).sort()).toEqual(["agent", "duration_s", "exit_code", "model", "template"]);
      expect(c.meta).toMatchObject({
        agent: "claude-code",
        model: "claude-sonnet-4-5",
        template: "implement-feature",
        exit_code: 0,
      });
      expect(c.meta.duration_s).toBeGreaterThan(0);
    });

    it("has 3 to 6 acceptance criteria and a prompt", () => {
      const bullets = read(id, "criteria.md")
        .split("\n")
        .filter((l) => l.startsWith("- "));
      expect(bullets.length).toBeGreaterThanOrEqual(3);
      expect(bullets.length).toBeLessThanOrEqual(6);
      expect(read(id, "prompt.md").trim().length).toBeGreaterThan(0);
    });

    it("has a well-formed unified diff that touches src/", () => {
      const files = parseUnifiedDiff(read(id, "change.diff"));
      expect(files.some((f) => f.path.startsWith("src/"))).toBe(true);
    });

    it("has test output that agrees with case.json", () => {
      const c = JSON.parse(read(id, "case.json")) as CaseJson;
      const output = read(id, "test-output.txt");
      expect(output).toContain(`Tests  ${c.tests.passed} passed (${c.tests.passed})`);
      expect(output).toContain("Test Files  1 passed (1)");
      expect(output).not.toMatch(/failed|✗|×/);
      expect(output.split("\n").filter((l) => l.trimStart().startsWith("✓"))).toHaveLength(c.tests.passed);
    });

    it("keeps in src/ exactly the new files of the diff that the reviewer's tests import", () => {
      const diffFiles = new Map(parseUnifiedDiff(read(id, "change.diff")).map((f) => [f.path, f]));
      const snapshot = listFiles(path.join(dir, id, "src"));
      expect(snapshot.length).toBeGreaterThan(0);
      for (const rel of snapshot) {
        const file = diffFiles.get(`src/${rel}`);
        expect(file?.isNew, `src/${rel} is a new file in change.diff`).toBe(true);
        expect(read(id, `src/${rel}`)).toBe(newFileContent(file!));
      }
    });
  });
});

describe("parseUnifiedDiff", () => {
  const good = [
    "diff --git a/src/a.ts b/src/a.ts",
    "index 1111111..2222222 100644",
    "--- a/src/a.ts",
    "+++ b/src/a.ts",
    "@@ -1,3 +1,4 @@",
    " one",
    "-two",
    "+2",
    "+two and a half",
    " three",
    "@@ -10,2 +11,1 @@ function f() {",
    " ten",
    "-eleven",
    "",
  ].join("\n");

  it("accepts a well-formed diff", () => {
    const [file] = parseUnifiedDiff(good);
    expect(file.hunks.map((h) => [h.oldCount, h.newCount])).toEqual([
      [3, 4],
      [2, 1],
    ]);
  });

  it("rejects a header whose counts do not match its lines", () => {
    expect(() => parseUnifiedDiff(good.replace("@@ -1,3 +1,4 @@", "@@ -1,3 +1,5 @@"))).toThrow();
    expect(() => parseUnifiedDiff(good.replace("@@ -1,3 +1,4 @@", "@@ -1,2 +1,4 @@"))).toThrow();
  });

  it("rejects a context line that lost its leading space", () => {
    expect(() => parseUnifiedDiff(good.replace("\n three\n", "\nthree\n"))).toThrow(/does not start/);
  });

  it("rejects a later hunk whose new start ignores the lines added before it", () => {
    expect(() => parseUnifiedDiff(good.replace("@@ -10,2 +11,1 @@", "@@ -10,2 +10,1 @@"))).toThrow(
      /new start/,
    );
  });

  it("rejects a file without an index line", () => {
    expect(() => parseUnifiedDiff(good.replace("index 1111111..2222222 100644\n", ""))).toThrow(/index/);
  });
});
