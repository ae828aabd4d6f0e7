"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { allowAction } from "@/app/guard";
import { getDb } from "@/db/client";
import { type ActionResult, actionFailed } from "@/lib/action-result";
import { errorMessage, hasErrorCode } from "@/lib/errors";
import { hookReadsNote } from "@/lib/memory/collection";
import { promotePanelConfig } from "@/lib/panel/promote";
import { promoteExperiment, promotePanel } from "@/lib/settings/promote";
import { GUARD_CODES, type PromotionGuard } from "@/lib/settings/promote-guard";
import { describeProvenance } from "@/lib/settings/provenance";
import { criterionIdSchema } from "@/lib/settings/schema";
import { wrongShape } from "@/lib/validations/form-data";
import { runIdSchema } from "@/lib/validations/runs";

const experimentIdSchema = z.string().regex(/^exp_[A-Za-z0-9_-]{1,64}$/, "Not an experiment id");

/** The warnings the person confirmed, by code, with the figures in front of them. */
const confirmedSchema = z.array(z.enum(GUARD_CODES)).max(GUARD_CODES.length).default([]);

const promoteExperimentSchema = z.object({
  experimentId: experimentIdSchema,
  confirmed: confirmedSchema,
});

/** A refused promotion's figures and warnings, for the page to show before asking again. */
type NeedsConfirmation = { needsConfirmation?: PromotionGuard };

export type PromoteExperimentResult = ActionResult<{
  best: boolean;
  provenance: string;
  /** what the hook and the skill read now, in words */
  reads: string;
}> &
  NeedsConfirmation;

/** The refusal of an unconfirmed promotion as the action returns it; other errors as themselves. */
function failed(err: unknown): ActionResult<never> & NeedsConfirmation {
  const guard = hasErrorCode(err, "needs_confirmation") ? (err.details?.guard as PromotionGuard) : undefined;
  return guard
    ? { ...actionFailed(errorMessage(err)), needsConfirmation: guard }
    : actionFailed(errorMessage(err));
}

/**
 * "Use for the hook": the memory judge and its collection set from a finished study configuration, its
 * figures recorded as the setting's provenance. A configuration the figures do not support (not called
 * best, or it kept nothing) is refused with `needsConfirmation` (the figures and warnings) until the
 * person confirms each warning.
 */
export async function promoteExperimentAction(input: unknown): Promise<PromoteExperimentResult> {
  const allowed = await allowAction("promoteExperimentAction");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(input, "an object");
  if (bad) return bad;
  const parsed = promoteExperimentSchema.safeParse(input);
  if (!parsed.success) return actionFailed("Nothing changed: invalid request.", parsed.error);
  try {
    const db = getDb();
    const r = await promoteExperiment(db, parsed.data.experimentId, {
      confirmed: parsed.data.confirmed,
      by: allowed.actor.name,
    });
    revalidatePath("/", "layout");
    return {
      ok: true,
      data: {
        best: r.best,
        provenance: describeProvenance(r.settings.provenance.memoryJudge),
        reads: hookReadsNote(r.promoted.collection, r.settings.memoryJudge.collection).text,
      },
    };
  } catch (err) {
    return failed(err);
  }
}

const promotePanelSchema = z.object({
  runId: runIdSchema,
  criterionId: criterionIdSchema,
  /** "panel" (the run's panel) or one of its judges, provider:model */
  judge: z.string().trim().min(1).max(200),
  target: z.enum(["criterion", "review"]),
  confirmed: confirmedSchema,
});

/**
 * A run's panel or one of its judges made a criterion's default panel, or the review judges. Weak
 * evidence (few labels, κ's interval reaching 0, low coverage) is refused with `needsConfirmation`
 * until the person confirms each warning.
 */
export async function promotePanelAction(
  input: unknown,
): Promise<ActionResult<{ judges: string[]; provenance: string }> & NeedsConfirmation> {
  const allowed = await allowAction("promotePanelAction");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(input, "an object");
  if (bad) return bad;
  const parsed = promotePanelSchema.safeParse(input);
  if (!parsed.success) return actionFailed("Nothing changed: invalid request.", parsed.error);
  try {
    const r = await promotePanel(getDb(), { ...parsed.data, by: allowed.actor.name });
    revalidatePath("/", "layout");
    const path =
      parsed.data.target === "criterion" ? `criteriaPanels.${parsed.data.criterionId}` : "reviewJudges";
    return {
      ok: true,
      data: { judges: r.judges, provenance: describeProvenance(r.settings.provenance[path]) },
    };
  } catch (err) {
    return failed(err);
  }
}

const promotePanelConfigSchema = z.object({
  runId: runIdSchema,
  criterionId: criterionIdSchema,
  /** the configuration's judges, provider:model */
  judges: z.array(z.string().trim().min(1).max(200)).min(1).max(8),
  n: z.int().min(1).max(10),
  margin: z.number().min(0).max(0.5).optional(),
  confirmed: confirmedSchema,
});

/**
 * A configuration of the panel optimizer made the criterion's default panel and N, with its figures
 * (recomputed on the server) as provenance. Weak evidence (few labels, κ's interval reaching 0, not the
 * recommendation) is refused with `needsConfirmation` until the person confirms each warning.
 */
export async function promotePanelConfigAction(
  input: unknown,
): Promise<ActionResult<{ judges: string[]; n: number; provenance: string }> & NeedsConfirmation> {
  const allowed = await allowAction("promotePanelConfigAction");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(input, "an object");
  if (bad) return bad;
  const parsed = promotePanelConfigSchema.safeParse(input);
  if (!parsed.success) return actionFailed("Nothing changed: invalid request.", parsed.error);
  try {
    const r = await promotePanelConfig(getDb(), { ...parsed.data, by: allowed.actor.name });
    revalidatePath("/", "layout");
    return {
      ok: true,
      data: {
        judges: r.config.judges,
        n: r.config.n,
        provenance: describeProvenance(r.settings.provenance[`criteriaSamples.${parsed.data.criterionId}`]),
      },
    };
  } catch (err) {
    return failed(err);
  }
}
