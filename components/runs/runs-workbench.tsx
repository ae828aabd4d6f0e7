"use client";

import { useState } from "react";
import { SettingsModal } from "@/components/settings/settings-modal";
import type { SuiteSummary } from "@/lib/runs/estimate";
import type { FormStart } from "@/lib/runs/form-memory";
import { enabledJudges } from "@/lib/settings/providers";
import type { Settings } from "@/lib/settings/schema";
import { EstimateTable } from "./estimate-table";
import { StartRunForm } from "./start-run-form";

type Props = {
  suites: SuiteSummary[];
  /** what the form starts with: the last run's suite and judges, less those that failed it */
  start: FormStart;
  settings: Settings;
  latencyMsByJudge: Record<string, number>;
  /** whether the actor may save settings (an admin): the Judge settings button shows only then */
  canEditSettings: boolean;
};

/**
 * Start a run: the Judge settings modal (its estimate follows the suite picked) and the form, or
 * where to put suites when there are none.
 */
export function RunsWorkbench({ suites, start, settings, latencyMsByJudge, canEditSettings }: Props) {
  const [suiteDir, setSuiteDir] = useState(start.suiteDir);
  const suite = suites.find((s) => s.dir === suiteDir);
  return (
    <div className="space-y-3">
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-semibold">Start a run</h2>
        {canEditSettings && (
          <SettingsModal
            initial={settings}
            renderEstimate={(draft) => (
              <EstimateTable
                suite={suite}
                judges={enabledJudges(draft)}
                n={draft.judging.samples}
                prices={draft.prices}
                concurrency={draft.judging.concurrency}
                latencyMsByJudge={latencyMsByJudge}
                temperature={draft.judging.temperature}
              />
            )}
          />
        )}
      </div>
      {suites.length === 0 ? (
        <p className="text-sm text-zinc-600">
          No suites found. Put suite folders (suite.json + cases/) under <code>examples/suites</code> or set{" "}
          <code>JURY_SUITES_DIR</code>.
        </p>
      ) : (
        <StartRunForm
          suites={suites}
          suiteDir={suiteDir}
          onSuiteDir={setSuiteDir}
          start={start}
          settings={settings}
          latencyMsByJudge={latencyMsByJudge}
        />
      )}
    </div>
  );
}
