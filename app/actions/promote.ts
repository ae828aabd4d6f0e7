"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db/client";
import { type ActionResult, actionFailed } from "@/lib/action-result";
import { errorMessage, hasErrorCode } from "@/lib/errors";
import { promoteExperiment, promotePanel } from "@/lib/settings/promote";
import { describeProvenance } from "@/lib/settings/provenance";
import { criterionIdSchema } from "@/lib/settings/schema";
import { wrongShape } from "@/lib/validations/form-data";
import { runIdSchema } from "@/lib/validations/runs";

const experimentIdSchema = z.string().regex(/^exp_[A-Za-z0-9_-]{1,64}$/, "Not an experiment id");

const promoteExperimentSchema = z.object({
  experimentId: experimentIdSchema,
  /** the person saw why the configuration is not called best and confirmed */
  acknowledgeNotBest: z.boolean().default(false),
});

export type PromoteExperimentResult = ActionResult<{ best: boolean; provenance: string }> & {
  /** set when the configuration is not called best and nothing was changed: the page asks first */
  needsConfirmation?: string;
};

/**
 * "Use for the hook": the memory judge set from a finished study configuration, its figures recorded
 * as the setting's provenance. A configuration the study does not call best is refused with
 * `needsConfirmation` (the reason) until the person confirms.
 */
export async function promoteExperimentAction(input: unknown): Promise<PromoteExperimentResult> {
  const bad = wrongShape(input, "an object");
  if (bad) return bad;
  const parsed = promoteExperimentSchema.safeParse(input);
  if (!parsed.success) return actionFailed("Nothing changed: invalid request.", parsed.error);
  try {
    const db = getDb();
    const r = promoteExperiment(db, parsed.data.experimentId, {
      acknowledgeNotBest: parsed.data.acknowledgeNotBest,
    });
    revalidatePath("/", "layout");
    return {
      ok: true,
      data: { best: r.best, provenance: describeProvenance(r.settings.provenance.memoryJudge) },
    };
  } catch (err) {
    if (hasErrorCode(err, "needs_confirmation"))
      return { ...actionFailed(errorMessage(err)), needsConfirmation: errorMessage(err) };
    return actionFailed(errorMessage(err));
  }
}

const promotePanelSchema = z.object({
  runId: runIdSchema,
  criterionId: criterionIdSchema,
  /** "panel" (the run's panel) or one of its judges, provider:model */
  judge: z.string().trim().min(1).max(200),
  target: z.enum(["criterion", "review"]),
});

/** A run's panel or one of its judges made a criterion's default panel, or the review judges. */
export async function promotePanelAction(
  input: unknown,
): Promise<ActionResult<{ judges: string[]; provenance: string }>> {
  const bad = wrongShape(input, "an object");
  if (bad) return bad;
  const parsed = promotePanelSchema.safeParse(input);
  if (!parsed.success) return actionFailed("Nothing changed: invalid request.", parsed.error);
  try {
    const r = promotePanel(getDb(), parsed.data);
    revalidatePath("/", "layout");
    const path =
      parsed.data.target === "criterion" ? `criteriaPanels.${parsed.data.criterionId}` : "reviewJudges";
    return {
      ok: true,
      data: { judges: r.judges, provenance: describeProvenance(r.settings.provenance[path]) },
    };
  } catch (err) {
    return actionFailed(errorMessage(err));
  }
}
