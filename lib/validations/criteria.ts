import { z } from "zod";
import { PLAYGROUND_MAX_N } from "../criteria/playground";

/** The longest text the playground takes in one field: judges see at most JURY_MAX_FIELD_CHARS of it. */
export const PLAYGROUND_MAX_FIELD = 200_000;

const text = (label: string) =>
  z
    .string()
    .max(
      PLAYGROUND_MAX_FIELD,
      `${label} is longer than ${PLAYGROUND_MAX_FIELD.toLocaleString("en")} characters`,
    );

/** The criteria playground's form (app/actions/criteria.ts); field names are the form's. */
export const tryCriterionSchema = z.object({
  criterionId: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "Not a criterion id"),
  judges: z.array(z.string().min(3).max(250)).max(50, "At most 50 judges"),
  n: z.coerce
    .number("N must be a number")
    .int("N must be a whole number")
    .min(1, "N must be at least 1")
    .max(PLAYGROUND_MAX_N, `N must be at most ${PLAYGROUND_MAX_N}`),
  prompt: text("The prompt"),
  context: text("The context"),
  reference: text("The reference answer"),
  output: text("The output").refine((s) => s.trim() !== "", "Type the output to judge"),
  /** a deterministic criterion's parameters, as a JSON object; blank: the definition's */
  params: z
    .string()
    .max(20_000, "Parameters are longer than 20,000 characters")
    .transform((s, ctx) => {
      if (s.trim() === "") return undefined;
      try {
        const v: unknown = JSON.parse(s);
        if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
      } catch {}
      ctx.addIssue({ code: "custom", message: 'Parameters must be a JSON object, like {"pattern": "4"}' });
      return z.NEVER;
    }),
  fresh: z.boolean(),
});
