import Link from "next/link";
import { PageTitle } from "@/components/ui/card";
import type { RunStatus } from "@/lib/domain";
import type { RunCoverage } from "@/lib/runs/coverage";
import { CoverageLine } from "./coverage-line";
import { StatusBadge } from "./status-badge";

type Props = {
  run: {
    id: string;
    suiteName: string;
    status: RunStatus;
    error: string | null;
    options: { judges: string[]; n: number; temperature: number };
  };
  caseCount: number;
  criteriaCount: number;
  coverage: RunCoverage;
  /** judges with no price when the run was planned */
  unpriced: string[];
};

/** The run's title, its export and compare links, its panel and size, and what the whole run rests on. */
export function RunHeader({ run, caseCount, criteriaCount, coverage, unpriced }: Props) {
  return (
    <>
      <PageTitle
        actions={
          <div className="flex flex-wrap items-center gap-3 text-sm">
            <span className="text-zinc-700">
              Export samples:{" "}
              <a
                href={`/runs/${run.id}/export?format=csv`}
                className="text-indigo-700 underline"
                data-testid="export-csv"
                download
              >
                CSV
              </a>{" "}
              ·{" "}
              <a
                href={`/runs/${run.id}/export?format=json`}
                className="text-indigo-700 underline"
                data-testid="export-json"
                download
              >
                JSON
              </a>
            </span>
            <Link href={`/runs/compare?b=${run.id}`} className="text-indigo-700 underline">
              Compare with another run
            </Link>
            <Link
              href={`/runs/${run.id}/panel`}
              className="text-indigo-700 underline"
              data-testid="panel-link"
            >
              Panel optimizer
            </Link>
          </div>
        }
      >
        {run.suiteName} <StatusBadge status={run.status} />
      </PageTitle>
      <p className="-mt-3 text-xs text-zinc-600">
        <span className="font-mono">{run.id}</span> · judges {run.options.judges.join(", ")} · N ={" "}
        {run.options.n} · temperature {run.options.temperature} · {caseCount} cases × {criteriaCount} criteria
        {run.error && <span className="ml-2 text-red-700">{run.error}</span>}
      </p>
      <p className="-mt-2 text-sm">
        Coverage: <CoverageLine coverage={coverage} testId="run-coverage" />
        {unpriced.length > 0 && (
          <span className="ml-2 text-xs text-zinc-600" data-testid="run-unpriced">
            cost unpriced for {unpriced.join(", ")} (no price in Settings)
          </span>
        )}
      </p>
    </>
  );
}
