"use client";

import {
  CartesianGrid,
  Legend,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
  ZAxis,
} from "recharts";
import {
  type JudgeColorMap,
  judgeColors,
  LEGEND_TEXT,
  MARK_OUTLINE,
  PANEL_COLOR,
  THRESHOLD_COLOR,
} from "./colors";

export type SpreadPoint = { judge: string; score: number; sample: number };

type Props = {
  judges: string[];
  samples: SpreadPoint[];
  means: { judge: string; mean: number }[];
  panelMean: number | null;
  threshold: number;
  scale: [number, number];
  /** the page's judge colours (colors.ts), so this chart agrees with the page's other charts */
  colors?: JudgeColorMap;
};

type Dot = { x: number; y: number; judge: string; sample?: number; mean?: boolean };

/** "local:a · sample 2: 7" or "local:a · mean of its samples: 6.50" */
function SpreadTooltip({ active, payload }: TooltipContentProps) {
  const d = active ? (payload?.[0]?.payload as Dot | undefined) : undefined;
  if (!d) return null;
  return (
    <div className="rounded border border-zinc-300 bg-white px-2 py-1 text-xs text-zinc-900 shadow-sm">
      <span className="font-medium">{d.judge}</span>
      {d.mean ? ` · mean of its samples: ${d.y.toFixed(2)}` : ` · sample ${(d.sample ?? 0) + 1}: ${d.y}`}
    </div>
  );
}

/**
 * Each judge's N samples (dots in the judge's own colour, the same on every page, outlined) and its mean
 * (a diamond), the panel mean and the threshold. The two lines' labels sit at opposite ends, so
 * they never overlap however close the two values are.
 */
export function SpreadChart({ judges, samples, means, panelMean, threshold, scale, colors: given }: Props) {
  const x = (j: string) => judges.indexOf(j);
  const colors = given ?? judgeColors(judges);
  // jitter samples sideways so equal scores stay visible
  const dotsOf = (j: string): Dot[] =>
    samples
      .filter((s) => s.judge === j)
      .map((s) => ({ x: x(j) + ((s.sample % 5) - 2) * 0.06, y: s.score, judge: j, sample: s.sample }));
  const meanMarks: Dot[] = means.map((m) => ({ x: x(m.judge), y: m.mean, judge: m.judge, mean: true }));
  // the label of the higher line goes above it, the lower one's below (for a line, recharts' insideBottom*
  // draws above it and insideTop* below), at opposite ends: they never cross
  const panelAbove = panelMean !== null && panelMean >= threshold;
  return (
    <div data-testid="spread-chart" className="h-80 w-full">
      <ResponsiveContainer width="100%" height="100%">
        <ScatterChart margin={{ top: 10, right: 16, bottom: 24, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
          <XAxis
            type="number"
            dataKey="x"
            domain={[-0.5, judges.length - 0.5]}
            ticks={judges.map((_, i) => i)}
            tickFormatter={(i: number) => judges[i] ?? ""}
            tick={{ fontSize: 11, fill: "#3f3f46" }}
            interval={0}
            label={{ value: "judge", position: "insideBottom", offset: -14, fontSize: 11, fill: "#3f3f46" }}
          />
          <YAxis
            type="number"
            dataKey="y"
            domain={scale}
            tick={{ fontSize: 11, fill: "#3f3f46" }}
            allowDecimals
            label={{
              value: `score (${scale[0]}–${scale[1]})`,
              angle: -90,
              position: "insideLeft",
              fontSize: 11,
              fill: "#3f3f46",
              style: { textAnchor: "middle" },
            }}
          />
          <ZAxis range={[50, 50]} />
          <Tooltip content={SpreadTooltip} cursor={{ strokeDasharray: "3 3" }} />
          <Legend
            verticalAlign="top"
            height={28}
            wrapperStyle={{ fontSize: 11 }}
            formatter={(value) => <span style={{ color: LEGEND_TEXT }}>{value}</span>}
          />
          <ReferenceLine
            y={threshold}
            stroke={THRESHOLD_COLOR}
            strokeDasharray="6 3"
            label={{
              value: `threshold ${threshold}`,
              position: panelAbove ? "insideTopRight" : "insideBottomRight",
              fontSize: 11,
              fill: "#b91c1c",
            }}
          />
          {panelMean !== null && (
            <ReferenceLine
              y={panelMean}
              stroke={PANEL_COLOR}
              label={{
                value: `panel mean ${panelMean.toFixed(2)}`,
                position: panelAbove ? "insideBottomLeft" : "insideTopLeft",
                fontSize: 11,
                fill: PANEL_COLOR,
              }}
            />
          )}
          {judges.map((j) => (
            <Scatter
              key={j}
              name={j}
              data={dotsOf(j)}
              fill={colors[j]}
              fillOpacity={0.85}
              stroke={MARK_OUTLINE}
              strokeWidth={1}
              legendType="circle"
            />
          ))}
          <Scatter
            name="judge mean"
            data={meanMarks}
            fill={PANEL_COLOR}
            shape="diamond"
            legendType="diamond"
          />
        </ScatterChart>
      </ResponsiveContainer>
    </div>
  );
}
