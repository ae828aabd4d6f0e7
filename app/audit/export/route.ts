import { allowRoute } from "@/app/guard";
import { getDb } from "@/db/client";
import { AUDIT_FORMATS, type AuditFormat, exportAudit } from "@/lib/audit/export";
import { downloadResponse } from "@/lib/download";

export const dynamic = "force-dynamic";

/** The audit log as a download (admins only): `?format=csv` (default) or `?format=jsonl`, newest first. */
export async function GET(request: Request) {
  const allowed = await allowRoute("admin");
  if ("refused" in allowed) return allowed.refused;
  const format = new URL(request.url).searchParams.get("format") ?? "csv";
  if (!(AUDIT_FORMATS as readonly string[]).includes(format))
    return Response.json({ error: `format: must be csv or jsonl, got "${format}"` }, { status: 400 });
  return downloadResponse(await exportAudit(getDb(), format as AuditFormat));
}
