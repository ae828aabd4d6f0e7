/**
 * The dashboard's side of a stored report: when an import or a run has no current report, its page
 * starts the report job in its own process (never computing on the request thread) and shows the
 * job's progress until the report is stored.
 */
import type { Db } from "@/db/client";
import { getJob, requeueJob } from "@/db/queries/jobs";
import { startAgreementProcess } from "./background";
import { reportJobId } from "./jobs";

/** Starts the report job of `id` unless it is already queued or running; returns the job id. */
export async function ensureReportJob(db: Db, id: string): Promise<string> {
  const jobId = reportJobId(id);
  const job = await getJob(db, { id: jobId });
  if (job?.status === "queued" || job?.status === "running") return jobId;
  await requeueJob(db, { id: jobId, kind: "agreement" });
  await startAgreementProcess(db, jobId, ["report", id]);
  return jobId;
}
