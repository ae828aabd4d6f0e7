import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { JuryError } from "../errors";
import { decodeUtf8, readFileSafe } from "../read-text";
import { assembleContext, CONVENTIONS_MAX_CHARS, type ReviewContext } from "./assemble";

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

/** Assembles the review's context package with its truncation rules (diff 3,000 lines, test output 2,000, 60,000 tokens in all). */
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
    // read in the documented order, so the first unreadable file is the one named
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
