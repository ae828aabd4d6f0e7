import { Card } from "@/components/ui/card";
import { type LabelConvention, MIN_JUDGE_ANSWERED } from "@/lib/memory/study-metrics";
import { type MetricsRow, MetricsTable } from "./metrics-table";

type Props = {
  rows: MetricsRow[];
  convention: LabelConvention;
  /** the study's verdict: a best configuration, or why none is called best */
  best: { best: string | null; reason: string };
  /** which collection the hook and the skill read now, and whether it is this one */
  hookReads: { reads: string; thisOne: boolean; text: string };
};

/** Every configuration's figures, with the study's verdict and how to read them. */
export function StudyResultsCard({ rows, convention, best, hookReads }: Props) {
  return (
    <Card
      title={`Results (${rows.length} configuration${rows.length === 1 ? "" : "s"}; intervals are 95 % bootstrap over queries)`}
    >
      <p
        className={`mb-2 text-sm ${best.best ? "text-green-800" : "text-zinc-700"}`}
        data-testid="best-verdict"
      >
        {best.reason}.
      </p>
      <p className="mb-3 text-xs text-zinc-600">
        Each figure is given twice: over <strong>all</strong> queries (what the hook would inject, its
        fallbacks included) and over the queries the <strong>judge</strong> answered. A configuration is
        called best only when its judge answered at least {Math.round(MIN_JUDGE_ANSWERED * 100)} % of the
        queries it was asked and a paired sign-flip test over the same queries supports its lead.
      </p>
      <p
        className={`mb-3 rounded border px-2 py-1 text-sm ${hookReads.thisOne ? "border-indigo-200 bg-indigo-50 text-indigo-900" : "border-zinc-200 bg-zinc-50 text-zinc-800"}`}
        data-testid="hook-collection"
        data-reads={hookReads.reads}
      >
        {hookReads.text}
      </p>
      <MetricsTable rows={rows} convention={convention} />
    </Card>
  );
}
