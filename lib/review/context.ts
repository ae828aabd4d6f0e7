import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { JuryError } from "../errors";
import { decodeUtf8, readFileSafe } from "../read-text";

export const DIFF_MAX_LINES = 3000;
export const TEST_OUTPUT_MAX_LINES = 2000;
export const CONVENTIONS_MAX_CHARS = 6000;
/** Overall budget for the context package, in tokens (≈ characters ÷ 4). */
export const DEFAULT_TOKEN_BUDGET = 60_000;

export type ReviewContext = {
  criteria: string;
  prompt?: string;
  diff: string;
  testFiles: { path: string; content: string }[];
  testResults?: { passed: number; failed: number; output?: string };
  conventions?: string;
  lint?: string;
  meta: Record<string, string | number>;
  notes: string[];
};

/** Keeps the first `max` lines and says what was cut. */
export function truncateLines(text: string, max: number, what: string): { text: string; note?: string } {
  const lines = text.split("\n");
  if (lines.length <= max) return { text };
  const note = `[${what} truncated: showing the first ${max} of ${lines.length} lines; ${lines.length - max} lines cut]`;
  return { text: `${lines.slice(0, max).join("\n")}\n${note}`, note };
}

/**
 * A file named on the command line: any folder (the user chose it), but a regular file within the
 * size limit, never a FIFO or device, and text.
 */
function readFile(file: string, what: string): string {
  const buf = readFileSafe(file, { label: `${what} ${file}`, code: "invalid:review" });
  if (buf.includes(0)) throw new JuryError("invalid:review", `${what} ${file} is binary`);
  return decodeUtf8(buf, `${what} ${file}`);
}

/** `git diff <base>...<head>` of a repository; binary files show as "Binary files differ". */
export function gitDiff(repo: string, base: string, head = "HEAD"): string {
  for (const rev of [base, head]) {
    if (!/^[\w./~^@{}-]+$/.test(rev) || rev.startsWith("-"))
      throw new JuryError("invalid:review", `Not a git revision: "${rev}"`);
  }
  try {
    return execFileSync("git", ["-C", repo, "diff", "--no-color", "--no-ext-diff", `${base}...${head}`], {
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new JuryError(
      "invalid:review",
      `git diff ${base}...${head} in ${repo} failed: ${stderr || (err as Error).message}`,
    );
  }
}

/** CLAUDE.md / AGENTS.md found at the repository root, excerpted. */
export function findConventions(repo: string): string | undefined {
  const parts: string[] = [];
  for (const name of ["CLAUDE.md", "AGENTS.md", ".claude/CLAUDE.md"]) {
    const f = path.join(repo, name);
    if (!fs.existsSync(f)) continue;
    // inside the repository (symlinks resolved), a regular file within the size limit; else skipped
    try {
      parts.push(`# ${name}\n${readFileSafe(f, { root: repo }).toString("utf8")}`);
    } catch (err) {
      parts.push(`# ${name}\n[not read by Jury: ${(err as Error).message}]`);
    }
  }
  if (parts.length === 0) return undefined;
  const all = parts.join("\n\n");
  return all.length > CONVENTIONS_MAX_CHARS
    ? `${all.slice(0, CONVENTIONS_MAX_CHARS)}\n[conventions excerpted: first ${CONVENTIONS_MAX_CHARS} of ${all.length} characters]`
    : all;
}

export type GatherInput = {
  criteria: string;
  criteriaIsFile?: boolean;
  prompt?: string;
  repo?: string;
  base?: string;
  head?: string;
  diffFile?: string;
  testFiles?: string[];
  testOutputFile?: string;
  passed?: number;
  failed?: number;
  lintFile?: string;
  meta?: Record<string, string | number>;
  tokenBudget?: number;
};

/** Assembles the review's context package with the seeds' truncation rules. */
export function gatherContext(i: GatherInput): ReviewContext {
  const criteria = i.criteriaIsFile ? readFile(i.criteria, "criteria file") : i.criteria;
  if (!criteria.trim())
    throw new JuryError(
      "invalid:review",
      i.criteriaIsFile ? `criteria file ${i.criteria} is empty` : "The acceptance criteria are empty",
    );
  let diff: string;
  if (i.diffFile) diff = readFile(i.diffFile, "diff file");
  else if (i.repo && i.base) diff = gitDiff(i.repo, i.base, i.head);
  else throw new JuryError("invalid:review", "Give a diff: --diff <file>, or --repo <path> --base <rev>");
  return assembleContext({
    criteria,
    prompt: i.prompt,
    diff,
    // read in the order the seeds list them, so the first unreadable file is the one named
    testOutput: i.testOutputFile ? readFile(i.testOutputFile, "test output") : undefined,
    testFiles: (i.testFiles ?? []).map((p) => ({ path: p, content: readFile(p, "test file") })),
    passed: i.passed,
    failed: i.failed,
    conventions: i.repo ? findConventions(i.repo) : undefined,
    lint: i.lintFile ? readFile(i.lintFile, "lint output") : undefined,
    meta: i.meta,
    tokenBudget: i.tokenBudget,
  });
}

/** What a review reads, as text: what the CLI reads from files, or the dashboard's form sends. */
export type ContextText = {
  criteria: string;
  prompt?: string;
  diff: string;
  testFiles?: { path: string; content: string }[];
  passed?: number;
  failed?: number;
  testOutput?: string;
  conventions?: string;
  lint?: string;
  meta?: Record<string, string | number>;
  tokenBudget?: number;
};

/**
 * The context package from text, cut as the seeds say: the diff to DIFF_MAX_LINES lines, the test
 * output to TEST_OUTPUT_MAX_LINES, lint to 500, then the whole to the token budget; each cut noted.
 */
export function assembleContext(i: ContextText): ReviewContext {
  if (!i.criteria.trim()) throw new JuryError("invalid:review", "The acceptance criteria are empty");
  const notes: string[] = [];
  if (!i.diff.trim()) notes.push("The diff is empty: nothing changed between the revisions.");
  const d = truncateLines(i.diff, DIFF_MAX_LINES, "diff");
  if (d.note) notes.push(d.note);
  let output: string | undefined;
  if (i.testOutput) {
    const t = truncateLines(i.testOutput, TEST_OUTPUT_MAX_LINES, "test output");
    if (t.note) notes.push(t.note);
    output = t.text;
  }
  const ctx: ReviewContext = {
    criteria: i.criteria,
    prompt: i.prompt,
    diff: d.text,
    testFiles: i.testFiles ?? [],
    testResults:
      i.passed !== undefined || i.failed !== undefined || output
        ? { passed: i.passed ?? 0, failed: i.failed ?? 0, output }
        : undefined,
    conventions: i.conventions,
    lint: i.lint === undefined ? undefined : truncateLines(i.lint, 500, "lint output").text,
    meta: i.meta ?? {},
    notes,
  };
  return enforceBudget(ctx, i.tokenBudget ?? DEFAULT_TOKEN_BUDGET);
}

const size = (c: ReviewContext) =>
  c.criteria.length +
  (c.prompt?.length ?? 0) +
  c.diff.length +
  c.testFiles.reduce((s, f) => s + f.content.length, 0) +
  (c.testResults?.output?.length ?? 0) +
  (c.conventions?.length ?? 0) +
  (c.lint?.length ?? 0);

/** Cuts the largest parts (diff, test output, test files) until the package fits the token budget. */
export function enforceBudget(ctx: ReviewContext, tokens: number): ReviewContext {
  const maxChars = tokens * 4;
  if (size(ctx) <= maxChars) return ctx;
  const c = { ...ctx, notes: [...ctx.notes] };
  const cut = (text: string, keep: number, what: string) => {
    if (text.length <= keep) return text;
    c.notes.push(`[${what} cut to ${keep} of ${text.length} characters to fit the ${tokens}-token budget]`);
    return `${text.slice(0, keep)}\n[… ${what} cut to fit the token budget]`;
  };
  const over = size(c) - maxChars;
  if (c.testResults?.output)
    c.testResults = {
      ...c.testResults,
      output: cut(c.testResults.output, Math.max(2000, c.testResults.output.length - over), "test output"),
    };
  if (size(c) > maxChars)
    c.testFiles = c.testFiles.map((f) => ({ ...f, content: cut(f.content, 4000, `test file ${f.path}`) }));
  if (size(c) > maxChars) c.diff = cut(c.diff, Math.max(1000, c.diff.length - (size(c) - maxChars)), "diff");
  return c;
}
