"use server";

import { revalidatePath } from "next/cache";
import { allowAction } from "@/app/guard";
import { getDb } from "@/db/client";
import {
  getVerdictLabel,
  removeVerdictLabel,
  setVerdictLabel,
  undoLastVerdictLabel,
} from "@/db/queries/labels";
import { type ActionResult, actionFailed } from "@/lib/action-result";
import { checkLabelTarget } from "@/lib/agreement/label-target";
import { errorMessage, isJuryError } from "@/lib/errors";
import { wrongShape } from "@/lib/validations/form-data";
import { setLabelSchema, undoLabelSchema } from "@/lib/validations/labels";

export type LabelValue = { passed: boolean; score: number | null };

/**
 * A person labels one verdict of a run: pass or fail (null clears the label), and a score on the
 * criterion's scale where they give one. The change is kept in the label history with who made it;
 * setting the label it already has changes nothing.
 */
export async function setLabel(
  input: unknown,
): Promise<ActionResult<{ label: LabelValue | null; previous: LabelValue | null; changed: boolean }>> {
  const allowed = await allowAction("setLabel");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(input, "an object");
  if (bad) return bad;
  const parsed = setLabelSchema.safeParse(input);
  if (!parsed.success) return actionFailed("Label not saved: fix the fields below.", parsed.error);
  const { runId, caseId, criterionId, passed, score, labeller } = parsed.data;
  if (passed === null && score !== null)
    return actionFailed("Label not saved: a score goes with pass or fail.", {
      score: "Pick pass or fail first",
    });
  const db = getDb();
  try {
    await checkLabelTarget(db, { runId, caseId, criterionId }, score);
  } catch (err) {
    const field = isJuryError(err) ? err.details?.field : undefined;
    const message = errorMessage(err);
    return actionFailed(message, typeof field === "string" ? { [field]: message } : {});
  }
  const k = { runId, caseId, criterionId };
  const who = { labeller: labeller || null, author: allowed.actor.name };
  const r =
    passed === null
      ? await removeVerdictLabel(db, k, who)
      : await setVerdictLabel(db, k, { passed, score }, who);
  const now = await getVerdictLabel(db, k);
  revalidatePath(`/runs/${runId}`);
  revalidatePath("/agreement");
  return {
    ok: true,
    data: {
      label: now ? { passed: now.passed, score: now.score } : null,
      previous: r.previous,
      changed: r.changed,
    },
  };
}

/** Undoes the newest label change of a run (its history says which); the undo is itself recorded. */
export async function undoLabel(
  input: unknown,
): Promise<ActionResult<{ caseId: string; criterionId: string; restored: LabelValue | null } | null>> {
  const allowed = await allowAction("undoLabel");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(input, "an object");
  if (bad) return bad;
  const parsed = undoLabelSchema.safeParse(input);
  if (!parsed.success) return actionFailed("Nothing undone", parsed.error);
  const { runId, labeller } = parsed.data;
  const db = getDb();
  try {
    const undone = await undoLastVerdictLabel(db, runId, {
      labeller: labeller || null,
      author: allowed.actor.name,
    });
    revalidatePath(`/runs/${runId}`);
    revalidatePath("/agreement");
    return {
      ok: true,
      data: undone
        ? {
            caseId: undone.caseId,
            criterionId: undone.criterionId,
            restored:
              undone.previousPassed === null
                ? null
                : { passed: undone.previousPassed, score: undone.previousScore },
          }
        : null,
    };
  } catch (err) {
    return actionFailed(errorMessage(err));
  }
}
