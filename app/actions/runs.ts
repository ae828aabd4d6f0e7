"use server";

import { revalidatePath } from "next/cache";
import { getDb } from "@/db/client";
import { getRunById, requestCancel } from "@/db/queries/runs";
import type { ActionResult } from "@/lib/action-result";
import { loadProjectCriteria } from "@/lib/criteria/load";
import { errorMessage } from "@/lib/errors";
import { startRunInBackground } from "@/lib/runs/background";
import { createRun } from "@/lib/runs/plan-run";
import { enabledJudges, fieldErrorsOf } from "@/lib/settings/schema";
import { readSettings } from "@/lib/settings/store";
import { discoverSuites, loadSuite } from "@/lib/suites/load-suite";
import { runIdSchema, startRunSchema } from "@/lib/validations/runs";

export type StartRunState = ActionResult<{ runId: string }> | null;

export async function startRun(_prev: StartRunState, formData: FormData): Promise<StartRunState> {
  const parsed = startRunSchema.safeParse({
    suiteDir: formData.get("suiteDir"),
    judges: formData.getAll("judges"),
    n: formData.get("n"),
  });
  if (!parsed.success)
    return {
      ok: false,
      error: "Nothing started: fix the fields below.",
      fieldErrors: fieldErrorsOf(parsed.error),
    };
  const { suiteDir, judges, n } = parsed.data;
  // Only suites the server itself discovered: a form cannot point the server at any folder.
  if (!discoverSuites().some((s) => s.dir === suiteDir)) {
    return { ok: false, error: "Unknown suite.", fieldErrors: { suiteDir: "Not one of the listed suites" } };
  }
  const db = getDb();
  const settings = readSettings(db);
  const unknown = judges.filter((j) => !enabledJudges(settings).includes(j));
  if (unknown.length) {
    return {
      ok: false,
      error: "Unknown judge.",
      fieldErrors: { judges: `Not enabled in Settings: ${unknown.join(", ")}` },
    };
  }
  try {
    const runId = await createRun(db, loadSuite(suiteDir), loadProjectCriteria(), {
      judges,
      n,
      temperature: settings.judging.temperature,
      concurrency: settings.judging.concurrency,
      noCache: false,
    });
    startRunInBackground(db, runId);
    revalidatePath("/runs");
    return { ok: true, data: { runId } };
  } catch (err) {
    return { ok: false, error: errorMessage(err), fieldErrors: {} };
  }
}

export async function cancelRun(id: string): Promise<ActionResult<null>> {
  const parsed = runIdSchema.safeParse(id);
  if (!parsed.success) return { ok: false, error: "Not a run id", fieldErrors: {} };
  const db = getDb();
  if (!getRunById(db, { id: parsed.data })) return { ok: false, error: "No such run", fieldErrors: {} };
  if (!requestCancel(db, { id: parsed.data }))
    return { ok: false, error: "The run is not running", fieldErrors: {} };
  revalidatePath(`/runs/${parsed.data}`);
  return { ok: true, data: null };
}

export async function resumeRun(id: string): Promise<ActionResult<null>> {
  const parsed = runIdSchema.safeParse(id);
  if (!parsed.success) return { ok: false, error: "Not a run id", fieldErrors: {} };
  const db = getDb();
  const run = getRunById(db, { id: parsed.data });
  if (!run) return { ok: false, error: "No such run", fieldErrors: {} };
  if (run.status === "running" || run.status === "done")
    return { ok: false, error: `The run is ${run.status}`, fieldErrors: {} };
  startRunInBackground(db, run.id);
  revalidatePath(`/runs/${run.id}`);
  return { ok: true, data: null };
}
