import { allowRoute } from "@/app/guard";
import { getDb } from "@/db/client";
import {
  exportVerdictLabels,
  type LabelExportFormat,
  labelExportFormats,
} from "@/lib/agreement/labels-export";
import { downloadResponse } from "@/lib/download";
import { isJuryError } from "@/lib/errors";
import { runIdSchema } from "@/lib/validations/runs";

export const dynamic = "force-dynamic";

/** A run's verdict labels with who gave each: `?format=csv` (default) or `?format=json` (lib/agreement/labels-export.ts). */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const allowed = await allowRoute("viewer");
  if ("refused" in allowed) return allowed.refused;
  const { id } = await params;
  if (!runIdSchema.safeParse(id).success) return Response.json({ error: "not a run id" }, { status: 400 });
  const format = new URL(request.url).searchParams.get("format") ?? "csv";
  if (!(labelExportFormats as readonly string[]).includes(format))
    return Response.json({ error: `format must be csv or json, got "${format}"` }, { status: 400 });
  try {
    return downloadResponse(await exportVerdictLabels(getDb(), id, format as LabelExportFormat));
  } catch (err) {
    if (isJuryError(err) && err.code === "not_found:run")
      return Response.json({ error: err.message }, { status: 404 });
    throw err;
  }
}
