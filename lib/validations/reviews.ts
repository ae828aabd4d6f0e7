import { z } from "zod";
import { MAX_FILE_BYTES_ENV, maxFileBytes } from "../read-text";

/**
 * A text field within the size the CLI reads from a file (JURY_MAX_FILE_BYTES, 10 MiB by default),
 * named in the message. The review then cuts it as the CLI does (the diff to its first 3,000
 * lines, the test output to 2,000), saying so in the review's notes.
 */
const textWithin = (label: string) =>
  z.string().superRefine((s, ctx) => {
    const bytes = Buffer.byteLength(s, "utf8");
    const max = maxFileBytes();
    if (bytes > max)
      ctx.addIssue({
        code: "custom",
        message: `${label} is ${bytes.toLocaleString("en-US")} bytes, over the ${max.toLocaleString("en-US")}-byte limit (${MAX_FILE_BYTES_ENV})`,
      });
  });

/** A test count: blank for none, else a whole number ≥ 0. */
const count = (label: string) =>
  z
    .string()
    .trim()
    .transform((s, ctx) => {
      if (s === "") return undefined;
      const n = Number(s);
      if (Number.isInteger(n) && n >= 0) return n;
      ctx.addIssue({ code: "custom", message: `${label} must be a whole number ≥ 0, got "${s}"` });
      return z.NEVER;
    });

/** The Reviews page's form (app/actions/reviews.ts); field names are the form's. */
export const startReviewSchema = z.object({
  title: z
    .string()
    .trim()
    .max(200, "The title is longer than 200 characters")
    .transform((s) => s || undefined),
  criteria: textWithin("The criteria").refine((s) => s.trim() !== "", "Write the acceptance criteria"),
  diff: textWithin("The diff")
    .refine((s) => s.trim() !== "", "Paste the diff or upload a .diff file")
    .refine((s) => !s.includes("\0"), "The diff is binary: give a text diff (git diff)"),
  passed: count("Passed"),
  failed: count("Failed"),
  testOutput: textWithin("The test output"),
  judges: z
    .array(z.string().min(3).max(250))
    .min(1, "Choose at least one judge")
    .max(50, "At most 50 judges"),
  n: z.coerce
    .number("N must be a number")
    .int("N must be a whole number")
    .min(1, "N must be at least 1")
    .max(10, "N must be at most 10"),
  perDimension: z.boolean(),
});

/** A review's id (lib/review/review-job.ts newReviewId). */
export const reviewIdSchema = z.string().regex(/^rev_[0-9a-f]{10}$/, "Not a review id");
