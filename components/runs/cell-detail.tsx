import { LabelButtons } from "@/components/agreement/label-buttons";
import type { JudgeColorMap } from "@/components/charts/colors";
import { SpreadChart } from "@/components/charts/spread-chart";
import { Card } from "@/components/ui/card";
import type { CellDetailData } from "@/lib/runs/run-page";
import { ResampleButton } from "./requeue-buttons";
import { SampleList } from "./sample-list";

type Props = {
  runId: string;
  cell: CellDetailData;
  live: boolean;
  unpriced: string[];
  /** the run's judge colours, as every chart of the page draws them */
  colors: JudgeColorMap;
};

/**
 * One case × criterion: what its figures rest on (samples answered of asked, judges answered of
 * asked, failures counted apart), a person's label (not while samples are pending), the spread of the answered samples, the output
 * judged, re-sample, and every sample with the superseded ones apart.
 */
export function CellDetail({ runId, cell, live, unpriced, colors }: Props) {
  const { criterion, askedJudges } = cell;
  return (
    <div id="cell">
      <Card
        title={`${cell.caseName} · ${cell.criterionId}: ${cell.scored.length} of ${cell.askedSamples} samples answered, from ${cell.judges.length} of ${askedJudges} judge${askedJudges === 1 ? "" : "s"}${cell.failed ? ` · ${cell.failed} failed (not shown in the chart)` : ""}`}
      >
        {live && cell.pending > 0 ? (
          // a verdict still changing is not labelled: pass/fail is offered once its samples are in
          <p className="mb-3 text-sm text-zinc-700" data-testid="label-pending">
            Partial verdict: {cell.pending} of {cell.askedSamples} samples still pending. Labelling opens when
            they are in.
          </p>
        ) : (
          <div className="mb-3 flex flex-wrap items-center gap-3 text-sm" data-testid="human-label">
            <span className="font-medium text-zinc-700">Your label for this verdict:</span>
            <LabelButtons
              runId={runId}
              caseId={cell.caseId}
              criterionId={cell.criterionId}
              scale={criterion.scale}
              initial={cell.label ? { passed: cell.label.passed, score: cell.label.score } : null}
            />
            {cell.label?.author && (
              <span className="text-xs text-zinc-600" data-testid="label-author">
                labelled by <span className="font-medium">{cell.label.author}</span>
              </span>
            )}
          </div>
        )}
        {criterion.type === "llm" && cell.scored.length > 0 && (
          <SpreadChart
            judges={cell.judges}
            samples={cell.scored.map((s) => ({ judge: s.judge, score: s.score, sample: s.sampleIndex }))}
            means={cell.judgeMeans}
            panelMean={cell.panelMean}
            threshold={criterion.threshold}
            scale={criterion.scale}
            colors={colors}
          />
        )}
        <details className="my-2 text-sm">
          <summary className="cursor-pointer text-xs text-zinc-600">the output that was judged</summary>
          <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap rounded bg-zinc-50 p-2 text-xs">
            {cell.output}
          </pre>
        </details>
        <div className="my-2 flex flex-wrap items-center gap-3 text-xs text-zinc-600">
          <ResampleButton
            runId={runId}
            caseId={cell.caseId}
            criterionId={cell.criterionId}
            disabled={live || cell.samples.length === 0}
          />
        </div>
        <SampleList
          runId={runId}
          samples={cell.samples}
          superseded={cell.superseded}
          unpriced={unpriced}
          n={cell.n}
        />
      </Card>
    </div>
  );
}
