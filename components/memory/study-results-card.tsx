import { Card } from "@/components/ui/card";
import { type LabelConvention, MIN_JUDGE_ANSWERED } from "@/lib/memory/study-metrics";
import { type MetricsRow, MetricsTable } from "./metrics-table";

type Props = {
  rows: MetricsRow[];
  convention: LabelConvention;
  /** the study's verdict: a best configuration, or why none is called best */
  best: { best: string | null; reason: string };
};

/** Every configuration's figures, with the study's verdict and how to read them. */
export function StudyResultsCard({ rows, convention, best }: Props) {
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
      <MetricsTable rows={rows} convention={convention} />
    </Card>
  );
}
