import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { PanelReportView } from "@/components/panel/panel-report-view";
import { EmptyState, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { DEFAULT_MARGIN } from "@/lib/panel/engine";
import { configGuard } from "@/lib/panel/promote";
import { optimizeRun } from "@/lib/panel/run-panel";
import { readSettings } from "@/lib/settings/store";
import { runIdSchema } from "@/lib/validations/runs";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/**
 * The panel optimizer for a labelled run: per LLM criterion, every sub-panel × N from the stored
 * samples, the cost–agreement frontier, the recommendation, and promotion of a configuration as the
 * criterion's default panel and N. The whole computation is a pure function of the stored rows, under a
 * second of CPU at 8 judges × N=5 × 1,000 labelled verdicts (bench/panel-bench.ts), so it runs here.
 */
export default async function PanelPage({ params, searchParams }: Props) {
  await connection();
  const { id } = await params;
  if (!runIdSchema.safeParse(id).success) notFound();
  const raw = (await searchParams).margin;
  const m = typeof raw === "string" ? Number(raw) : Number.NaN;
  const margin = Number.isFinite(m) && m >= 0 && m <= 0.5 ? m : DEFAULT_MARGIN;
  const db = getDb();
  const settings = await readSettings(db);
  let report: Awaited<ReturnType<typeof optimizeRun>>;
  try {
    report = await optimizeRun(db, id, { prices: settings.prices, margin });
  } catch {
    notFound();
  }
  return (
    <div className="space-y-4">
      <PageTitle
        actions={
          <span className="flex flex-wrap gap-3 text-sm">
            <Link className="text-indigo-700 underline" href={`/runs/${id}`}>
              Run page
            </Link>
            <Link className="text-indigo-700 underline" href={`/agreement/${id}`}>
              Agreement
            </Link>
          </span>
        }
      >
        Panel optimizer: <span className="font-mono text-base">{id}</span>
      </PageTitle>
      <p className="-mt-3 text-xs text-zinc-600">
        Which judges, and how many samples each, agree with people as well as the full panel for less.
        Agreement is with the verdict labels people gave this run; a configuration is recommended when a
        paired one-sided test over the same labelled verdicts shows it is not worse than the full panel by
        more than the margin. <code>jury panel optimize {id} --json</code>
      </p>
      {report.skipped.map((s) => (
        <p key={s.criterionId} className="text-xs text-zinc-600">
          {s.criterionId}: not optimized: {s.why}
        </p>
      ))}
      {report.criteria.length === 0 ? (
        <EmptyState title="No criterion to optimize" testId="panel-empty">
          This run has no LLM criterion with judges to choose from.
        </EmptyState>
      ) : (
        report.criteria.map((r) => {
          const rec = r.recommendation;
          const picked = rec.status === "recommended" ? rec.config : rec.candidate;
          const ids = new Set([...r.frontier, r.full.id, ...(picked ? [picked] : [])]);
          const guards = Object.fromEntries(
            r.configs.filter((c) => ids.has(c.id)).map((c) => [c.id, configGuard(r, c)]),
          );
          return (
            <PanelReportView
              key={r.criterionId}
              r={r}
              runId={id}
              guards={guards}
              defaults={{
                judges: settings.criteriaPanels[r.criterionId],
                n: settings.criteriaSamples[r.criterionId],
              }}
            />
          );
        })
      )}
    </div>
  );
}
