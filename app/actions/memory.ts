"use server";

import path from "node:path";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { allowAction } from "@/app/guard";
import { getDb } from "@/db/client";
import { getMemories } from "@/db/queries/memories";
import {
  annotateOne,
  getStudyMeta,
  listStudyQueries,
  startFreshAnnotation as startFreshAnnotationQuery,
  undoLastAnnotation,
} from "@/db/queries/study";
import { type ActionResult, actionFailed } from "@/lib/action-result";
import { errorMessage } from "@/lib/errors";
import { startExperimentInBackground } from "@/lib/memory/background";
import { BM25_RUN_DEPTH } from "@/lib/memory/experiment";
import { importStudyFolder } from "@/lib/memory/import";
import { judgeProblems, preflightError } from "@/lib/providers/preflight";
import { readSettings } from "@/lib/settings/store";
import { wrongShape } from "@/lib/validations/form-data";
import { annotateSchema, collectionSchema, experimentFormSchema } from "@/lib/validations/memory";

export async function importExampleStudy(): Promise<ActionResult<{ collection: string }>> {
  const allowed = await allowAction("importExampleStudy");
  if ("refused" in allowed) return allowed.refused;
  try {
    const db = getDb();
    // already there (perhaps relabelled by a person since): open it, never overwrite its labels
    if (await getStudyMeta(db, "shop-api")) return { ok: true, data: { collection: "shop-api" } };
    await importStudyFolder(db, path.join(process.cwd(), "examples", "memory-study"), "shop-api");
    revalidatePath("/memory");
    return { ok: true, data: { collection: "shop-api" } };
  } catch (err) {
    return actionFailed(errorMessage(err));
  }
}

export async function annotate(input: unknown): Promise<ActionResult<null>> {
  const allowed = await allowAction("annotate");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(input, "an object");
  if (bad) return bad;
  const parsed = annotateSchema.safeParse(input);
  if (!parsed.success) return actionFailed("Invalid annotation", parsed.error);
  const { collection, queryId, memoryId, relevant } = parsed.data;
  const db = getDb();
  if (!(await listStudyQueries(db, collection)).some((q) => q.queryId === queryId)) {
    return actionFailed(`No query "${queryId}" in ${collection}`);
  }
  if ((await getMemories(db, collection, [memoryId])).length === 0) {
    return actionFailed(`No memory "${memoryId}" in ${collection}`);
  }
  // the label, a history entry (source: a person, now), and the query enters the metrics
  await annotateOne(db, collection, { queryId, memoryId, relevance: relevant ? 1 : 0 }, allowed.actor.name);
  revalidatePath(`/memory/${collection}`);
  return { ok: true, data: null };
}

const queryRefSchema = z.object({ collection: collectionSchema, queryId: z.string().min(1).max(200) });

/**
 * Undoes the newest label change of one query (its history says which); the undo is itself recorded.
 * `memoryId` null: the change undone was a fresh start, and `restored` counts the labels brought back.
 */
export async function undoAnnotation(
  input: unknown,
): Promise<ActionResult<{ memoryId: string | null; restored: number | null } | null>> {
  const allowed = await allowAction("undoAnnotation");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(input, "an object");
  if (bad) return bad;
  const parsed = queryRefSchema.safeParse(input);
  if (!parsed.success) return actionFailed("Invalid undo", parsed.error);
  const { collection, queryId } = parsed.data;
  const db = getDb();
  if (!(await listStudyQueries(db, collection)).some((q) => q.queryId === queryId))
    return actionFailed(`No query "${queryId}" in ${collection}`);
  const undone = await undoLastAnnotation(db, collection, queryId, allowed.actor.name);
  revalidatePath(`/memory/${collection}`);
  if (!undone) return { ok: true, data: null };
  return {
    ok: true,
    data: {
      memoryId: undone.memoryId,
      restored: undone.memoryId === null ? (undone.cleared?.labels.length ?? 0) : undone.previous,
    },
  };
}

/**
 * Starts a fresh annotation of a study's queries: every label is cleared (the history keeps them),
 * every query needs annotation again, and the figures wait for a person's labels.
 */
export async function startFreshAnnotation(
  input: unknown,
): Promise<ActionResult<{ cleared: number; queries: number }>> {
  const allowed = await allowAction("startFreshAnnotation");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(input, "an object");
  if (bad) return bad;
  const parsed = z.object({ collection: collectionSchema }).safeParse(input);
  if (!parsed.success) return actionFailed("Invalid collection", parsed.error);
  const { collection } = parsed.data;
  const db = getDb();
  if ((await listStudyQueries(db, collection)).length === 0)
    return actionFailed(`"${collection}" has no study queries`);
  const meta = await getStudyMeta(db, collection);
  if (meta?.labelConvention === "qrels")
    return actionFailed(
      `"${collection}" holds imported qrels (${meta.origin}): import it again under another name to annotate it`,
    );
  const r = await startFreshAnnotationQuery(db, collection, allowed.actor.name);
  revalidatePath(`/memory/${collection}`);
  return { ok: true, data: r };
}

export type StartExperimentState = ActionResult<{ id: string }> | null;

export async function startExperiment(
  _prev: StartExperimentState,
  formData: FormData,
): Promise<StartExperimentState> {
  const allowed = await allowAction("startExperiment");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(formData, "form data");
  if (bad) return bad;
  const parsed = experimentFormSchema.safeParse({
    collection: formData.get("collection"),
    kind: formData.get("kind"),
    mode: formData.get("mode"),
    topK: formData.get("topK"),
    poolSize: formData.get("poolSize"),
    shuffle: formData.get("shuffle") === "on",
    model: formData.get("model") ?? undefined,
    n: formData.get("n"),
  });
  if (!parsed.success) return actionFailed("Nothing started: fix the fields below.", parsed.error);
  const db = getDb();
  const { collection, ...c } = parsed.data;
  if ((await listStudyQueries(db, collection)).length === 0)
    return actionFailed(`"${collection}" has no study queries`);
  // a BM25 run keeps its top BM25_RUN_DEPTH ranked candidates (its depth, in its label); the pool is the judge's
  const config =
    c.kind === "bm25"
      ? { ...c, model: undefined, poolSize: BM25_RUN_DEPTH, depth: BM25_RUN_DEPTH }
      : { ...c, model: c.model };
  // the judge must be callable (provider enabled, key or base URL set): refuse before anything is stored
  const settings = await readSettings(db);
  const problems = config.model ? judgeProblems([config.model], settings) : [];
  if (problems.length)
    return actionFailed(preflightError(problems, "No experiment started").message, {
      model: problems.map((p) => p.message).join("; "),
    });
  const id = await startExperimentInBackground(db, collection, config, settings, allowed.actor.name);
  revalidatePath(`/memory/${collection}`);
  return { ok: true, data: { id } };
}
