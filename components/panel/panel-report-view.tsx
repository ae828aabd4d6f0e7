import { Card } from "@/components/ui/card";
import type { PanelConfig, PanelReport } from "@/lib/domain";
import type { PromotionGuard } from "@/lib/settings/promote-guard";
import { FrontierChart, type FrontierPoint } from "./frontier-chart";
import { PromoteConfigButton } from "./promote-config-button";

/** The chart holds every configuration up to this many; beyond, the frontier and the picks only. */
const MAX_POINTS = 300;

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const range = (low: number | null, high: number | null, f: (x: number) => string) =>
  low !== null && high !== null ? ` [${f(low)}, ${f(high)}]` : "";
const k2 = (x: number) => x.toFixed(2);

function Row({
  c,
  r,
  runId,
  tags,
  guard,
  isDefault,
}: {
  c: PanelConfig;
  r: PanelReport;
  runId: string;
  tags: string[];
  guard: PromotionGuard;
  isDefault: boolean;
}) {
  return (
    <tr className="border-t border-zinc-100 align-top" data-testid="panel-row" data-config={c.id}>
      <td className="py-1 pr-2">
        <div className="font-medium text-zinc-900">{c.judges.join(" + ")}</div>
        <div className="text-zinc-600">
          N = {c.n}
          {tags.length > 0 && ` · ${tags.join(" · ")}`}
        </div>
      </td>
      <td className="py-1 pr-2 tabular-nums">
        {c.costUsd === null ? `unpriced (${c.unpriced.join(", ")})` : `$${c.costUsd.toFixed(6)}`}
        <div className="text-zinc-600">{c.calls} calls</div>
      </td>
      <td className="py-1 pr-2 tabular-nums">
        {pct(c.accuracy.value)}
        {range(c.accuracy.low, c.accuracy.high, pct)}
        <div className="text-zinc-600">
          n {c.labelled}
          {c.answered < c.labelled && ` (${c.labelled - c.answered} without a verdict)`}
        </div>
      </td>
      <td className="py-1 pr-2 tabular-nums">
        {c.kappa.value === null ? "—" : k2(c.kappa.value)}
        {range(c.kappa.low, c.kappa.high, k2)}
        <div className="text-zinc-600">n {c.kappa.n}</div>
      </td>
      <td className="py-1 pr-2 tabular-nums">
        {c.flips} of {r.verdicts}
      </td>
      <td className="py-1 pr-2 tabular-nums">
        {c.full ? "—" : `${pct(c.test.difference)} (≥ ${pct(c.test.lower)})`}
        {c.orderCheck && (
          <div className="text-zinc-600">
            random {c.n}-subsets: {pct(c.orderCheck.accuracy)} ({c.orderCheck.draws} draws)
          </div>
        )}
      </td>
      <td className="py-1">
        <PromoteConfigButton
          runId={runId}
          criterionId={r.criterionId}
          configId={c.id}
          judges={c.judges}
          n={c.n}
          margin={r.margin}
          guard={guard}
          isDefault={isDefault}
        />
      </td>
    </tr>
  );
}

/** One criterion: the frontier chart, the table of the frontier and the picks, the recommendation. */
export function PanelReportView({
  r,
  runId,
  guards,
  defaults,
}: {
  r: PanelReport;
  runId: string;
  guards: Record<string, PromotionGuard>;
  /** the criterion's promoted panel and N, if any */
  defaults: { judges?: string[]; n?: number };
}) {
  const byId = new Map(r.configs.map((c) => [c.id, c]));
  const rec = r.recommendation;
  const picked = rec.status === "recommended" ? rec.config : rec.candidate;
  const rows = [...new Set([...r.frontier, r.full.id, ...(picked ? [picked] : [])])]
    .map((id) => byId.get(id) as PanelConfig)
    .sort((a, b) => (a.costUsd ?? a.calls) - (b.costUsd ?? b.calls) || a.calls - b.calls);
  const cost = (c: PanelConfig) => (r.costBasis === "usd" ? (c.costUsd as number) : c.calls);
  const shown = r.configs.length <= MAX_POINTS ? r.configs : rows;
  const points: FrontierPoint[] = shown.map((c) => ({
    id: c.id,
    cost: cost(c),
    accuracy: c.accuracy.value ?? 0,
    low: c.accuracy.low ?? 0,
    high: c.accuracy.high ?? 0,
    n: c.labelled,
    calls: c.calls,
    kind:
      rec.status === "recommended" && c.id === rec.config
        ? "recommended"
        : c.full
          ? "full"
          : r.frontier.includes(c.id)
            ? "frontier"
            : "other",
  }));
  const isDefault = (c: PanelConfig) =>
    defaults.n === c.n &&
    defaults.judges?.length === c.judges.length &&
    c.judges.every((j) => defaults.judges?.includes(j));
  return (
    <Card
      title={`${r.criterionId}: ${r.judges.length} judges × N up to ${r.n}`}
      testId={`panel-${r.criterionId}`}
    >
      <p className="text-xs text-zinc-700" data-testid="panel-summary">
        {r.configs.length} configurations from the stored samples (no new call) · {r.verdicts} verdicts,{" "}
        {r.labelled} labelled by people · full panel recomputed: {r.fullCheck.equal} of {r.fullCheck.verdicts}{" "}
        stored verdicts equal · margin {pct(r.margin)}
        {r.unpriced.length > 0 && ` · no price for ${r.unpriced.join(", ")}: ordered by calls, not dollars`}
      </p>
      <p
        className={`mt-2 rounded border p-2 text-sm ${rec.status === "recommended" ? "border-emerald-300 bg-emerald-50 text-emerald-900" : "border-amber-300 bg-amber-50 text-amber-900"}`}
        data-testid="panel-recommendation"
      >
        {rec.status === "recommended" ? (
          <>
            <strong>Recommended: {rec.config}</strong> — {rec.reason}.
          </>
        ) : (
          <>
            <strong>Not enough labels to recommend:</strong> {rec.reason}. Label {rec.more} more verdict
            {rec.more === 1 ? "" : "s"}.
          </>
        )}
      </p>
      <div className="mt-3">
        <FrontierChart points={points} basis={r.costBasis} />
        {shown !== r.configs && (
          <p className="text-xs text-zinc-600">
            The chart shows the frontier and the picks; all {r.configs.length} are in{" "}
            <code>jury panel optimize {runId} --json</code>.
          </p>
        )}
      </div>
      <div className="relative mt-3 max-w-full overflow-x-auto" data-testid="panel-table-scroll">
        <table className="w-full min-w-[44rem] text-left text-xs" data-testid="panel-table">
          <caption className="sr-only">
            The frontier, the full panel and the recommendation for {r.criterionId}
          </caption>
          <thead className="text-zinc-600">
            <tr>
              <th scope="col" className="py-1 pr-2 font-medium">
                Configuration
              </th>
              <th scope="col" className="py-1 pr-2 font-medium">
                Cost per verdict
              </th>
              <th scope="col" className="py-1 pr-2 font-medium">
                Accuracy [95% CI]
              </th>
              <th scope="col" className="py-1 pr-2 font-medium">
                Cohen's κ [95% CI]
              </th>
              <th scope="col" className="py-1 pr-2 font-medium">
                Flips vs full
              </th>
              <th scope="col" className="py-1 pr-2 font-medium">
                vs full (lower bound)
              </th>
              <th scope="col" className="py-1 font-medium">
                <span className="sr-only">Promote</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <Row
                key={c.id}
                c={c}
                r={r}
                runId={runId}
                guard={guards[c.id]}
                isDefault={isDefault(c)}
                tags={[
                  ...(r.frontier.includes(c.id) ? ["frontier"] : []),
                  ...(c.full ? ["full panel"] : []),
                  ...(c.id === picked ? [rec.status === "recommended" ? "recommended" : "needs labels"] : []),
                ]}
              />
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
