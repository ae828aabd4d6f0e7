"use server";

import { allowAction } from "@/app/guard";
import { getDb } from "@/db/client";
import { type ActionResult, actionFailed } from "@/lib/action-result";
import { loadProjectCriteria } from "@/lib/criteria/load";
import { type PlaygroundResult, tryCriterion } from "@/lib/criteria/playground";
import { errorMessage, isJuryError } from "@/lib/errors";
import { readSettings } from "@/lib/settings/store";
import { tryCriterionSchema } from "@/lib/validations/criteria";
import { wrongShape } from "@/lib/validations/form-data";

export type TryCriterionState = ActionResult<PlaygroundResult> | null;

const str = (v: FormDataEntryValue | null) => (typeof v === "string" ? v : "");

/**
 * The criteria playground: one criterion, the judges and N picked, one typed input and output. The
 * samples and the aggregate come back; no run is created (answers go to the response cache).
 */
export async function tryCriterionAction(
  _prev: TryCriterionState,
  formData: FormData,
): Promise<TryCriterionState> {
  const allowed = await allowAction("tryCriterionAction");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(formData, "form data");
  if (bad) return bad;
  const parsed = tryCriterionSchema.safeParse({
    criterionId: str(formData.get("criterionId")),
    judges: formData.getAll("judges").map(str),
    n: str(formData.get("n")),
    prompt: str(formData.get("prompt")),
    context: str(formData.get("context")),
    reference: str(formData.get("reference")),
    output: str(formData.get("output")),
    params: str(formData.get("params")),
    fresh: formData.get("fresh") === "on",
  });
  if (!parsed.success) return actionFailed("Nothing tried: fix the fields below.", parsed.error);
  const f = parsed.data;
  const registry = loadProjectCriteria();
  const def = registry.criteria.get(f.criterionId);
  if (!def) return actionFailed(`No criterion "${f.criterionId}".`);
  if (def.type === "llm" && f.judges.length === 0)
    return actionFailed("Nothing tried: fix the fields below.", { judges: "Pick at least one judge" });
  const input = {
    ...(f.prompt ? { prompt: f.prompt } : {}),
    ...(f.context ? { context: f.context } : {}),
    ...(f.reference ? { reference: f.reference } : {}),
  };
  try {
    const result = await tryCriterion(getDb(), registry, await readSettings(getDb()), {
      criterionId: f.criterionId,
      judges: f.judges,
      n: f.n,
      input,
      output: f.output,
      params: f.params,
      noCache: f.fresh,
    });
    return { ok: true, data: result };
  } catch (err) {
    const message = errorMessage(err);
    const field = isJuryError(err) ? err.details?.field : undefined;
    return actionFailed(message, typeof field === "string" ? { [field]: message } : {});
  }
}
