import { Card } from "@/components/ui/card";
import type { FailureGroup, RunCoverage } from "@/lib/runs/coverage";
import { FailuresTable } from "./failures-table";
import { RetryFailedButton } from "./requeue-buttons";

type Props = { runId: string; failures: FailureGroup[]; coverage: RunCoverage; live: boolean };

/** The run's failed samples by judge and error, with the retry button (nothing when none failed). */
export function FailuresCard({ runId, failures, coverage, live }: Props) {
  if (failures.length === 0) return null;
  return (
    <Card
      title={`Failed samples: ${coverage.samples_failed} of ${coverage.samples_asked}, by judge and error (counted apart from every score)`}
    >
      <div className="mb-2 flex flex-wrap items-center gap-3 text-xs text-zinc-600">
        <RetryFailedButton runId={runId} failed={coverage.samples_failed} disabled={live} />
        <span>
          {live
            ? "Wait for the run to stop to retry."
            : "Each failed sample is kept, marked retried, and its call made again through the run."}
        </span>
      </div>
      <FailuresTable failures={failures} runId={runId} />
    </Card>
  );
}
