import Link from "next/link";
import { PageTitle } from "@/components/ui/card";
import type { RunStatus } from "@/lib/domain";
import { cacheText, type RunCost } from "@/lib/runs/cost-summary";
import { LiveCoverageLine } from "./live-run";
import { StatusBadge } from "./status-badge";

type Props = {
  run: {
    id: string;
    suiteName: string;
    status: RunStatus;
    error: string | null;
    options: { judges: string[]; n: number; temperature: number };
    /** who started it; null: before authors were kept */
    createdBy?: string | null;
  };
  caseCount: number;
  criteriaCount: number;
  /** judges with no price when the run was planned */
  unpriced: string[];
  /** what the run's calls cost and what the prompt cache and batches saved */
  cost?: RunCost;
  /** a batched run's batches at the providers, with their state and counts */
  batches?: BatchLine[];
};

type BatchLine = {
  id: string;
  judge: string;
  status: string;
  total: number;
  succeeded: number;
  failed: number;
};

/**
 * The run's title, its export and compare links, its panel and size, what the whole run rests on
 * (from the live snapshot the progress bar counts from: one count, however far the run is), what it
 * cost and what the prompt cache and batches saved.
 */
export function RunHeader({ run, caseCount, criteriaCount, unpriced, cost, batches = [] }: Props) {
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
        {run.createdBy && <span data-testid="run-started-by"> · started by {run.createdBy}</span>}
        {run.error && <span className="ml-2 text-red-700">{run.error}</span>}
      </p>
      <p className="-mt-2 text-sm">
        Coverage: <LiveCoverageLine />
        {unpriced.length > 0 && (
          <span className="ml-2 text-xs text-zinc-600" data-testid="run-unpriced">
            cost unpriced for {unpriced.join(", ")} (no price in Settings)
          </span>
        )}
      </p>
      {cost && cost.calls > 0 && (
        <p className="-mt-2 text-sm" data-testid="run-cost">
          Cost: ${cost.cost_usd.toFixed(4)} for {cost.calls.toLocaleString("en-US")} calls
          {cacheText(cost) && <span className="text-zinc-600"> · {cacheText(cost)}</span>}
        </p>
      )}
      {batches.length > 0 && (
        <ul className="-mt-2 text-xs text-zinc-600" data-testid="run-batches">
          {batches.map((b) => (
            <li key={b.id} className="break-all">
              batch <span className="font-mono">{b.id}</span> ({b.judge}): {b.status.replace("_", " ")},{" "}
              {b.succeeded + b.failed} of {b.total} answered{b.failed > 0 ? `, ${b.failed} failed` : ""}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
