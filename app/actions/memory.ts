"use server";

import path from "node:path";
import { revalidatePath } from "next/cache";
import { getDb } from "@/db/client";
import { getMemories } from "@/db/queries/memories";
import { listStudyQueries, setAnnotations } from "@/db/queries/study";
import type { ActionResult } from "@/lib/action-result";
import { errorMessage } from "@/lib/errors";
import { startExperimentInBackground } from "@/lib/memory/background";
import { importStudyFolder } from "@/lib/memory/import";
import { fieldErrorsOf } from "@/lib/settings/schema";
import { readSettings } from "@/lib/settings/store";
import { annotateSchema, experimentFormSchema } from "@/lib/validations/memory";

export async function importExampleStudy(): Promise<ActionResult<{ collection: string }>> {
  try {
    importStudyFolder(getDb(), path.join(process.cwd(), "examples", "memory-study"), "shop-api");
    revalidatePath("/memory");
    return { ok: true, data: { collection: "shop-api" } };
  } catch (err) {
    return { ok: false, error: errorMessage(err), fieldErrors: {} };
  }
}

export async function annotate(input: unknown): Promise<ActionResult<null>> {
  const parsed = annotateSchema.safeParse(input);
  if (!parsed.success)
    return { ok: false, error: "Invalid annotation", fieldErrors: fieldErrorsOf(parsed.error) };
  const { collection, queryId, memoryId, relevant } = parsed.data;
  const db = getDb();
  if (!listStudyQueries(db, collection).some((q) => q.queryId === queryId)) {
    return { ok: false, error: `No query "${queryId}" in ${collection}`, fieldErrors: {} };
  }
  if (getMemories(db, collection, [memoryId]).length === 0) {
    return { ok: false, error: `No memory "${memoryId}" in ${collection}`, fieldErrors: {} };
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
  if (!parsed.success)
    return {
      ok: false,
      error: "Nothing started: fix the fields below.",
      fieldErrors: fieldErrorsOf(parsed.error),
    };
  const db = getDb();
  const { collection, ...c } = parsed.data;
  if (listStudyQueries(db, collection).length === 0)
    return { ok: false, error: `"${collection}" has no study queries`, fieldErrors: {} };
  const id = startExperimentInBackground(
    db,
    collection,
    { ...c, model: c.kind === "bm25" ? undefined : c.model },
    readSettings(db),
  );
  revalidatePath(`/memory/${collection}`);
  return { ok: true, data: { id } };
}
