"use client";

import {
  Bar,
  BarChart,
  CartesianGrid,
  ErrorBar,
  Legend,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
} from "recharts";
import { LEGEND_TEXT, PANEL_COLOR, THRESHOLD_COLOR } from "./colors";

/** `std`: the cross-judge std, absent when fewer than two judges answered (no bar, never a zero). `n`: judges answered. */
export type DimensionDatum = { dimension: string; score: number; std?: number; n: number };

const PASS_LINE = 0.7;

/** "correctness: 0.72 ± 0.05 across 2 judges", or "… from 1 judge (no spread)" */
function DimensionTooltip({ active, payload }: TooltipContentProps) {
  const d = active ? (payload?.[0]?.payload as DimensionDatum | undefined) : undefined;
  if (!d) return null;
  return (
    <div className="rounded border border-zinc-300 bg-white px-2 py-1 text-xs text-zinc-900 shadow-sm">
      <span className="font-medium">{d.dimension}</span>: panel score {d.score.toFixed(2)}
      {d.std === undefined
        ? ` from ${d.n} judge${d.n === 1 ? "" : "s"} (no spread: fewer than two answered)`
        : ` ± ${d.std.toFixed(2)} (cross-judge std) across ${d.n} judges`}
    </div>
  );
}

/** The panel's score per dimension, with the cross-judge std as error bars and the 0.7 pass line. */
export function DimensionChart({ data }: { data: DimensionDatum[] }) {
  return (
    <div className="h-72 w-full" data-testid="dimension-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ top: 10, right: 16, bottom: 24, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
          <XAxis
            dataKey="dimension"
            tick={{ fontSize: 11, fill: "#3f3f46" }}
            interval={0}
            label={{
              value: "dimension",
              position: "insideBottom",
              offset: -14,
              fontSize: 11,
              fill: "#3f3f46",
            }}
          />
          <YAxis
            domain={[0, 1]}
            tick={{ fontSize: 11, fill: "#3f3f46" }}
            label={{
              value: "panel score (0–1)",
              angle: -90,
              position: "insideLeft",
              fontSize: 11,
              fill: "#3f3f46",
              style: { textAnchor: "middle" },
            }}
          />
          <Tooltip content={DimensionTooltip} cursor={{ fill: "#f4f4f5" }} />
          <Legend
            verticalAlign="top"
            height={28}
            wrapperStyle={{ fontSize: 11 }}
            formatter={(value) => <span style={{ color: LEGEND_TEXT }}>{value}</span>}
          />
          <ReferenceLine
            y={PASS_LINE}
            stroke={THRESHOLD_COLOR}
            strokeDasharray="6 3"
            label={{ value: `pass ${PASS_LINE}`, position: "insideTopRight", fontSize: 11, fill: "#b91c1c" }}
          />
          {/* the panel in its colour on every page (colors.ts): a light fill, outlined, so the error bar reads on it */}
          <Bar
            dataKey="score"
            name="panel score (bars: cross-judge std)"
            fill={PANEL_COLOR}
            fillOpacity={0.25}
            stroke={PANEL_COLOR}
          >
            <ErrorBar dataKey="std" width={6} stroke={PANEL_COLOR} strokeWidth={1.5} />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
