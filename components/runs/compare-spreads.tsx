import type { JudgeColorMap } from "@/components/charts/colors";
import { ScoreSpreadChart } from "@/components/charts/score-spread-chart";
import { Card } from "@/components/ui/card";
import type { CriterionSpread } from "@/lib/runs/score-spreads";

/**
 * Each criterion's score spreads in run A beside run B: the same judge in the same colour on both,
 * each chart saying what it rests on. A criterion only one run has is shown on its side alone.
 */
export function CompareSpreads({
  a,
  b,
  colors,
  ids,
}: {
  a: CriterionSpread[];
  b: CriterionSpread[];
  colors: JudgeColorMap;
  ids: [string, string];
}) {
  const criteria = [...new Set([...a, ...b].map((s) => s.criterionId))];
  if (criteria.length === 0) return null;
  return (
    <Card title="How each judge scores each criterion, in A and in B (over each run's cases)">
      <p className="mb-2 text-xs text-zinc-700">
        Each dot is one case: a judge's mean over its answered samples of that case, or the panel's mean of
        the judges that answered it. Boxes span the middle half, the thick line is the median, whiskers reach
        the lowest and highest case.
      </p>
      <div className="space-y-4" data-testid="compare-spreads">
        {criteria.map((id) => {
          const sa = a.find((s) => s.criterionId === id);
          const sb = b.find((s) => s.criterionId === id);
          return (
            <section key={id} aria-label={`${id} in A and B`} className="grid gap-3 md:grid-cols-2">
              {[
                [sa, `A · ${ids[0]}`],
                [sb, `B · ${ids[1]}`],
              ].map(([s, side]) => (
                <div key={side as string} className="min-w-0">
                  <div className="font-mono text-xs text-zinc-600">{side as string}</div>
                  {s ? (
                    <ScoreSpreadChart spread={s as CriterionSpread} colors={colors} />
                  ) : (
                    <p className="text-xs text-zinc-600">This run has no {id}.</p>
                  )}
                </div>
              ))}
            </section>
          );
        })}
      </div>
    </Card>
  );
}
