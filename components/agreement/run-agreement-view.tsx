import Link from "next/link";
import { Card, EmptyState } from "@/components/ui/card";
import { TableHead } from "@/components/ui/table-head";
import { PANEL, type RunAgreement } from "@/lib/agreement/run-agreement";
import { panelGuard } from "@/lib/settings/promote-guard";
import { ConfusionMatrix, FigureCell, IdList } from "./figure";
import { PromotePanelButtons } from "./promote-panel-buttons";
import { ReadingGuide } from "./reading-guide";

/** What the page knows to offer promotions: each criterion's panel in this run, and the current defaults. */
export type PanelDefaults = {
  /** the judges of the run's panel on each criterion */
  panels: Record<string, string[]>;
  criteriaPanels: Record<string, string[]>;
  reviewJudges: string[];
};

/** The judges a row stands for: the run's panel on the criterion, or the one judge. */
const judgesOf = (d: PanelDefaults, criterionId: string, judge: string) =>
  judge === PANEL ? (d.panels[criterionId] ?? []) : [judge];

const same = (a: readonly string[] | undefined, b: readonly string[]) =>
  a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

const sampleHref = (runId: string, caseId: string, criterionId: string) =>
  `/runs/${runId}?case=${encodeURIComponent(caseId)}&criterion=${encodeURIComponent(criterionId)}`;

/** A run's judges and panel against the labels people gave its verdicts, per criterion. */
export function RunAgreementView({ r, defaults }: { r: RunAgreement; defaults?: PanelDefaults }) {
  if (r.labelled === 0)
    return (
      <EmptyState title="No verdict of this run is labelled yet" testId="run-agreement-empty">
        Label verdicts on the{" "}
        <Link className="underline" href={`/runs/${r.runId}`}>
          run page
        </Link>
        , or from the CLI:{" "}
        <code>jury agreement label {r.runId} &lt;case&gt; &lt;criterion&gt; pass|fail [--score n]</code>.
      </EmptyState>
    );
  return (
    <div className="space-y-4">
      <ReadingGuide />
      {r.criteria
        .filter((c) => c.labelled > 0)
        .map((c) => (
          <Card
            key={c.criterionId}
            testId={`criterion-${c.criterionId}`}
            title={
              <>
                <span className="font-mono">{c.criterionId}</span>{" "}
                <span className="font-normal text-zinc-500">
                  scale {c.scale[0]}–{c.scale[1]}, pass ≥ {c.threshold} · {c.labelled} of {c.cells} cells
                  labelled, {c.scored} with a score
                </span>
              </>
            }
          >
            <div className="overflow-x-auto">
              <table className="w-full text-left text-sm" data-testid="run-agreement-table">
                <caption className="mb-1 text-left text-xs text-zinc-600">
                  Pass/fail against the people&apos;s labels. The panel is the run&apos;s verdict; a judge
                  passes a case when the mean of its samples reaches the threshold.
                </caption>
                <TableHead
                  columns={[
                    "Judge",
                    { label: "n", align: "right", title: "labelled cells this judge answered" },
                    "Accuracy",
                    "Cohen's κ",
                    { label: "α (nominal)", title: "Krippendorff's alpha, judge vs people" },
                    {
                      label: "No answer",
                      align: "right",
                      title: "labelled cells this judge gave no answer for: left out, never guessed",
                    },
                    ...(defaults && c.type !== "deterministic"
                      ? [
                          {
                            label: "Make default",
                            title:
                              "the panel or judge jury eval uses for this criterion without --judges, or the judges jury review uses; its figures here are recorded with it",
                          },
                        ]
                      : []),
                  ]}
                />
                <tbody>
                  {c.judges.map((j) => (
                    <tr
                      key={j.judge}
                      className="border-t border-zinc-100"
                      data-testid={`run-agreement-row-${j.judge}`}
                    >
                      <td className="font-mono text-xs">{j.judge}</td>
                      <td className="text-right">{j.passFail.n}</td>
                      <td>
                        <FigureCell f={j.passFail.accuracy} percent testId="accuracy" />
                      </td>
                      <td>
                        <FigureCell f={j.passFail.kappa} testId="kappa" />
                      </td>
                      <td>
                        <FigureCell f={j.passFail.alpha} testId="alpha" />
                      </td>
                      <td className="text-right">{j.noAnswer.length}</td>
                      {defaults && c.type !== "deterministic" && (
                        <td>
                          {j.passFail.n > 0 && (
                            <PromotePanelButtons
                              runId={r.runId}
                              criterionId={c.criterionId}
                              judge={j.judge}
                              guard={panelGuard(c, j)}
                              judges={judgesOf(defaults, c.criterionId, j.judge)}
                              isCriterionDefault={same(
                                defaults.criteriaPanels[c.criterionId],
                                judgesOf(defaults, c.criterionId, j.judge),
                              )}
                              isReviewDefault={same(
                                defaults.reviewJudges,
                                judgesOf(defaults, c.criterionId, j.judge),
                              )}
                            />
                          )}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {c.judges.some((j) => j.scores) && (
              <div className="mt-4 overflow-x-auto">
                <table className="w-full text-left text-sm" data-testid="run-score-agreement-table">
                  <caption className="mb-1 text-left text-xs text-zinc-600">
                    Scores against the people&apos;s scores (a judge&apos;s mean rounded to the scale&apos;s
                    whole points for κ; α on the unrounded means).
                  </caption>
                  <TableHead
                    columns={[
                      "Judge",
                      { label: "n", align: "right" },
                      "Exact",
                      "Cohen's κ",
                      "Quadratic κ",
                      "α (interval)",
                    ]}
                  />
                  <tbody>
                    {c.judges
                      .filter((j) => j.scores)
                      .map((j) => (
                        <tr key={j.judge} className="border-t border-zinc-100">
                          <td className="font-mono text-xs">{j.judge}</td>
                          <td className="text-right">{j.scores!.n}</td>
                          <td>
                            <FigureCell f={j.scores!.accuracy} percent />
                          </td>
                          <td>
                            <FigureCell f={j.scores!.kappa} />
                          </td>
                          <td>
                            <FigureCell f={j.scores!.weightedKappa} testId="weighted-kappa" />
                          </td>
                          <td>
                            <FigureCell f={j.scores!.alpha} />
                          </td>
                        </tr>
                      ))}
                  </tbody>
                </table>
              </div>
            )}
            <div className="mt-4 flex flex-wrap gap-6">
              {c.judges.map((j) => (
                <ConfusionMatrix key={j.judge} c={j.passFail.confusion} passFail caption={j.judge} />
              ))}
            </div>
            <h3 className="mt-4 mb-1 text-xs font-semibold text-zinc-700">Disagreements</h3>
            <ul className="space-y-1 text-sm" data-testid="disagreements">
              {c.judges.flatMap((j) =>
                j.passFail.disagreements.map((d) => (
                  <li key={`${j.judge}-${d.itemId}`}>
                    <span className="font-mono text-xs">{j.judge}</span> on{" "}
                    <Link
                      className="text-indigo-700 underline"
                      href={sampleHref(r.runId, d.itemId, c.criterionId)}
                    >
                      {d.itemId}
                    </Link>
                    : people say {d.gold ? "pass" : "fail"}, judge {d.judge ? "pass" : "fail"}
                    {d.judgeRaw !== undefined ? ` (score ${Number(d.judgeRaw.toFixed(2))})` : ""}
                  </li>
                )),
              )}
              {c.judges.every((j) => j.passFail.disagreements.length === 0) && (
                <li className="text-zinc-500">none</li>
              )}
            </ul>
            {c.judges.some((j) => j.noAnswer.length) && (
              <p className="mt-2 text-xs text-zinc-600">
                No answer:{" "}
                {c.judges
                  .filter((j) => j.noAnswer.length)
                  .map((j) => (
                    <span key={j.judge} className="mr-3">
                      <span className="font-mono">{j.judge}</span> <IdList ids={j.noAnswer} />
                    </span>
                  ))}
              </p>
            )}
          </Card>
        ))}
    </div>
  );
}
