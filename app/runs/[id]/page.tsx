import { notFound } from "next/navigation";
import { connection } from "next/server";
import { judgeColors } from "@/components/charts/colors";
import { CellDetail } from "@/components/runs/cell-detail";
import { FailuresCard } from "@/components/runs/failures-card";
import { LiveProgress } from "@/components/runs/live-progress";
import { LiveRun } from "@/components/runs/live-run";
import { PanelStatsTable } from "@/components/runs/panel-stats-table";
import { RunHeader } from "@/components/runs/run-header";
import { ScoreSpreadsCard } from "@/components/runs/score-spreads-card";
import { VerdictsCard } from "@/components/runs/verdicts-card";
import { Card } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { loadRunPage } from "@/lib/runs/run-page";
import { runIdSchema } from "@/lib/validations/runs";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/**
 * A run: what it rests on, its live progress, its failures, one page of its verdict table (filtered
 * and sorted as the URL says), the selected cell, each judge's score spread per criterion over the
 * run's cases, and the panel's agreement. The figures of the
 * whole run come from SQL aggregates; rows are read only for the page's cases (lib/runs/run-page.ts).
 */
export default async function RunPage({ params, searchParams }: Props) {
  await connection();
  const { id } = await params;
  if (!runIdSchema.safeParse(id).success) notFound();
  const data = await loadRunPage(getDb(), id, await searchParams);
  if (!data) notFound();
  const { run, coverage, unpriced, live } = data;
  // one colour per judge for every chart of the page (the rule is in components/charts/colors.ts)
  const colors = judgeColors([
    ...run.options.judges,
    ...data.spreads.flatMap((s) => s.judges.map((j) => j.judge)),
  ]);

  return (
    <LiveRun runId={run.id} initial={data.progress}>
      <div className="space-y-4">
        <RunHeader
          run={run}
          caseCount={data.caseCount}
          criteriaCount={data.criteria.length}
          unpriced={unpriced}
          cost={data.cost}
          batches={data.batches}
        />
        <Card>
          <LiveProgress
            runId={run.id}
            unpriced={unpriced.length > 0}
            free={run.options.judges.every((j) => j.startsWith("mock:"))}
            n={run.options.n}
          />
        </Card>
        <FailuresCard runId={run.id} failures={data.failures} coverage={coverage} live={live} />
        <VerdictsCard
          runId={run.id}
          live={live}
          triage={data.triage}
          criteria={data.criteria}
          selected={data.selected}
        />
        <ScoreSpreadsCard spreads={data.spreads} colors={colors} caseCount={data.caseCount} />
        {data.cell && (
          <CellDetail runId={run.id} cell={data.cell} live={live} unpriced={unpriced} colors={colors} />
        )}
        <Card title="Panel agreement (over this run's cases)">
          <PanelStatsTable stats={data.panel} colors={colors} />
        </Card>
      </div>
    </LiveRun>
  );
}
