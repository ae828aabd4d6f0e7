"use server";

import { revalidatePath } from "next/cache";
import { getDb } from "@/db/client";
import { type ActionResult, actionFailed } from "@/lib/action-result";
import {
  type ImportFile,
  parseJsonlImport,
  parseLlmbarImport,
  parseTrecImport,
} from "@/lib/agreement/imports";
import { storeImport } from "@/lib/agreement/service";
import { errorMessage, isJuryError } from "@/lib/errors";
import { decodeUtf8, maxFileBytes } from "@/lib/read-text";
import { wrongShape } from "@/lib/validations/form-data";
import { importFormSchema } from "@/lib/validations/labels";

export type ImportState = ActionResult<{ setId: string }> | null;

const str = (v: FormDataEntryValue | null) => (typeof v === "string" ? v : "");
const MAX_FILES = 50;

/** The uploaded files of one field, read as UTF-8 within the size limit; a problem names the field. */
async function filesOf(
  formData: FormData,
  field: string,
): Promise<{ files: ImportFile[] } | { error: string }> {
  const entries = formData.getAll(field).filter((f): f is File => f instanceof File && f.size > 0);
  if (entries.length > MAX_FILES) return { error: `At most ${MAX_FILES} files` };
  const max = maxFileBytes();
  const files: ImportFile[] = [];
  for (const f of entries) {
    if (f.size > max)
      return {
        error: `${f.name} is ${f.size.toLocaleString("en-US")} bytes, over the ${max.toLocaleString("en-US")}-byte limit`,
      };
    try {
      files.push({ name: f.name, text: decodeUtf8(new Uint8Array(await f.arrayBuffer()), f.name) });
    } catch (err) {
      return { error: errorMessage(err) };
    }
  }
  return { files };
}

/**
 * Imports judgments uploaded from the Agreement page: TREC qrels (gold + judge files), LLMBar
 * (result.json files, with or without dataset.json) or Jury's JSONL. Validated whole, as the CLI
 * validates them: any problem (named with its file, line and field) stores nothing.
 */
export async function importAgreement(_prev: ImportState, formData: FormData): Promise<ImportState> {
  const bad = wrongShape(formData, "form data");
  if (bad) return bad;
  const parsed = importFormSchema.safeParse({
    format: str(formData.get("format")),
    name: str(formData.get("name")) || undefined,
    names: str(formData.get("names")),
    cut: str(formData.get("cut")),
    scale: str(formData.get("scale")),
  });
  if (!parsed.success) return actionFailed("Nothing imported: fix the fields below.", parsed.error);
  const f = parsed.data;
  const gold = await filesOf(formData, "gold");
  const judges = await filesOf(formData, "judges");
  for (const [field, r] of [
    ["gold", gold],
    ["judges", judges],
  ] as const)
    if ("error" in r) return actionFailed("Nothing imported: fix the fields below.", { [field]: r.error });
  const g = (gold as { files: ImportFile[] }).files;
  const j = (judges as { files: ImportFile[] }).files;
  try {
    let p: ReturnType<typeof parseTrecImport>;
    if (f.format === "trec") {
      if (g.length !== 1)
        return actionFailed("Nothing imported: fix the fields below.", {
          gold: "Choose the gold qrels file",
        });
      if (j.length === 0)
        return actionFailed("Nothing imported: fix the fields below.", {
          judges: "Choose at least one judge qrels file",
        });
      p = parseTrecImport(g[0], j, { cut: f.cut, scale: f.scale, names: f.names, name: f.name });
    } else if (f.format === "llmbar") {
      if (j.length === 0)
        return actionFailed("Nothing imported: fix the fields below.", {
          judges: "Choose at least one result.json",
        });
      if (g.length > 1)
        return actionFailed("Nothing imported: fix the fields below.", { gold: "Choose one dataset.json" });
      p = parseLlmbarImport(g[0] ?? null, j, { names: f.names, name: f.name });
    } else {
      const all = [...g, ...j];
      if (all.length !== 1)
        return actionFailed("Nothing imported: fix the fields below.", { judges: "Choose one .jsonl file" });
      p = parseJsonlImport(all[0], { scale: f.scale, cut: f.cut, name: f.name });
    }
    const { setId } = storeImport(getDb(), p);
    revalidatePath("/agreement");
    return { ok: true, data: { setId } };
  } catch (err) {
    if (isJuryError(err) && err.code === "invalid:import") return actionFailed(errorMessage(err));
    return actionFailed(`Nothing imported: ${errorMessage(err)}`);
  }
}
