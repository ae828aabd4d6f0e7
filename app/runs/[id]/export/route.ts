import { allowRoute } from "@/app/guard";
import { getDb } from "@/db/client";
import { downloadResponse } from "@/lib/download";
import { isJuryError } from "@/lib/errors";
import { type ExportFormat, exportFormats, exportRun } from "@/lib/runs/export";
import { runIdSchema } from "@/lib/validations/runs";

export const dynamic = "force-dynamic";

/**
 * A run's samples and verdicts as a download: `?format=csv` (default) or `?format=json`, the same
 * bytes `jury runs export <id> --format …` prints (lib/runs/export.ts).
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const allowed = await allowRoute("viewer");
  if ("refused" in allowed) return allowed.refused;
  const { id } = await params;
  if (!runIdSchema.safeParse(id).success) return Response.json({ error: "not a run id" }, { status: 400 });
  const format = new URL(request.url).searchParams.get("format") ?? "csv";
  if (!(exportFormats as readonly string[]).includes(format))
    return Response.json({ error: `format must be csv or json, got "${format}"` }, { status: 400 });
  try {
    const out = await exportRun(getDb(), id, format as ExportFormat);
    return downloadResponse(out);
  } catch (err) {
    if (isJuryError(err) && err.code === "not_found:run")
      return Response.json({ error: err.message }, { status: 404 });
    throw err;
  }
}
