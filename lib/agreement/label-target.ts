/**
 * Checks a label against its run before it is stored: the run, the case and the criterion exist, and
 * a score lies on the criterion's scale (a whole point where the scale's ends are whole). Shared by
 * the dashboard's server action and `jury agreement label`.
 */
import type { Db } from "@/db/client";
import { getRunById, getRunCases } from "@/db/queries/runs";
import { JuryError } from "../errors";

export type LabelTarget = { runId: string; caseId: string; criterionId: string };

export async function checkLabelTarget(
  db: Db,
  t: LabelTarget,
  score: number | null,
): Promise<{ scale: [number, number]; threshold: number }> {
  if (!(await getRunById(db, { id: t.runId })))
    throw new JuryError("not_found", `No run with id "${t.runId}"`, { field: "runId" });
  const c = (await getRunCases(db, { runId: t.runId })).find((x) => x.caseId === t.caseId);
  if (!c)
    throw new JuryError("invalid:label", `Run ${t.runId} has no case "${t.caseId}"`, { field: "caseId" });
  const cr = c.criteria.find((x) => x.id === t.criterionId);
  if (!cr)
    throw new JuryError("invalid:label", `Case "${t.caseId}" was not judged on "${t.criterionId}"`, {
      field: "criterionId",
    });
  if (score !== null) {
    const [lo, hi] = cr.scale;
    if (!Number.isFinite(score) || score < lo || score > hi)
      throw new JuryError("invalid:label", `score ${score} is outside ${t.criterionId}'s scale ${lo}–${hi}`, {
        field: "score",
      });
    if (Number.isInteger(lo) && Number.isInteger(hi) && !Number.isInteger(score))
      throw new JuryError(
        "invalid:label",
        `score must be a whole point of the scale ${lo}–${hi}, got ${score}`,
        {
          field: "score",
        },
      );
  }
  return { scale: cr.scale, threshold: cr.threshold };
}
