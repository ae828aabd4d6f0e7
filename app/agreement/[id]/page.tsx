import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { AgreementJobProgress } from "@/components/agreement/job-progress";
import { PeopleAgreementCard } from "@/components/agreement/people-card";
import { type PanelDefaults, RunAgreementView } from "@/components/agreement/run-agreement-view";
import { SetReportView } from "@/components/agreement/set-report";
import { Card, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { getAgreementSet } from "@/db/queries/agreement";
import { getRunById } from "@/db/queries/runs";
import { storedReport } from "@/lib/agreement/jobs";
import { runPeopleAgreement } from "@/lib/agreement/people-reading";
import { ensureReportJob } from "@/lib/agreement/report-job";
import { showRunAgreement } from "@/lib/agreement/service";
import { readSettings } from "@/lib/settings/store";
import { agreementIdSchema } from "@/lib/validations/labels";

type Props = { params: Promise<{ id: string }> };

/** One import's or audit's figures, or one run's judges against its labels. */
export default async function AgreementDetailPage({ params }: Props) {
  await connection();
  const { id } = await params;
  if (!agreementIdSchema.safeParse(id).success) notFound();
  const db = getDb();
  const setRow = await getAgreementSet(db, id);
  if (setRow) {
    const stored = await storedReport(db, id);
    const set = stored?.kind === "set" ? stored.report : undefined;
    const files = Array.isArray(setRow.options.files)
      ? (setRow.options.files as { role: string; name: string }[])
      : [];
    return (
      <div className="space-y-4">
        <PageTitle
          actions={
            <Link className="text-sm text-indigo-700 underline" href="/agreement">
              All agreement
            </Link>
          }
        >
          <span className="break-words">{setRow.name}</span>
        </PageTitle>
        <div className="-mt-3 text-xs text-zinc-500" data-testid="set-summary">
          <p className="break-words">
            <span className="font-mono">{setRow.id}</span> · {setRow.kind}
            {setRow.createdBy && (
              <span data-testid="set-imported-by">
                {" "}
                · {setRow.kind === "pairwise" ? "run" : "imported"} by {setRow.createdBy}
              </span>
            )}
            {set && (
              <>
                {" "}
                · {set.items} items, {set.goldItems} with a gold label · {set.judges.length} judge
                {set.judges.length === 1 ? "" : "s"}
              </>
            )}{" "}
            · <code className="break-all">jury agreement show {setRow.id} --json</code>
          </p>
          {files.length > 0 && (
            <details data-testid="set-files">
              <summary className="cursor-pointer">
                From {files.length} file{files.length === 1 ? "" : "s"}
              </summary>
              <ul className="mt-1 space-y-0.5 break-all font-mono">
                {files.map((f) => (
                  <li key={`${f.role} ${f.name}`}>
                    {f.role} {f.name}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </div>
        {set ? (
          <SetReportView r={set} />
        ) : (
          <Card title="Computing the report">
            <AgreementJobProgress jobId={await ensureReportJob(db, id)} what="Computing the report" />
          </Card>
        )}
      </div>
    );
  }
  const run = await showRunAgreement(db, id);
  if (!run) notFound();
  const settings = await readSettings(db);
  const people = await runPeopleAgreement(db, id);
  const options = (await getRunById(db, { id }))?.options;
  const criterionJudges = (options as { criterionJudges?: Record<string, string[]> } | undefined)
    ?.criterionJudges;
  const defaults: PanelDefaults = {
    panels: Object.fromEntries(
      run.criteria.map((c) => [c.criterionId, criterionJudges?.[c.criterionId] ?? options?.judges ?? []]),
    ),
    criteriaPanels: settings.criteriaPanels,
    reviewJudges: settings.reviewJudges,
  };
  return (
    <div className="space-y-4">
      <PageTitle
        actions={
          <span className="flex flex-wrap gap-3 text-sm">
            <Link className="text-indigo-700 underline" href={`/runs/${id}`}>
              Run page
            </Link>
            <Link className="text-indigo-700 underline" href={`/runs/${id}/panel`} data-testid="panel-link">
              Panel optimizer
            </Link>
          </span>
        }
      >
        Agreement with people: <span className="font-mono text-base">{id}</span>
      </PageTitle>
      <p className="-mt-3 text-xs text-zinc-500" data-testid="run-summary">
        {run.labelled} of {run.cells} case × criterion cells labelled by a person ·{" "}
        <code>jury agreement show {id} --json</code> · labels with their authors:{" "}
        <a className="text-indigo-700 underline" href={`/agreement/${id}/labels?format=csv`} download>
          CSV
        </a>{" "}
        <a className="text-indigo-700 underline" href={`/agreement/${id}/labels?format=json`} download>
          JSON
        </a>
      </p>
      <RunAgreementView r={run} defaults={defaults} />
      <PeopleAgreementCard r={people} what="this run's verdicts (case × criterion)" />
    </div>
  );
}
