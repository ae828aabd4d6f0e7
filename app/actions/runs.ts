"use server";

import { revalidatePath } from "next/cache";
import { allowAction } from "@/app/guard";
import { getDb } from "@/db/client";
import { getPendingTasks, getRunById, requestCancel } from "@/db/queries/runs";
import { type ActionResult, actionFailed } from "@/lib/action-result";
import { loadProjectCriteria } from "@/lib/criteria/load";
import { errorMessage } from "@/lib/errors";
import { judgeProblems, preflightError } from "@/lib/providers/preflight";
import { startRunInBackground } from "@/lib/runs/background";
import { createRun, panelOptionsOf, unpricedJudges } from "@/lib/runs/plan-run";
import { judgesToCall, requeue, requeueRefusal, samplesToResample, samplesToRetry } from "@/lib/runs/requeue";
import { enabledJudges } from "@/lib/settings/schema";
import { readSettings } from "@/lib/settings/store";
import { discoverSuites, loadSuite } from "@/lib/suites/load-suite";
import { wrongShape } from "@/lib/validations/form-data";
import { resampleItemSchema, runIdSchema, startRunSchema } from "@/lib/validations/runs";

export type StartRunState = ActionResult<{ runId: string }> | null;

export async function startRun(_prev: StartRunState, formData: FormData): Promise<StartRunState> {
  const allowed = await allowAction("startRun");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(formData, "form data");
  if (bad) return bad;
  const parsed = startRunSchema.safeParse({
    suiteDir: formData.get("suiteDir"),
    judges: formData.getAll("judges"),
    n: formData.get("n"),
    batch: formData.get("batch") ?? undefined,
  });
  if (!parsed.success) return actionFailed("Nothing started: fix the fields below.", parsed.error);
  const { suiteDir, judges, n, batch } = parsed.data;
  // Only suites the server itself discovered: a form cannot point the server at any folder.
  if (!discoverSuites().some((s) => s.dir === suiteDir)) {
    return actionFailed("Unknown suite.", { suiteDir: "Not one of the listed suites" });
  }
  const db = getDb();
  const settings = await readSettings(db);
  const unknown = judges.filter((j) => !enabledJudges(settings).includes(j));
  if (unknown.length) {
    return actionFailed("Unknown judge.", { judges: `Not enabled in Settings: ${unknown.join(", ")}` });
  }
  // every judge must be callable before anything is stored or spent: say which and what it lacks
  const problems = judgeProblems(judges, settings);
  if (problems.length) {
    return actionFailed(preflightError(problems).message, {
      judges: problems.map((p) => p.message).join("; "),
    });
  }
  try {
    const unpriced = unpricedJudges(judges, settings.prices);
    const runId = await createRun(
      db,
      loadSuite(suiteDir),
      loadProjectCriteria(),
      {
        judges,
        n,
        temperature: settings.judging.temperature,
        concurrency: settings.judging.concurrency,
        noCache: false,
        promptCaching: settings.judging.promptCaching,
        ...(batch ? { batch: true } : {}),
        panel: panelOptionsOf(settings.judging),
        ...(unpriced.length ? { unpriced } : {}),
      },
      undefined,
      { settings },
      allowed.actor.name,
    );
    await startRunInBackground(db, runId);
    revalidatePath("/runs");
    return { ok: true, data: { runId } };
  } catch (err) {
    return actionFailed(errorMessage(err));
  }
}

const getPendingJudges = async (db: ReturnType<typeof getDb>, runId: string) =>
  new Set((await getPendingTasks(db, { runId })).map((t) => t.judge));

export async function cancelRun(id: string): Promise<ActionResult<null>> {
  const allowed = await allowAction("cancelRun");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(id, "a string");
  if (bad) return bad;
  const parsed = runIdSchema.safeParse(id);
  if (!parsed.success) return actionFailed("Not a run id");
  const db = getDb();
  if (!(await getRunById(db, { id: parsed.data }))) return actionFailed("No such run");
  if (!(await requestCancel(db, { id: parsed.data }))) return actionFailed("The run is not running");
  revalidatePath(`/runs/${parsed.data}`);
  return { ok: true, data: null };
}

export async function resumeRun(id: string): Promise<ActionResult<null>> {
  const allowed = await allowAction("resumeRun");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(id, "a string");
  if (bad) return bad;
  const parsed = runIdSchema.safeParse(id);
  if (!parsed.success) return actionFailed("Not a run id");
  const db = getDb();
  const run = await getRunById(db, { id: parsed.data });
  if (!run) return actionFailed("No such run");
  if (run.status === "running" || run.status === "done" || run.status === "done_with_failures")
    return actionFailed(`The run is ${run.status.replaceAll("_", " ")}`);
  // a resume calls its judges: refuse, naming them, when one cannot be called
  const pending = await getPendingJudges(db, run.id);
  const problems = judgeProblems(
    run.options.judges.filter((j) => pending.has(j)),
    await readSettings(db),
  );
  if (problems.length) return actionFailed(preflightError(problems, "Not resumed").message);
  await startRunInBackground(db, run.id);
  revalidatePath(`/runs/${run.id}`);
  return { ok: true, data: null };
}

/**
 * Retries the run's failed samples: each is kept, marked "retried", its task queued again, and the
 * run started through the job runner. Refused while the run is live, or when a judge to call cannot be.
 */
export async function retryFailedSamples(id: string): Promise<ActionResult<{ requeued: number }>> {
  const allowed = await allowAction("retryFailedSamples");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(id, "a string");
  if (bad) return bad;
  const parsed = runIdSchema.safeParse(id);
  if (!parsed.success) return actionFailed("Not a run id");
  const db = getDb();
  const failed = await samplesToRetry(db, parsed.data);
  return requeueAndStart(db, parsed.data, failed, "retried", "retry failed samples");
}

/** New samples for one case × criterion: the old ones kept, marked "resampled"; the judges asked anew. */
export async function resampleItem(
  id: string,
  caseId: string,
  criterionId: string,
): Promise<ActionResult<{ requeued: number }>> {
  const allowed = await allowAction("resampleItem");
  if ("refused" in allowed) return allowed.refused;
  for (const arg of [id, caseId, criterionId]) {
    const bad = wrongShape(arg, "a string");
    if (bad) return bad;
  }
  const parsed = resampleItemSchema.safeParse({ runId: id, caseId, criterionId });
  if (!parsed.success) return actionFailed("Not a run item", parsed.error);
  const db = getDb();
  const { runId } = parsed.data;
  const cell = await samplesToResample(db, runId, parsed.data.caseId, parsed.data.criterionId);
  return requeueAndStart(db, runId, cell, "resampled", "re-sample this item");
}

async function requeueAndStart(
  db: ReturnType<typeof getDb>,
  runId: string,
  samples: Parameters<typeof judgesToCall>[0] & Parameters<typeof requeue>[2],
  reason: "retried" | "resampled",
  what: string,
): Promise<ActionResult<{ requeued: number }>> {
  const run = await getRunById(db, { id: runId });
  if (!run) return actionFailed("No such run");
  // the judges to call again must be callable: refuse, naming them, before anything is marked
  const problems = judgeProblems(judgesToCall(samples), await readSettings(db));
  if (problems.length) return actionFailed(preflightError(problems, "Nothing queued").message);
  const out = await requeue(db, runId, samples, reason);
  if (!out.ok) return actionFailed(requeueRefusal(out, what));
  await startRunInBackground(db, runId);
  revalidatePath(`/runs/${runId}`);
  revalidatePath("/runs");
  return { ok: true, data: { requeued: out.requeued } };
}
