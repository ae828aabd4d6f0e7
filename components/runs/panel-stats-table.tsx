import { type JudgeColorMap, MARK_OUTLINE } from "@/components/charts/colors";
import { JudgeName } from "@/components/ui/judge-name";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import type { CriterionPanelStats } from "@/lib/judging/panel-stats";

const fmt = (x: number | null, d = 2) => (x === null || Number.isNaN(x) ? "—" : x.toFixed(d));

/** Agreement across the panel and each judge's self-consistency and lean, per criterion. */
export function PanelStatsTable({ stats, colors }: { stats: CriterionPanelStats[]; colors?: JudgeColorMap }) {
  if (stats.length === 0) return <p className="text-sm text-zinc-600">No LLM samples yet.</p>;
  return (
    <ScrollTable label="Panel agreement">
      <table className="w-full text-left text-sm tabular-nums" data-testid="panel-stats">
        <TableHead
          columns={[
            "Criterion",
            {
              label: "α across judges",
              title: "Krippendorff's alpha (interval) across judges' means, over cases",
            },
            "Judge",
            {
              label: "Self-consistency α",
              title: "Krippendorff's alpha (interval) across the judge's own N samples, over cases",
            },
            { label: "Offset from panel", title: "Mean of (judge mean − panel mean) over cases" },
            "Cases",
            {
              label: "Samples answered",
              title: "answered (failed samples are counted apart and never scored)",
            },
          ]}
        />
        <tbody>
          {stats.flatMap((c) =>
            c.judges.map((j, i) => (
              <tr key={`${c.criterionId}-${j.judge}`} className={i === 0 ? "border-t border-zinc-200" : ""}>
                <td>{i === 0 ? c.criterionId : ""}</td>
                <td>{i === 0 ? `${fmt(c.alphaAcrossJudges)} (n=${c.cases})` : ""}</td>
                <td className="min-w-36">
                  {colors?.[j.judge] && (
                    // the judge's colour on the page's charts
                    <span
                      aria-hidden="true"
                      className="mr-1 inline-block size-2.5 rounded-sm border align-middle"
                      style={{ backgroundColor: colors[j.judge], borderColor: MARK_OUTLINE }}
                    />
                  )}
                  <JudgeName judge={j.judge} />
                </td>
                <td>{fmt(j.selfConsistency)}</td>
                <td>{j.meanOffset === null ? "—" : `${j.meanOffset >= 0 ? "+" : ""}${fmt(j.meanOffset)}`}</td>
                <td>{j.cases}</td>
                <td className={j.samplesFailed ? "text-orange-800" : ""}>
                  {j.samplesAnswered} of {j.samplesAnswered + j.samplesFailed}
                  {j.samplesFailed > 0 && ` (${j.samplesFailed} failed)`}
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </ScrollTable>
  );
}
