import { Card } from "@/components/ui/card";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import type { SetReport } from "@/lib/agreement/report";
import { ConfusionMatrix, FigureCell, IdList } from "./figure";
import { ReadingGuide } from "./reading-guide";

/** The judge's name: kept visible while a wide table scrolls, wrapping at word boundaries. */
const judgeCell = "sticky left-0 z-10 max-w-[9rem] bg-white pr-2 font-mono text-xs break-words";

/** An import's or a pairwise audit's figures, per judge: the position-bias audit, or agreement with gold. */
export function SetReportView({ r }: { r: SetReport }) {
  const o = r.set.options;
  if (r.labels === "pairwise")
    return (
      <div className="space-y-4">
        <Card title="Position-bias audit" testId="position-audit">
          <p className="mb-2 text-xs text-zinc-600">
            Each item judged with its outputs in their own order and swapped. Positional agreement: the same
            winner in both orders (an unusable answer agrees with nothing). First-position wins: of the
            answers naming a winner, the share that named whichever output was shown first (50% is unbiased).
          </p>
          <ScrollTable label="Position-bias audit, per judge">
            <table className="w-full min-w-[48rem] text-left text-sm" data-testid="audit-table">
              <TableHead
                columns={[
                  "Judge",
                  { label: "Items", align: "right" },
                  {
                    label: "Accuracy, own order",
                    title: "against the gold label, outputs as given (LLMBar: swap = False)",
                  },
                  { label: "Accuracy, swapped", title: "outputs swapped (LLMBar: swap = True)" },
                  { label: "Mean", title: "the mean of the two orders" },
                  { label: "Right in both", title: "right in both orders" },
                  { label: "Positional agreement", title: "same winner in both orders" },
                  {
                    label: "First-position wins",
                    title: "share of decided answers naming the output shown first",
                  },
                  {
                    label: "Unusable (own order / swapped)",
                    title: "answers with no usable winner, in the outputs' own order / swapped",
                  },
                ]}
              />
              <tbody>
                {r.judges.map((j) => {
                  const a = j.pairwise!;
                  return (
                    <tr
                      key={j.judge}
                      className="border-t border-zinc-100 align-top"
                      data-testid={`audit-row-${j.judge}`}
                    >
                      <td className={judgeCell}>{j.judge}</td>
                      <td className="text-right">{j.n}</td>
                      <td>
                        <FigureCell f={a.accuracy.original} percent testId="acc-original" />
                      </td>
                      <td>
                        <FigureCell f={a.accuracy.swapped} percent testId="acc-swapped" />
                      </td>
                      <td>
                        <FigureCell f={a.accuracy.mean} percent testId="acc-mean" />
                      </td>
                      <td>
                        <FigureCell f={a.accuracy.both} percent />
                      </td>
                      <td>
                        <FigureCell f={a.positionalAgreement} percent testId="positional-agreement" />
                      </td>
                      <td>
                        <FigureCell f={a.firstPositionWins} percent testId="first-position-wins" />
                      </td>
                      <td className="text-xs" data-testid="unusable">
                        {a.unusable.original} own order / {a.unusable.swapped} swapped
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </ScrollTable>
        </Card>
        {r.judges.map((j) => (
          <Card key={j.judge} title={<span className="font-mono">{j.judge}</span>}>
            <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr] [&_dd]:min-w-0 [&_dd]:break-words">
              <dt className="text-zinc-600">Winner changed with the order</dt>
              <dd>
                <IdList ids={j.pairwise!.inconsistent.map((x) => x.itemId)} />
              </dd>
              <dt className="text-zinc-600">Not judged</dt>
              <dd>
                <IdList ids={j.missing} />
              </dd>
              {j.llmbar && (
                <>
                  <dt className="text-zinc-600">LLMBar&apos;s statistics.json</dt>
                  <dd className="text-xs" data-testid="llmbar-statistics">
                    correct_False {j.llmbar.correct_False}/{j.llmbar.n} · correct_True {j.llmbar.correct_True}
                    /{j.llmbar.n} · correct_average {(j.llmbar.correct_average * 100).toFixed(2)}% ·
                    correct_both {j.llmbar.correct_both}/{j.llmbar.n} · equal {j.llmbar.equal}/{j.llmbar.n}{" "}
                    <span className="text-zinc-500">(LLMBar counts two unparsed answers as equal)</span>
                  </dd>
                </>
              )}
              {j.calls && (
                <>
                  <dt className="text-zinc-600">Calls</dt>
                  <dd className="text-xs">
                    {j.calls.count} · {j.calls.inputTokens} input + {j.calls.outputTokens} output tokens ·
                    cost {j.calls.costUsd === null ? "unknown (no price)" : `$${j.calls.costUsd.toFixed(4)}`}
                  </dd>
                </>
              )}
            </dl>
          </Card>
        ))}
      </div>
    );
  const graded = r.labels === "graded";
  const hasBinary = r.judges.some((j) => j.pointwise?.binary);
  return (
    <div className="space-y-4">
      <Card title="Agreement with the gold labels" testId="agreement-table-card">
        <ScrollTable label="Agreement with the gold labels, per judge">
          <table className="w-full min-w-[40rem] text-left text-sm" data-testid="agreement-table">
            <TableHead
              columns={[
                "Judge",
                { label: "n", align: "right", title: "gold items this judge labelled" },
                "Accuracy",
                { label: "Cohen's κ", title: "chance-corrected agreement on the labels as categories" },
                ...(graded
                  ? [{ label: "Quadratic κ", title: "weighted κ: a near miss costs less than a far one" }]
                  : []),
                {
                  label: graded ? "α (interval)" : "α (nominal)",
                  title: "Krippendorff's alpha, judge vs gold",
                },
                ...(hasBinary
                  ? [{ label: `κ at ≥ ${o.cut}`, title: `relevant (label ≥ ${o.cut}) or not` }]
                  : []),
                {
                  label: "Missing",
                  align: "right" as const,
                  title: "gold items not in this judge's file: named below, never guessed",
                },
                {
                  label: "No gold",
                  align: "right" as const,
                  title: "items this judge labelled that have no gold label",
                },
              ]}
            />
            <tbody>
              {r.judges.map((j) => {
                const p = j.pointwise!;
                return (
                  <tr
                    key={j.judge}
                    className="border-t border-zinc-100"
                    data-testid={`agreement-row-${j.judge}`}
                  >
                    <td className={judgeCell}>{j.judge}</td>
                    <td className="text-right">{p.n}</td>
                    <td>
                      <FigureCell f={p.accuracy} percent testId="accuracy" />
                    </td>
                    <td>
                      <FigureCell f={p.kappa} testId="kappa" />
                    </td>
                    {graded && (
                      <td>
                        <FigureCell f={p.weightedKappa} testId="weighted-kappa" />
                      </td>
                    )}
                    <td>
                      <FigureCell f={p.alpha} testId="alpha" />
                    </td>
                    {hasBinary && (
                      <td>
                        <FigureCell f={p.binary?.kappa} testId="binary-kappa" />
                      </td>
                    )}
                    <td className="text-right">{j.missing.length}</td>
                    <td className="text-right">{j.noGold.length}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ScrollTable>
        <div className="mt-2">
          <ReadingGuide />
        </div>
      </Card>
      {r.judges.map((j) => {
        const p = j.pointwise!;
        return (
          <Card key={j.judge} title={<span className="font-mono">{j.judge}</span>}>
            <div className="flex flex-wrap gap-6 overflow-x-auto">
              <ConfusionMatrix
                c={p.confusion}
                passFail={!graded}
                caption="Confusion matrix"
                testId={`confusion-${j.judge}`}
              />
              {p.binary && (
                <ConfusionMatrix c={p.binary.confusion} passFail caption={`Relevant at ≥ ${p.binary.cut}`} />
              )}
            </div>
            <dl className="mt-3 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr] [&_dd]:min-w-0 [&_dd]:break-words">
              <dt className="text-zinc-600">Missing from its file</dt>
              <dd>
                <IdList ids={j.missing} />
              </dd>
              <dt className="text-zinc-600">Not in the gold</dt>
              <dd>
                <IdList ids={j.noGold} />
              </dd>
              <dt className="text-zinc-600">Disagreements</dt>
              <dd>
                <IdList
                  ids={p.disagreements.map(
                    (d) =>
                      `${d.itemId} (${graded ? d.gold : d.gold ? "pass" : "fail"}→${graded ? d.judge : d.judge ? "pass" : "fail"})`,
                  )}
                />
              </dd>
            </dl>
          </Card>
        );
      })}
    </div>
  );
}
