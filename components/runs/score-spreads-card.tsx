import type { JudgeColorMap } from "@/components/charts/colors";
import { ScoreSpreadChart } from "@/components/charts/score-spread-chart";
import { Card } from "@/components/ui/card";
import type { CriterionSpread } from "@/lib/runs/score-spreads";

/**
 * The run-level picture of how each judge scores each criterion: one chart per LLM criterion, each
 * judge's per-case scores over the run's cases beside the panel's, every judge in its own colour.
 */
export function ScoreSpreadsCard({
  spreads,
  colors,
  caseCount,
}: {
  spreads: CriterionSpread[];
  colors: JudgeColorMap;
  caseCount: number;
}) {
  if (spreads.length === 0) return null;
  return (
    <Card
      title={`How each judge scores each criterion (over this run's ${caseCount} case${caseCount === 1 ? "" : "s"})`}
    >
      <p className="mb-2 text-xs text-zinc-700">
        Each dot is one case: a judge's mean over its answered samples of that case (the panel's: the mean of
        the judges that answered it, the verdict's score). Boxes span the middle half, the thick line is the
        median, whiskers reach the lowest and highest case; the dashed red line is the threshold. Failed
        samples are not scored.
      </p>
      <div className="grid gap-4 md:grid-cols-2" data-testid="score-spreads">
        {spreads.map((s) => (
          <ScoreSpreadChart key={s.criterionId} spread={s} colors={colors} />
        ))}
      </div>
    </Card>
  );
}
