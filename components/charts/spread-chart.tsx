"use client";

import {
  CartesianGrid,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
  ZAxis,
} from "recharts";

export type SpreadPoint = { judge: string; score: number; sample: number };

type Props = {
  judges: string[];
  samples: SpreadPoint[];
  means: { judge: string; mean: number }[];
  panelMean: number | null;
  threshold: number;
  scale: [number, number];
};

/** Each judge's N samples (dots) and mean (bar), the panel mean and the threshold. */
export function SpreadChart({ judges, samples, means, panelMean, threshold, scale }: Props) {
  const x = (j: string) => judges.indexOf(j);
  // jitter samples sideways so equal scores stay visible
  const dots = samples.map((s) => ({
    x: x(s.judge) + ((s.sample % 5) - 2) * 0.06,
    y: s.score,
    judge: s.judge,
    sample: s.sample,
  }));
  const meanMarks = means.map((m) => ({ x: x(m.judge), y: m.mean, judge: m.judge }));
  return (
    <div data-testid="spread-chart" className="h-72 w-full">
      <ResponsiveContainer width="100%" height="100%">
        <ScatterChart margin={{ top: 10, right: 90, bottom: 10, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
          <XAxis
            type="number"
            dataKey="x"
            domain={[-0.5, judges.length - 0.5]}
            ticks={judges.map((_, i) => i)}
            tickFormatter={(i: number) => judges[i] ?? ""}
            tick={{ fontSize: 11 }}
          />
          <YAxis type="number" dataKey="y" domain={scale} tick={{ fontSize: 11 }} allowDecimals />
          <ZAxis range={[50, 50]} />
          <Tooltip
            formatter={(v) => (typeof v === "number" ? v.toFixed(2) : String(v))}
            labelFormatter={() => ""}
            cursor={{ strokeDasharray: "3 3" }}
          />
          <ReferenceLine
            y={threshold}
            stroke="#dc2626"
            strokeDasharray="6 3"
            label={{ value: `threshold ${threshold}`, position: "right", fontSize: 11, fill: "#dc2626" }}
          />
          {panelMean !== null && (
            <ReferenceLine
              y={panelMean}
              stroke="#4f46e5"
              label={{
                value: `panel ${panelMean.toFixed(2)}`,
                position: "right",
                fontSize: 11,
                fill: "#4f46e5",
              }}
            />
          )}
          <Scatter name="samples" data={dots} fill="#6366f1" fillOpacity={0.55} />
          <Scatter name="judge mean" data={meanMarks} fill="#111827" shape="diamond" />
        </ScatterChart>
      </ResponsiveContainer>
    </div>
  );
}
