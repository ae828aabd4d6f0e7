import Link from "next/link";
import { connection } from "next/server";
import { RunsWorkbench } from "@/components/runs/runs-workbench";
import { StatusBadge } from "@/components/runs/status-badge";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import { getDb } from "@/db/client";
import { getMedianLatencyByJudge, getProgressByRun, listRuns } from "@/db/queries/runs";
import { loadProjectCriteria } from "@/lib/criteria/load";
import { suiteSummaries } from "@/lib/runs/suite-summaries";
import { enabledJudges } from "@/lib/settings/providers";
import { readSettings } from "@/lib/settings/store";

export default async function RunsPage() {
  await connection();
  const db = getDb();
  const settings = readSettings(db);
  const runs = listRuns(db);
  const progress = getProgressByRun(db);
  return (
    <div className="space-y-4">
      <PageTitle
        actions={
          runs.length >= 2 ? (
            <Link
              href={`/runs/compare?a=${runs[1].id}&b=${runs[0].id}`}
              className="text-sm text-indigo-700 underline"
            >
              Compare the last two runs
            </Link>
          ) : undefined
        }
      >
        Runs
      </PageTitle>
      <Card>
        <RunsWorkbench
          suites={suiteSummaries(loadProjectCriteria(), {
            db,
            judges: enabledJudges(settings),
            temperature: settings.judging.temperature,
          })}
          settings={settings}
          latencyMsByJudge={getMedianLatencyByJudge(db)}
        />
      </Card>
      {runs.length === 0 ? (
        <EmptyState title="No runs yet" testId="runs-empty">
          Choose a suite, the judges and N above and start a run, or run{" "}
          <code>npx jury eval examples/suites/qa</code>.
        </EmptyState>
      ) : (
        <Card title={`${runs.length} run${runs.length === 1 ? "" : "s"}`}>
          <ScrollTable label="Runs">
            <table className="w-full text-left text-sm" data-testid="runs-table">
              <TableHead
                columns={["Run", "Suite", "Judges × N", "Status", "Tasks done", "Failed", "Cost", "Started"]}
              />
              <tbody>
                {runs.map((r) => {
                  const p = progress.get(r.id) ?? { done: 0, errors: 0, costUsd: 0 };
                  return (
                    <tr key={r.id} className="border-t border-zinc-100" data-testid={`run-row-${r.id}`}>
                      <td>
                        <Link className="font-mono text-xs text-indigo-700 underline" href={`/runs/${r.id}`}>
                          {r.id}
                        </Link>
                      </td>
                      <td>{r.suiteName}</td>
                      <td className="text-xs">
                        {r.options.judges.join(", ")} × {r.options.n}
                      </td>
                      <td>
                        <StatusBadge status={r.status} />
                      </td>
                      <td className="tabular-nums">
                        {p.done + p.errors} / {r.totalTasks}
                      </td>
                      <td className="tabular-nums">{p.errors}</td>
                      <td
                        className="tabular-nums"
                        title={
                          r.options.unpriced?.length
                            ? `no price for ${r.options.unpriced.join(", ")}`
                            : undefined
                        }
                      >
                        {r.options.unpriced?.length
                          ? p.costUsd > 0
                            ? `$${p.costUsd.toFixed(4)} + unpriced`
                            : "unpriced"
                          : `$${p.costUsd.toFixed(4)}`}
                      </td>
                      <td className="text-xs text-zinc-600">
                        {r.createdAt.toISOString().replace("T", " ").slice(0, 19)}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </ScrollTable>
        </Card>
      )}
    </div>
  );
}
