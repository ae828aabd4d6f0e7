import { z } from "zod";
import { runIdSchema } from "./runs";

const ref = {
  runId: runIdSchema,
  caseId: z.string().min(1, "Not a case id").max(200, "Not a case id"),
  criterionId: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "Not a criterion id"),
};

/** A person's label on one verdict (app/actions/labels.ts): pass/fail (null: clear), a score where given. */
export const setLabelSchema = z.object({
  ...ref,
  passed: z.boolean().nullable(),
  score: z.number("The score must be a number").finite("The score must be a number").nullable().default(null),
  labeller: z.string().trim().max(100, "At most 100 characters").optional(),
});

export const undoLabelSchema = z.object({
  runId: runIdSchema,
  labeller: z.string().trim().max(100).optional(),
});

/** An agreement page id: an import's, an audit's, or a run's. */
export const agreementIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, "Not an import or run id");

const scaleText = z
  .string()
  .trim()
  .transform((s, ctx) => {
    if (s === "") return undefined;
    const m = /^(-?\d+)\s*-\s*(-?\d+)$/.exec(s);
    if (!m || !(Number(m[1]) < Number(m[2]))) {
      ctx.addIssue({ code: "custom", message: "Write the scale low-high, like 0-3" });
      return z.NEVER;
    }
    return [Number(m[1]), Number(m[2])] as [number, number];
  });

/** The dashboard's import form (app/actions/agreement.ts); the files are checked apart. */
export const importFormSchema = z.object({
  format: z.enum(["trec", "llmbar", "jsonl"], "Pick a format"),
  name: z.string().trim().max(200, "At most 200 characters").optional(),
  names: z
    .string()
    .trim()
    .max(2000)
    .transform((s) => (s === "" ? undefined : s.split(",").map((x) => x.trim())))
    .refine((l) => !l || l.every(Boolean), "Names separated by commas, none empty"),
  cut: z
    .string()
    .trim()
    .transform((s, ctx) => {
      if (s === "") return undefined;
      const n = Number(s);
      if (!Number.isInteger(n)) {
        ctx.addIssue({ code: "custom", message: "The cut must be a whole number" });
        return z.NEVER;
      }
      return n;
    }),
  scale: scaleText,
});
