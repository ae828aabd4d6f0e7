"use client";

import {
  CartesianGrid,
  ErrorBar,
  Legend,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
} from "recharts";
import { kindColor, LEGEND_TEXT, MARK_OUTLINE } from "./colors";

export type TradeoffPoint = {
  label: string;
  /** the configuration's kind (BM25, single judge, dual strict…); by default the label's first part */
  kind?: string;
  precision: number;
  low: number;
  high: number;
  latencyMs: number;
  /** null for a configuration whose judge model has no price: it is left off the cost chart, never put at $0 */
  costPerMonth: number | null;
};

type Datum = TradeoffPoint & { kind: string; err: [number, number] };

const X_TITLE = {
  latencyMs: "latency p50 per query (ms)",
  costPerMonth: "projected $ / month at 100 prompts a day",
} as const;

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

function TradeoffTooltip({ active, payload }: TooltipContentProps) {
  const d = active ? (payload?.[0]?.payload as Datum | undefined) : undefined;
  if (!d) return null;
  return (
    <div className="max-w-xs rounded border border-zinc-300 bg-white px-2 py-1 text-xs text-zinc-900 shadow-sm">
      <div className="font-medium">{d.label}</div>
      <div>
        precision {pct(d.precision)} (95% interval {pct(d.low)}–{pct(d.high)})
      </div>
      <div>
        latency p50 {Math.round(d.latencyMs)} ms
        {d.costPerMonth !== null && ` · $${d.costPerMonth.toFixed(2)} / month`}
      </div>
    </div>
  );
}

/**
 * Precision (with its 95 % interval) against latency or monthly cost, one dot per configuration,
 * coloured by its kind (a legend says which), the configuration named in the tooltip.
 */
export function TradeoffChart({ points, x }: { points: TradeoffPoint[]; x: "latencyMs" | "costPerMonth" }) {
  const data: Datum[] = points
    .filter((p) => Number.isFinite(p.precision) && (x !== "costPerMonth" || p.costPerMonth !== null))
    .map((p) => ({
      ...p,
      kind: p.kind ?? p.label.split(" · ")[0],
      err: [p.precision - p.low, p.high - p.precision],
    }));
  const kinds = [...new Set(data.map((d) => d.kind))];
  return (
    <div className="h-72 w-full" data-testid={`tradeoff-${x}`}>
      <ResponsiveContainer width="100%" height="100%">
        <ScatterChart margin={{ top: 10, right: 20, bottom: 28, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
          <XAxis
            type="number"
            dataKey={x}
            name={X_TITLE[x]}
            tick={{ fontSize: 11, fill: "#3f3f46" }}
            label={{
              value: X_TITLE[x],
              position: "insideBottom",
              offset: -16,
              fontSize: 11,
              fill: "#3f3f46",
            }}
          />
          <YAxis
            type="number"
            dataKey="precision"
            domain={[0, 1]}
            tickFormatter={(v: number) => `${Math.round(v * 100)}%`}
            tick={{ fontSize: 11, fill: "#3f3f46" }}
            label={{
              value: "precision (95% interval)",
              angle: -90,
              position: "insideLeft",
              fontSize: 11,
              fill: "#3f3f46",
              style: { textAnchor: "middle" },
            }}
          />
          <Tooltip content={TradeoffTooltip} cursor={{ strokeDasharray: "3 3" }} />
          <Legend
            verticalAlign="top"
            height={28}
            wrapperStyle={{ fontSize: 11 }}
            formatter={(value) => <span style={{ color: LEGEND_TEXT }}>{value}</span>}
          />
          {kinds.map((k) => (
            <Scatter
              key={k}
              name={k}
              data={data.filter((d) => d.kind === k)}
              fill={kindColor(k)}
              stroke={MARK_OUTLINE}
              strokeWidth={1}
            >
              {/* the interval in the outline's ink: some palette hues are too light for a thin line */}
              <ErrorBar dataKey="err" direction="y" stroke={MARK_OUTLINE} width={4} />
            </Scatter>
          ))}
        </ScatterChart>
      </ResponsiveContainer>
    </div>
  );
}
