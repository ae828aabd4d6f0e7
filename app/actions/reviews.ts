"use server";

import { revalidatePath } from "next/cache";
import { allowAction } from "@/app/guard";
import { getDb } from "@/db/client";
import { getJob } from "@/db/queries/jobs";
import { type ActionResult, actionFailed } from "@/lib/action-result";
import { readEnv } from "@/lib/env/registry";
import { errorMessage } from "@/lib/errors";
import { cancelJob } from "@/lib/jobs/runner";
import { judgeProblems, preflightError } from "@/lib/providers/preflight";
import { decodeUtf8, MAX_FILE_BYTES_ENV, maxFileBytes } from "@/lib/read-text";
import { assembleContext } from "@/lib/review/assemble";
import { startReviewInBackground } from "@/lib/review/background";
import { enqueueReview, judgeAllowedFor, newReviewId } from "@/lib/review/review-job";
import { plannedCalls, type ReviewOptions } from "@/lib/review/run-review";
import { enabledJudges } from "@/lib/settings/schema";
import { readSettings } from "@/lib/settings/store";
import { wrongShape } from "@/lib/validations/form-data";
import { reviewIdSchema, startReviewSchema } from "@/lib/validations/reviews";

/** `total`: the calls the review plans (the gate and judges × N samples), for its progress. */
export type StartReviewState = ActionResult<{ reviewId: string; total: number }> | null;

const NOTHING = "Nothing reviewed: fix the fields below.";
const str = (v: FormDataEntryValue | null) => (typeof v === "string" ? v : "");

/** An uploaded diff file, read as UTF-8 within the size limit the CLI's --diff has. */
async function uploadedDiff(
  v: FormDataEntryValue | null,
): Promise<{ text?: string; name?: string } | { error: string }> {
  if (!(v instanceof File) || v.size === 0) return {};
  const max = maxFileBytes();
  if (v.size > max)
    return {
      error: `${v.name} is ${v.size.toLocaleString("en-US")} bytes, over the ${max.toLocaleString("en-US")}-byte limit (${MAX_FILE_BYTES_ENV})`,
    };
  try {
    return { text: decodeUtf8(new Uint8Array(await v.arrayBuffer()), v.name), name: v.name };
  } catch (err) {
    return { error: errorMessage(err) };
  }
}

/**
 * Starts a review from the Reviews page: criteria, the diff (pasted or uploaded), the test counts
 * and output, the judges (enabled in Settings, each callable) and N. The review gets its id and its
 * job first, runs in this server process, and is stored when it finishes; the page follows it
 * through /api/progress/<id>.
 */
export async function startReview(_prev: StartReviewState, formData: FormData): Promise<StartReviewState> {
  const allowed = await allowAction("startReview");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(formData, "form data");
  if (bad) return bad;
  const upload = await uploadedDiff(formData.get("diffFile"));
  if ("error" in upload) return actionFailed(NOTHING, { diff: upload.error });
  const pasted = str(formData.get("diff"));
  if (upload.text !== undefined && pasted.trim())
    return actionFailed(NOTHING, { diff: "Give the diff once: paste it or upload a file, not both" });
  const parsed = startReviewSchema.safeParse({
    title: str(formData.get("title")),
    criteria: str(formData.get("criteria")),
    diff: upload.text ?? pasted,
    passed: str(formData.get("passed")),
    failed: str(formData.get("failed")),
    testOutput: str(formData.get("testOutput")),
    judges: formData.getAll("judges").map(str),
    n: str(formData.get("n")),
    perDimension: formData.get("perDimension") === "on",
  });
  if (!parsed.success) return actionFailed(NOTHING, parsed.error);
  const f = parsed.data;
  const db = getDb();
  const settings = await readSettings(db);
  const unknown = f.judges.filter((j) => !enabledJudges(settings).includes(j));
  if (unknown.length)
    return actionFailed("Unknown judge.", { judges: `Not enabled in Settings: ${unknown.join(", ")}` });
  // every judge must be callable before anything is stored or spent (the throttle's slot included)
  const problems = judgeProblems(f.judges, settings);
  if (problems.length)
    return actionFailed(preflightError(problems, "Not reviewed").message, {
      judges: problems.map((p) => p.message).join("; "),
    });
  try {
    const context = assembleContext({
      criteria: f.criteria,
      diff: f.diff,
      passed: f.passed,
      failed: f.failed,
      testOutput: f.testOutput || undefined,
    });
    // choosing judges asks for the judge (as --judges does); JUDGE_ENABLED=false still wins
    const judgeAllowed = await judgeAllowedFor(db, {
      judgeOn: readEnv("JUDGE_ENABLED") !== false,
      offReason: "JUDGE_ENABLED=false",
      testsFailed: (context.testResults?.failed ?? 0) > 0,
    });
    const options: ReviewOptions = {
      context,
      judges: f.judges,
      n: f.n,
      perDimension: f.perDimension,
      quick: false,
      settings,
      judgeAllowed,
    };
    const reviewId = newReviewId();
    await enqueueReview(db, reviewId, options);
    await startReviewInBackground(db, {
      id: reviewId,
      title: f.title ?? upload.name ?? "pasted diff",
      options,
      createdBy: allowed.actor.name,
    });
    revalidatePath("/reviews");
    return { ok: true, data: { reviewId, total: plannedCalls(options) } };
  } catch (err) {
    return actionFailed(errorMessage(err));
  }
}

/** Asks a running review to stop: its calls in flight are aborted and nothing is stored. */
export async function cancelReview(id: string): Promise<ActionResult<null>> {
  const allowed = await allowAction("cancelReview");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(id, "a string");
  if (bad) return bad;
  const parsed = reviewIdSchema.safeParse(id);
  if (!parsed.success) return actionFailed("Not a review id");
  const db = getDb();
  if (!(await getJob(db, { id: parsed.data }))) return actionFailed("No such review");
  if (!(await cancelJob(db, parsed.data))) return actionFailed("The review is not running");
  revalidatePath("/reviews");
  return { ok: true, data: null };
}
