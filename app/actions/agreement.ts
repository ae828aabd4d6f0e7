"use server";

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { revalidatePath } from "next/cache";
import { allowAction } from "@/app/guard";
import { getDb } from "@/db/client";
import { type ActionResult, actionFailed } from "@/lib/action-result";
import { startAgreementProcess } from "@/lib/agreement/background";
import {
  type ImportFile,
  parseJsonlImport,
  parseLlmbarImport,
  parseTrecImport,
} from "@/lib/agreement/imports";
import type { ImportSpec } from "@/lib/agreement/job-spec";
import { importJobId, newSetId } from "@/lib/agreement/jobs";
import { storeImport } from "@/lib/agreement/service";
import { uploadLimitMessage } from "@/lib/agreement/upload-limit";
import { readEnv } from "@/lib/env/registry";
import { errorMessage, isJuryError } from "@/lib/errors";
import { cancelJob, enqueueJob } from "@/lib/jobs/runner";
import { decodeUtf8 } from "@/lib/read-text";
import { wrongShape } from "@/lib/validations/form-data";
import { agreementIdSchema, importFormSchema } from "@/lib/validations/labels";

/** jobId null: imported at once (a small upload); else the job that imports it. */
export type ImportState = ActionResult<{ setId: string; jobId: string | null }> | null;

const str = (v: FormDataEntryValue | null) => (typeof v === "string" ? v : "");
const MAX_FILES = 50;
const FIX = "Nothing imported: fix the fields below.";
/** Uploads up to this size in all are imported at once; larger ones by a job in its own process. */
const INLINE_MAX_BYTES = 256 * 1024;

const filesOf = (formData: FormData, field: string) =>
  formData.getAll(field).filter((f): f is File => f instanceof File && f.size > 0);

/** Writes the uploads to a folder of their own (removed when the job ends); names kept for the report. */
async function saveUploads(dir: string, files: readonly File[], prefix: string) {
  const out: { name: string; path: string }[] = [];
  for (const [i, f] of files.entries()) {
    const p = path.join(dir, `${prefix}-${i}`);
    await fs.promises.writeFile(p, new Uint8Array(await f.arrayBuffer()));
    out.push({ name: f.name, path: p });
  }
  return out;
}

/**
 * Starts an import of judgments uploaded from the Agreement page: TREC qrels (gold + judge files),
 * LLMBar (result.json files, with or without dataset.json) or Jury's JSONL. The files are saved and
 * handed to a job in its own process (validated whole, as the CLI validates them: any problem, named
 * with its file, line and field, stores nothing); the form follows the job and opens the report.
 */
export async function importAgreement(_prev: ImportState, formData: FormData): Promise<ImportState> {
  const allowed = await allowAction("importAgreement");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(formData, "form data");
  if (bad) return bad;
  const parsed = importFormSchema.safeParse({
    format: str(formData.get("format")),
    name: str(formData.get("name")) || undefined,
    names: str(formData.get("names")),
    cut: str(formData.get("cut")),
    scale: str(formData.get("scale")),
  });
  if (!parsed.success) return actionFailed(FIX, parsed.error);
  const f = parsed.data;
  const g = filesOf(formData, "gold");
  const j = filesOf(formData, "judges");
  if (g.length > MAX_FILES || j.length > MAX_FILES)
    return actionFailed(FIX, { [g.length > MAX_FILES ? "gold" : "judges"]: `At most ${MAX_FILES} files` });
  const total = [...g, ...j].reduce((a, x) => a + x.size, 0);
  const max = readEnv("JURY_UPLOAD_MAX_BYTES");
  if (total > max) return actionFailed(uploadLimitMessage(total, max, f.format));
  if (f.format === "trec") {
    if (g.length !== 1) return actionFailed(FIX, { gold: "Choose the gold qrels file" });
    if (j.length === 0) return actionFailed(FIX, { judges: "Choose at least one judge qrels file" });
  } else if (f.format === "llmbar") {
    if (j.length === 0) return actionFailed(FIX, { judges: "Choose at least one result.json" });
    if (g.length > 1) return actionFailed(FIX, { gold: "Choose one dataset.json" });
  } else if (g.length + j.length !== 1) return actionFailed(FIX, { judges: "Choose one .jsonl file" });
  if (total <= INLINE_MAX_BYTES) return importInline(f, g, j, allowed.actor.name);
  try {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "jury-import-"));
    const gold = await saveUploads(dir, g, "gold");
    const judges = await saveUploads(dir, j, "judge");
    const setId = newSetId(f.format);
    const spec: ImportSpec = {
      setId,
      format: f.format,
      gold: f.format === "jsonl" ? null : (gold[0] ?? null),
      judges: f.format === "jsonl" ? [...gold, ...judges] : judges,
      options:
        f.format === "llmbar"
          ? { names: f.names, name: f.name }
          : { cut: f.cut, scale: f.scale, names: f.format === "trec" ? f.names : undefined, name: f.name },
      cleanup: dir,
      createdBy: allowed.actor.name,
    };
    const specFile = path.join(dir, "import.json");
    await fs.promises.writeFile(specFile, JSON.stringify(spec));
    const jobId = importJobId(setId);
    const db = getDb();
    await enqueueJob(db, { id: jobId, kind: "agreement" });
    await startAgreementProcess(db, jobId, ["import", specFile]);
    return { ok: true, data: { setId, jobId } };
  } catch (err) {
    return actionFailed(`Nothing imported: ${errorMessage(err)}`);
  }
}

/**
 * A small upload (INLINE_MAX_BYTES in all) is validated, stored and reported at once: milliseconds of
 * work, and its problems come back with the form. Anything larger goes to a job.
 */
async function importInline(
  f: ReturnType<typeof importFormSchema.parse>,
  g: readonly File[],
  j: readonly File[],
  by: string,
): Promise<ImportState> {
  const read = async (files: readonly File[], field: string) => {
    const out: ImportFile[] = [];
    for (const x of files) {
      try {
        out.push({ name: x.name, text: decodeUtf8(new Uint8Array(await x.arrayBuffer()), x.name) });
      } catch (err) {
        return { field, error: errorMessage(err) };
      }
    }
    return out;
  };
  const gold = await read(g, "gold");
  if (!Array.isArray(gold)) return actionFailed(FIX, { [gold.field]: gold.error });
  const judges = await read(j, "judges");
  if (!Array.isArray(judges)) return actionFailed(FIX, { [judges.field]: judges.error });
  try {
    const p =
      f.format === "trec"
        ? parseTrecImport(gold[0], judges, { cut: f.cut, scale: f.scale, names: f.names, name: f.name })
        : f.format === "llmbar"
          ? parseLlmbarImport(gold[0] ?? null, judges, { names: f.names, name: f.name })
          : parseJsonlImport([...gold, ...judges][0], { scale: f.scale, cut: f.cut, name: f.name });
    const { setId } = await storeImport(getDb(), p, undefined, by);
    revalidatePath("/agreement");
    return { ok: true, data: { setId, jobId: null } };
  } catch (err) {
    if (isJuryError(err) && err.code === "invalid:import") return actionFailed(errorMessage(err));
    return actionFailed(`Nothing imported: ${errorMessage(err)}`);
  }
}

/** Asks an import or report job to stop (nothing of an import is stored). */
export async function cancelAgreementJob(jobId: string): Promise<ActionResult<null>> {
  const allowed = await allowAction("cancelAgreementJob");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(jobId, "a string");
  if (bad) return bad;
  if (!agreementIdSchema.safeParse(jobId).success) return actionFailed("Not a job id");
  await cancelJob(getDb(), jobId);
  revalidatePath("/agreement");
  return { ok: true, data: null };
}
