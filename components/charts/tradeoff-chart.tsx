"use client";

import {
  CartesianGrid,
  ErrorBar,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

export type TradeoffPoint = {
  label: string;
  precision: number;
  low: number;
  high: number;
  latencyMs: number;
  /** null for a configuration whose judge model has no price: it is left off the cost chart, never put at $0 */
  costPerMonth: number | null;
};

/** Precision (with its 95 % interval) against latency or monthly cost, one dot per configuration. */
export function TradeoffChart({ points, x }: { points: TradeoffPoint[]; x: "latencyMs" | "costPerMonth" }) {
  const data = points
    .filter((p) => Number.isFinite(p.precision) && (x !== "costPerMonth" || p.costPerMonth !== null))
    .map((p) => ({ ...p, err: [p.precision - p.low, p.high - p.precision] }));
  return (
    <div className="h-64 w-full" data-testid={`tradeoff-${x}`}>
      <ResponsiveContainer width="100%" height="100%">
        <ScatterChart margin={{ top: 10, right: 20, bottom: 20, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
          <XAxis
            type="number"
            dataKey={x}
            name={x === "latencyMs" ? "latency p50 (ms)" : "$ / month"}
            tick={{ fontSize: 11 }}
            label={{
              value:
                x === "latencyMs" ? "latency p50 per query (ms)" : "projected $ / month at 100 prompts a day",
              position: "bottom",
              fontSize: 11,
            }}
          />
          <YAxis
            type="number"
            dataKey="precision"
            domain={[0, 1]}
            tickFormatter={(v: number) => `${Math.round(v * 100)}%`}
            tick={{ fontSize: 11 }}
          />
          <Tooltip
            formatter={(v) => (typeof v === "number" ? v.toFixed(3) : String(v))}
            labelFormatter={() => ""}
          />
          <Scatter data={data} fill="#4f46e5">
            <ErrorBar dataKey="err" direction="y" stroke="#4f46e5" width={4} />
          </Scatter>
        </ScatterChart>
      </ResponsiveContainer>
    </div>
  );
}
