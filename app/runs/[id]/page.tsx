import { notFound } from "next/navigation";
import { connection } from "next/server";
import { CellDetail } from "@/components/runs/cell-detail";
import { FailuresCard } from "@/components/runs/failures-card";
import { LiveProgress } from "@/components/runs/live-progress";
import { PanelStatsTable } from "@/components/runs/panel-stats-table";
import { RunHeader } from "@/components/runs/run-header";
import { VerdictsCard } from "@/components/runs/verdicts-card";
import { Card } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { isLive } from "@/lib/jobs/live";
import { loadRunPage } from "@/lib/runs/run-page";
import { runIdSchema } from "@/lib/validations/runs";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/**
 * A run: what it rests on, its live progress, its failures, one page of its verdict table (filtered
 * and sorted as the URL says), the selected cell, and the panel's agreement. The figures of the
 * whole run come from SQL aggregates; rows are read only for the page's cases (lib/runs/run-page.ts).
 */
export default async function RunPage({ params, searchParams }: Props) {
  await connection();
  const { id } = await params;
  if (!runIdSchema.safeParse(id).success) notFound();
  const data = loadRunPage(getDb(), id, await searchParams);
  if (!data) notFound();
  const { run, coverage, unpriced } = data;
  const live = isLive(run.status);

  return (
    <div className="space-y-4">
      <RunHeader
        run={run}
        caseCount={data.caseCount}
        criteriaCount={data.criteria.length}
        coverage={coverage}
        unpriced={unpriced}
        cost={data.cost}
      />
      <Card>
        <LiveProgress runId={run.id} initial={data.progress} unpriced={unpriced.length > 0} />
      </Card>
      <FailuresCard runId={run.id} failures={data.failures} coverage={coverage} live={live} />
      <VerdictsCard
        runId={run.id}
        caseCount={data.caseCount}
        criteriaCount={data.criteria.length}
        triage={data.triage}
        criteria={data.criteria}
        selected={data.selected}
      />
      {data.cell && <CellDetail runId={run.id} cell={data.cell} live={live} unpriced={unpriced} />}
      <Card title="Panel agreement (over this run's cases)">
        <PanelStatsTable stats={data.panel} />
      </Card>
    </div>
  );
}
