"use client";

import {
  Bar,
  BarChart,
  CartesianGrid,
  ErrorBar,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

/** `std`: the cross-judge std, absent when fewer than two judges answered (no bar, never a zero). `n`: judges answered. */
export type DimensionDatum = { dimension: string; score: number; std?: number; n: number };

/** The panel's score per dimension, with the cross-judge std as error bars and the 0.7 pass line. */
export function DimensionChart({ data }: { data: DimensionDatum[] }) {
  return (
    <div className="h-64 w-full" data-testid="dimension-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ top: 10, right: 60, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
          <XAxis dataKey="dimension" tick={{ fontSize: 11 }} />
          <YAxis domain={[0, 1]} tick={{ fontSize: 11 }} />
          <Tooltip formatter={(v) => (typeof v === "number" ? v.toFixed(2) : String(v))} />
          <ReferenceLine
            y={0.7}
            stroke="#dc2626"
            strokeDasharray="6 3"
            label={{ value: "pass 0.7", position: "right", fontSize: 11, fill: "#dc2626" }}
          />
          <Bar dataKey="score" fill="#6366f1">
            <ErrorBar dataKey="std" width={6} stroke="#111827" />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
