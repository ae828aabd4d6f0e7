import Link from "next/link";
import { connection } from "next/server";
import { judgeColors } from "@/components/charts/colors";
import { CompareSpreads } from "@/components/runs/compare-spreads";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import { getDb } from "@/db/client";
import { getRunCases, getRunResults, listRuns } from "@/db/queries/runs";
import type { Coverage } from "@/lib/judging/aggregate";
import { compareRuns } from "@/lib/runs/compare";
import { compareConfigs } from "@/lib/runs/compare-config";
import { loadScoreSpreads } from "@/lib/runs/load-score-spreads";

type Props = { searchParams: Promise<{ a?: string; b?: string }> };

const f = (x: number | null) => (x === null ? "—" : x.toFixed(2));
/**
 * Below md the case · criterion column sticks to the left of the scrolling table, narrow enough to
 * leave the verdict and what it rests on in view beside it; its background covers what scrolls under.
 */
const STICKY = "max-md:sticky max-md:left-0 max-md:z-10 max-md:w-28 max-md:min-w-28 max-md:max-w-28";

const cov = (c: Coverage | null) =>
  c ? `${c.judges_answered}/${c.judges_asked} · ${c.samples_answered}/${c.samples_asked}` : "—";

export default async function ComparePage({ searchParams }: Props) {
  await connection();
  const { a, b } = await searchParams;
  const db = getDb();
  const runs = await listRuns(db);
  const ra = runs.find((r) => r.id === a);
  const rb = runs.find((r) => r.id === b);
  const out =
    ra && rb
      ? compareRuns(await getRunResults(db, { runId: ra.id }), await getRunResults(db, { runId: rb.id }))
      : null;
  const config =
    ra && rb
      ? compareConfigs(
          { run: ra, cases: await getRunCases(db, { runId: ra.id }) },
          { run: rb, cases: await getRunCases(db, { runId: rb.id }) },
        )
      : [];
  const differing = config.filter((r) => r.differs).length;
  const spreads = ra && rb ? { a: await loadScoreSpreads(db, ra), b: await loadScoreSpreads(db, rb) } : null;
  // both panels' judges resolved together: one judge, one colour, on both sides
  const colors = judgeColors([...(ra?.options.judges ?? []), ...(rb?.options.judges ?? [])]);
  const select = (name: string, value?: string) => (
    <select
      name={name}
      defaultValue={value}
      className="max-w-full rounded border border-zinc-300 px-2 py-1 text-sm"
    >
      <option value="">choose a run</option>
      {runs.map((r) => (
        <option key={r.id} value={r.id}>
          {r.id} · {r.suiteName} · {r.status.replaceAll("_", " ")}
        </option>
      ))}
    </select>
  );
  return (
    <div className="space-y-4">
      <PageTitle>Compare two runs</PageTitle>
      <form className="flex flex-wrap items-center gap-2" method="get">
        <label className="min-w-0 max-w-full text-sm">A {select("a", a)}</label>
        <label className="min-w-0 max-w-full text-sm">B {select("b", b)}</label>
        <button type="submit" className="rounded bg-indigo-600 px-3 py-1 text-sm text-white">
          Compare
        </button>
      </form>
      {!out ? (
        <EmptyState title="Choose two runs">
          Run the same suite twice to see how stable its verdicts are.
        </EmptyState>
      ) : (
        <>
          <Card
            testId="compare-config"
            title={
              differing
                ? `What differed: ${differing} setting${differing === 1 ? "" : "s"} (marked) between A and B`
                : "Configuration: A and B were asked the same thing (same suite, cases, panel and prompts)"
            }
          >
            <ScrollTable label="Configurations of A and B">
              <table className="w-full text-left text-sm" data-testid="config-table">
                <TableHead columns={["Setting", `A · ${ra?.id}`, `B · ${rb?.id}`, ""]} />
                <tbody>
                  {config.map((r) => (
                    <tr
                      key={r.key}
                      data-testid={`config-${r.key}`}
                      data-differs={r.differs}
                      className={`border-t border-zinc-100 align-top ${r.differs ? "bg-amber-50" : ""}`}
                    >
                      <th scope="row" className="pr-3 text-left font-normal text-zinc-700">
                        {r.label}
                      </th>
                      <td className="break-all pr-3 font-mono text-xs">{r.a}</td>
                      <td className="break-all pr-3 font-mono text-xs">{r.b}</td>
                      <td className="text-xs">
                        {r.differs && (
                          <span className="font-semibold text-amber-900" data-testid="config-differs">
                            differs
                          </span>
                        )}
                        {r.hint && <span className="block text-zinc-700">{r.hint}</span>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollTable>
          </Card>
          <Card
            title={`${out.cells.length} case × criterion cells in both runs · ${out.flips} pass/fail flip${out.flips === 1 ? "" : "s"} · mean |Δ| ${f(out.meanAbsDelta)}`}
          >
            <ScrollTable label="Comparison">
              <table className="w-full text-left text-sm tabular-nums" data-testid="compare-table">
                <TableHead
                  columns={[
                    { label: "Case · criterion", className: `${STICKY} bg-white` },
                    "Verdict",
                    {
                      label: "Answered A / B",
                      title:
                        "judges answered/asked · samples answered/asked, in each run (failed samples are not scored)",
                    },
                    "A",
                    "B",
                    "Δ",
                    { label: "Spread A / B", title: "mean within-judge std of the samples" },
                    {
                      label: "Consensus A / B",
                      title: "a consensus level needs two judges or more that answered",
                    },
                  ]}
                />
                <tbody>
                  {out.cells.map((c) => (
                    <tr
                      key={`${c.caseId}-${c.criterionId}`}
                      className={`border-t border-zinc-100 ${c.flipped ? "bg-amber-50" : ""}`}
                    >
                      <th
                        scope="row"
                        className={`${STICKY} py-1 text-left font-normal ${c.flipped ? "bg-amber-50" : "bg-white"}`}
                      >
                        <span className="block [overflow-wrap:anywhere]">{c.caseId}</span>
                        <span className="block text-xs text-zinc-600 [overflow-wrap:anywhere]">
                          {c.criterionId}
                        </span>
                      </th>
                      <td className="whitespace-nowrap">
                        {c.flipped
                          ? `flip: ${c.passedA ? "pass→FAIL" : "FAIL→pass"}`
                          : c.passedA
                            ? "pass"
                            : "FAIL"}
                      </td>
                      <td
                        data-testid="compare-coverage"
                        className={`text-xs ${
                          [c.coverageA, c.coverageB].some((x) => x && x.samples_answered < x.samples_asked)
                            ? "text-orange-800"
                            : ""
                        }`}
                      >
                        <span className="block whitespace-nowrap">A {cov(c.coverageA)}</span>
                        <span className="block whitespace-nowrap">B {cov(c.coverageB)}</span>
                      </td>
                      <td>{f(c.a)}</td>
                      <td>{f(c.b)}</td>
                      <td>{c.delta === null ? "—" : `${c.delta > 0 ? "+" : ""}${c.delta.toFixed(2)}`}</td>
                      <td>
                        {f(c.spreadA)} / {f(c.spreadB)}
                      </td>
                      <td className="text-xs">
                        {c.agreementA ?? "—"} / {c.agreementB ?? "—"}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollTable>
            {out.paired && (
              <p className="mt-2 text-xs text-zinc-700" data-testid="compare-paired">
                Paired test over {out.paired.n} cells scored in both: mean B − A{" "}
                {out.paired.meanDiff > 0 ? "+" : ""}
                {out.paired.meanDiff.toFixed(2)}, 95% interval [{out.paired.low.toFixed(2)},{" "}
                {out.paired.high.toFixed(2)}], sign-flip p = {out.paired.p.toPrecision(3)}
                {out.paired.exact ? " (exact)" : ""}
              </p>
            )}
            <p className="mt-2 text-xs">
              <Link className="text-indigo-700 underline" href={`/runs/${ra?.id}`}>
                open A
              </Link>{" "}
              ·{" "}
              <Link className="text-indigo-700 underline" href={`/runs/${rb?.id}`}>
                open B
              </Link>
            </p>
          </Card>
          {spreads && ra && rb && (
            <CompareSpreads a={spreads.a} b={spreads.b} colors={colors} ids={[ra.id, rb.id]} />
          )}
        </>
      )}
    </div>
  );
}
