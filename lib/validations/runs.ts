import { z } from "zod";

export const startRunSchema = z.object({
  suiteDir: z.string().min(1, "Choose a suite"),
  judges: z.array(z.string().min(3)).min(1, "Choose at least one judge"),
  n: z.coerce
    .number()
    .int("N must be a whole number")
    .min(1, "N must be at least 1")
    .max(10, "N must be at most 10"),
  /** the run form's batch toggle: a checkbox sends "on" when checked, nothing otherwise */
  batch: z.literal("on").optional(),
});

export const runIdSchema = z.string().regex(/^run_\d{8}_[0-9a-f]{8}$/, "Not a run id");

/** One case × criterion of a run (the re-sample action's input). */
export const resampleItemSchema = z.object({
  runId: runIdSchema,
  caseId: z.string().min(1).max(500),
  criterionId: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "Not a criterion id"),
});
