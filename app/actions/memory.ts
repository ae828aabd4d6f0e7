"use server";

import path from "node:path";
import { revalidatePath } from "next/cache";
import { getDb } from "@/db/client";
import { getMemories } from "@/db/queries/memories";
import { listStudyQueries, setAnnotations } from "@/db/queries/study";
import { type ActionResult, actionFailed } from "@/lib/action-result";
import { errorMessage } from "@/lib/errors";
import { startExperimentInBackground } from "@/lib/memory/background";
import { importStudyFolder } from "@/lib/memory/import";
import { readSettings } from "@/lib/settings/store";
import { wrongShape } from "@/lib/validations/form-data";
import { annotateSchema, experimentFormSchema } from "@/lib/validations/memory";

export async function importExampleStudy(): Promise<ActionResult<{ collection: string }>> {
  try {
    importStudyFolder(getDb(), path.join(process.cwd(), "examples", "memory-study"), "shop-api");
    revalidatePath("/memory");
    return { ok: true, data: { collection: "shop-api" } };
  } catch (err) {
    return actionFailed(errorMessage(err));
  }
}

export async function annotate(input: unknown): Promise<ActionResult<null>> {
  const bad = wrongShape(input, "an object");
  if (bad) return bad;
  const parsed = annotateSchema.safeParse(input);
  if (!parsed.success) return actionFailed("Invalid annotation", parsed.error);
  const { collection, queryId, memoryId, relevant } = parsed.data;
  const db = getDb();
  if (!listStudyQueries(db, collection).some((q) => q.queryId === queryId)) {
    return actionFailed(`No query "${queryId}" in ${collection}`);
  }
  if (getMemories(db, collection, [memoryId]).length === 0) {
    return actionFailed(`No memory "${memoryId}" in ${collection}`);
  }
  setAnnotations(db, collection, [{ queryId, memoryId, relevance: relevant ? 1 : 0, source: "human" }]);
  revalidatePath(`/memory/${collection}`);
  return { ok: true, data: null };
}

export type StartExperimentState = ActionResult<{ id: string }> | null;

export async function startExperiment(
  _prev: StartExperimentState,
  formData: FormData,
): Promise<StartExperimentState> {
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
  if (listStudyQueries(db, collection).length === 0)
    return actionFailed(`"${collection}" has no study queries`);
  const id = startExperimentInBackground(
    db,
    collection,
    { ...c, model: c.kind === "bm25" ? undefined : c.model },
    readSettings(db),
  );
  revalidatePath(`/memory/${collection}`);
  return { ok: true, data: { id } };
}
