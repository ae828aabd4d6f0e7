import { JuryError } from "../errors";

/**
 * The review's context package from text: what the CLI reads from files (lib/review/context.ts)
 * or the dashboard's form sends. No file access here, so a server action can import it.
 */

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
 * The context package from text, cut: the diff to DIFF_MAX_LINES lines, the test
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
