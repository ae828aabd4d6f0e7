import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { type PanelDefaults, RunAgreementView } from "@/components/agreement/run-agreement-view";
import { SetReportView } from "@/components/agreement/set-report";
import { PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { getRunById } from "@/db/queries/runs";
import { showRunAgreement, showSet } from "@/lib/agreement/service";
import { readSettings } from "@/lib/settings/store";
import { agreementIdSchema } from "@/lib/validations/labels";

type Props = { params: Promise<{ id: string }> };

/** One import's or audit's figures, or one run's judges against its labels. */
export default async function AgreementDetailPage({ params }: Props) {
  await connection();
  const { id } = await params;
  if (!agreementIdSchema.safeParse(id).success) notFound();
  const db = getDb();
  const set = showSet(db, id);
  if (set) {
    const files = Array.isArray(set.set.options.files)
      ? (set.set.options.files as { role: string; name: string }[])
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
          {set.set.name}
        </PageTitle>
        <p className="-mt-3 text-xs text-zinc-500" data-testid="set-summary">
          <span className="font-mono">{set.set.id}</span> · {set.set.kind} · {set.items} items,{" "}
          {set.goldItems} with a gold label · {set.judges.length} judge{set.judges.length === 1 ? "" : "s"}
          {files.length > 0 && <> · from {files.map((f) => `${f.role} ${f.name}`).join(", ")}</>} ·{" "}
          <code>jury agreement show {set.set.id} --json</code>
        </p>
        <SetReportView r={set} />
      </div>
    );
  }
  const run = showRunAgreement(db, id);
  if (!run) notFound();
  const settings = readSettings(db);
  const options = getRunById(db, { id })?.options;
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
        <code>jury agreement show {id} --json</code>
      </p>
      <RunAgreementView r={run} defaults={defaults} />
    </div>
  );
}
