import { allowRoute } from "@/app/guard";
import { getDb } from "@/db/client";
import { downloadResponse } from "@/lib/download";
import { isJuryError } from "@/lib/errors";
import { exportStudy, labelFormats, metricFormats, type StudyExport } from "@/lib/memory/study-export";
import { readSettings } from "@/lib/settings/store";
import { collectionSchema } from "@/lib/validations/memory";

export const dynamic = "force-dynamic";

const bad = (error: string) => Response.json({ error }, { status: 400 });

/**
 * A study's labels or metrics as a download, the same bytes `jury memory export-labels` and
 * `jury memory export-metrics` print (lib/memory/study-export.ts):
 * `?what=labels` (CSV), `?what=labels&format=qrels` or `?what=qrels` (TREC qrels),
 * `?what=metrics` (CSV) or `?what=metrics&format=json`.
 */
export async function GET(request: Request, { params }: { params: Promise<{ collection: string }> }) {
  const allowed = await allowRoute("viewer");
  if ("refused" in allowed) return allowed.refused;
  const raw = (await params).collection;
  let collection = raw;
  try {
    collection = decodeURIComponent(raw);
  } catch {}
  if (!collectionSchema.safeParse(collection).success)
    return Response.json({ error: `No collection "${collection}"` }, { status: 404 });
  const sp = new URL(request.url).searchParams;
  const what = sp.get("what") ?? "labels";
  const format = sp.get("format");
  let spec: StudyExport;
  if (what === "qrels") {
    if (format !== null && format !== "qrels")
      return bad(`format: what=qrels takes no other format, got "${format}"`);
    spec = { what: "labels", format: "qrels" };
  } else if (what === "labels") {
    const f = format ?? "csv";
    if (!(labelFormats as readonly string[]).includes(f))
      return bad(`format: labels are csv or qrels, got "${f}"`);
    spec = { what: "labels", format: f as (typeof labelFormats)[number] };
  } else if (what === "metrics") {
    const f = format ?? "csv";
    if (!(metricFormats as readonly string[]).includes(f))
      return bad(`format: metrics are csv or json, got "${f}"`);
    spec = { what: "metrics", format: f as (typeof metricFormats)[number] };
  } else return bad(`what: must be labels, metrics or qrels, got "${what}"`);
  try {
    const db = getDb();
    const out = await exportStudy(db, collection, spec, (await readSettings(db)).prices);
    return downloadResponse(out);
  } catch (err) {
    if (isJuryError(err) && err.code === "not_found:collection")
      return Response.json({ error: err.message }, { status: 404 });
    throw err;
  }
}
