"use client";

import {
  CartesianGrid,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
} from "recharts";

export type FrontierPoint = {
  id: string;
  cost: number;
  accuracy: number;
  low: number;
  high: number;
  n: number;
  calls: number;
  kind: "frontier" | "other" | "full" | "recommended";
};

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

function PanelTooltip({ active, payload }: TooltipContentProps) {
  const d = active
    ? (payload?.[0]?.payload as (FrontierPoint & { costText: string }) | undefined)
    : undefined;
  if (!d) return null;
  return (
    <div className="max-w-xs rounded border border-zinc-300 bg-white px-2 py-1 text-xs text-zinc-900 shadow-sm">
      <div className="font-medium">{d.id}</div>
      <div>
        accuracy {pct(d.accuracy)} (95% interval {pct(d.low)}–{pct(d.high)}, n {d.n})
      </div>
      <div>
        {d.costText} · {d.calls} call{d.calls === 1 ? "" : "s"} per verdict
      </div>
    </div>
  );
}

const STYLE = {
  other: { name: "other configurations", fill: "#a1a1aa" },
  frontier: { name: "frontier", fill: "#4338ca" },
  full: { name: "full panel", fill: "#b45309" },
  recommended: { name: "recommended", fill: "#047857" },
} as const;

/**
 * Agreement with people (accuracy, 95 % interval in the tooltip) against cost per verdict, one dot per
 * configuration; the frontier joined by a line; hovering a dot names its judges and N.
 */
export function FrontierChart({ points, basis }: { points: FrontierPoint[]; basis: "usd" | "calls" }) {
  const title = basis === "usd" ? "USD per verdict" : "calls per verdict (a judge has no price)";
  const data = points.map((p) => ({
    ...p,
    costText: basis === "usd" ? `$${p.cost.toFixed(6)} per verdict` : `${p.cost} calls`,
  }));
  const kinds = (["other", "frontier", "full", "recommended"] as const).filter((k) =>
    data.some((d) => d.kind === k),
  );
  return (
    <div className="w-full" data-testid="frontier-chart">
      <p className="sr-only">
        Accuracy with people against {title}, {points.length} configurations; the table below lists the
        frontier.
      </p>
      <div className="h-72 w-full">
        <ResponsiveContainer width="100%" height="100%">
          <ScatterChart margin={{ top: 12, right: 16, bottom: 28, left: 4 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
            <XAxis
              type="number"
              dataKey="cost"
              name={title}
              tick={{ fontSize: 11, fill: "#3f3f46" }}
              tickFormatter={(v: number) => (basis === "usd" ? `$${v.toPrecision(2)}` : String(v))}
              label={{ value: title, position: "insideBottom", offset: -16, fontSize: 11, fill: "#3f3f46" }}
            />
            <YAxis
              type="number"
              dataKey="accuracy"
              domain={[0, 1]}
              tickFormatter={(v: number) => `${Math.round(v * 100)}%`}
              tick={{ fontSize: 11, fill: "#3f3f46" }}
              width={44}
            />
            <Tooltip content={PanelTooltip} cursor={{ strokeDasharray: "3 3" }} />
            {kinds.map((k) => (
              <Scatter
                key={k}
                name={STYLE[k].name}
                data={data.filter((d) => d.kind === k).sort((a, b) => a.cost - b.cost)}
                fill={STYLE[k].fill}
                line={k === "frontier" ? { stroke: STYLE.frontier.fill } : false}
                isAnimationActive={false}
              />
            ))}
          </ScatterChart>
        </ResponsiveContainer>
      </div>
      <ul className="flex flex-wrap gap-x-3 gap-y-1 text-xs text-zinc-800" aria-label="Legend">
        {kinds.map((k) => (
          <li key={k} className="flex items-center gap-1">
            <span
              aria-hidden="true"
              className="inline-block h-2 w-2 rounded-full"
              style={{ background: STYLE[k].fill }}
            />
            {STYLE[k].name} ({data.filter((d) => d.kind === k).length})
          </li>
        ))}
      </ul>
    </div>
  );
}
