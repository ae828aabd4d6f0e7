import { allowRoute } from "@/app/guard";
import { getDb } from "@/db/client";
import { getAgreementJobLive, getExperimentLive, getReviewLive, getRunLive } from "@/db/queries/progress";

export const dynamic = "force-dynamic";

const ID = /^[A-Za-z0-9_-]{1,80}$/;

/**
 * Live progress of a run, an experiment, a review or an agreement import or report: counters, and for runs the samples finished after
 * `?cursor=<sample id>`. Pages poll it and patch what changed instead of re-rendering.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const allowed = await allowRoute("viewer");
  if ("refused" in allowed) return allowed.refused;
  const { id } = await params;
  if (!ID.test(id)) return Response.json({ error: "not a job id" }, { status: 400 });
  const cursorParam = new URL(request.url).searchParams.get("cursor") ?? "0";
  const cursor = /^\d{1,15}$/.test(cursorParam) ? Number(cursorParam) : 0;
  const db = getDb();
  const live =
    (await getRunLive(db, id, cursor)) ??
    (await getExperimentLive(db, id)) ??
    (await getReviewLive(db, id)) ??
    (await getAgreementJobLive(db, id));
  if (!live) return Response.json({ error: `no run, experiment, review or import ${id}` }, { status: 404 });
  return Response.json(live, { headers: { "cache-control": "no-store" } });
}
