import Link from "next/link";
import { connection } from "next/server";
import { currentActor } from "@/app/guard";
import { RunsTable } from "@/components/runs/runs-table";
import { RunsWorkbench } from "@/components/runs/runs-workbench";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { getFailedJudges } from "@/db/queries/run-live";
import { getMedianLatencyByJudge, getProgressByRun, listRuns } from "@/db/queries/runs";
import { actionRoles, roleAllows } from "@/lib/auth/roles";
import { loadProjectCriteria } from "@/lib/criteria/load";
import { isLive } from "@/lib/jobs/live";
import { rememberedForm } from "@/lib/runs/form-memory";
import { suiteSummaries } from "@/lib/runs/suite-summaries";
import { defaultFormJudges } from "@/lib/settings/criteria-panels";
import { enabledJudges } from "@/lib/settings/providers";
import { readSettings } from "@/lib/settings/store";

export default async function RunsPage() {
  await connection();
  const db = getDb();
  const actor = await currentActor();
  const settings = await readSettings(db);
  const runs = await listRuns(db);
  const progress = await getProgressByRun(db);
  const suites = await suiteSummaries(loadProjectCriteria(), {
    db,
    judges: enabledJudges(settings),
    temperature: settings.judging.temperature,
  });
  const last = runs[0];
  // a run still going has not failed anyone yet
  const lastFailed =
    !last || isLive(last.status)
      ? []
      : await getFailedJudges(db, { runId: last.id, judges: last.options.judges });
  const latencyMsByJudge = await getMedianLatencyByJudge(db);
  const form = rememberedForm({
    suites: suites.filter((s) => !s.error).map((s) => s.dir),
    offered: enabledJudges(settings),
    defaults: defaultFormJudges(settings),
    last: last
      ? {
          runId: last.id,
          suiteDir: last.suitePath,
          judges: last.options.judges,
          failed: lastFailed,
        }
      : null,
  });
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
        {actor !== null && roleAllows(actor.role, actionRoles.startRun) ? (
          <RunsWorkbench
            suites={suites}
            start={form}
            settings={settings}
            latencyMsByJudge={latencyMsByJudge}
            canEditSettings={roleAllows(actor.role, actionRoles.saveSettings)}
          />
        ) : (
          <p className="text-sm text-slate-700" data-testid="start-run-refused">
            Starting a run needs an annotator or an admin
            {actor ? `; you are signed in as ${actor.name} (${actor.role})` : ""}. You can read every run
            below.
          </p>
        )}
      </Card>
      {runs.length === 0 ? (
        <EmptyState title="No runs yet" testId="runs-empty">
          Choose a suite, the judges and N above and start a run, or run{" "}
          <code>npx jury eval examples/suites/qa</code>.
        </EmptyState>
      ) : (
        <Card title={`${runs.length} run${runs.length === 1 ? "" : "s"}`}>
          <RunsTable
            rows={runs.map((r) => {
              const p = progress.get(r.id) ?? { done: 0, errors: 0, costUsd: 0 };
              return {
                id: r.id,
                suite: r.suiteName,
                judges: r.options.judges,
                n: r.options.n,
                status: r.status,
                total: r.totalTasks,
                done: p.done,
                errors: p.errors,
                costUsd: p.costUsd,
                unpriced: r.options.unpriced ?? [],
                createdAt: r.createdAt.toISOString(),
              };
            })}
          />
        </Card>
      )}
    </div>
  );
}
