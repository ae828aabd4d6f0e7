"use client";

import {
  CartesianGrid,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  type TooltipContentProps,
  useXAxisScale,
  useYAxisScale,
  XAxis,
  YAxis,
  ZAxis,
} from "recharts";
import type { CriterionSpread, Distribution } from "@/lib/runs/score-spreads";
import { type JudgeColorMap, MARK_OUTLINE, PANEL_COLOR, THRESHOLD_COLOR } from "./colors";

/** One box of the chart: a judge's distribution, or the panel's (the last one). */
type Group = { key: string; label: string; color: string; dist: Distribution | null; panel?: boolean };

type Dot = { x: number; y: number; label: string };

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/** "2 · local:a: 6.50" */
function DotTooltip({ active, payload }: TooltipContentProps) {
  const d = active ? (payload?.[0]?.payload as Dot | undefined) : undefined;
  if (!d) return null;
  return (
    <div className="rounded border border-zinc-300 bg-white px-2 py-1 text-xs text-zinc-900 shadow-sm">
      <span className="font-medium">{d.label}</span>: a case scored {fmt(d.y)}
    </div>
  );
}

/** Boxes (quartiles), medians and whiskers (min to max), drawn with the chart's own scales. */
function Boxes({ groups }: { groups: Group[] }) {
  const x = useXAxisScale();
  const y = useYAxisScale();
  if (!x || !y) return null;
  const half = Math.max(6, Math.min(18, ((x(1) ?? 0) - (x(0) ?? 0)) * 0.22));
  return (
    <g data-testid="spread-boxes">
      {groups.map((g, i) => {
        const d = g.dist;
        const cx = x(i);
        if (!d || cx === undefined) return null;
        const [top, q3, med, q1, bottom] = [d.max, d.q3, d.median, d.q1, d.min].map((v) => y(v) ?? 0);
        return (
          <g key={g.key} data-box={g.key}>
            <line x1={cx} x2={cx} y1={top} y2={q3} stroke={MARK_OUTLINE} />
            <line x1={cx} x2={cx} y1={q1} y2={bottom} stroke={MARK_OUTLINE} />
            <line x1={cx - half / 2} x2={cx + half / 2} y1={top} y2={top} stroke={MARK_OUTLINE} />
            <line x1={cx - half / 2} x2={cx + half / 2} y1={bottom} y2={bottom} stroke={MARK_OUTLINE} />
            <rect
              x={cx - half}
              y={q3}
              width={half * 2}
              height={Math.max(1, q1 - q3)}
              fill={g.color}
              fillOpacity={g.panel ? 0.85 : 0.45}
              stroke={MARK_OUTLINE}
            />
            <line
              x1={cx - half}
              x2={cx + half}
              y1={med}
              y2={med}
              stroke={g.panel ? "#ffffff" : MARK_OUTLINE}
              strokeWidth={2.5}
            />
          </g>
        );
      })}
    </g>
  );
}

/** What a group rests on: "5 of 5 cases · 10 of 10 samples answered (2 failed)". */
function restsOn(spread: CriterionSpread, key: string): string {
  if (key === "panel") return `${spread.panel.cases} of ${spread.casesAsked} cases with a judge's answer`;
  const j = spread.judges.find((x) => x.judge === key);
  if (!j) return "";
  return `${j.cases} of ${spread.casesAsked} cases · ${j.samplesAnswered} of ${j.samplesAsked} samples answered${j.samplesFailed ? ` (${j.samplesFailed} failed)` : ""}`;
}

const summary = (d: Distribution | null) =>
  d
    ? `median ${fmt(d.median)}, middle half ${fmt(d.q1)}–${fmt(d.q3)}, range ${fmt(d.min)}–${fmt(d.max)}`
    : "no score yet";

/**
 * One criterion across a run: for each judge (its colour, the same on every page) the distribution
 * of its per-case scores over the run's cases, as a box (quartiles, median, min–max whiskers) with
 * each case a dot, and the panel's per-case score beside them in the panel's near-black. Groups are
 * numbered on the axis; the legend below names each, says what it rests on and reads its box out.
 */
export function ScoreSpreadChart({
  spread,
  colors,
  testId,
}: {
  spread: CriterionSpread;
  colors: JudgeColorMap;
  testId?: string;
}) {
  const groups: Group[] = [
    ...spread.judges.map((j) => ({
      key: j.judge,
      label: j.judge,
      color: colors[j.judge] ?? PANEL_COLOR,
      dist: j.dist,
    })),
    {
      key: "panel",
      label: "the judges' mean, per case",
      color: PANEL_COLOR,
      dist: spread.panel.dist,
      panel: true,
    },
  ];
  const tick = (i: number) => (i === groups.length - 1 ? "panel" : String(i + 1));
  // cases side by side: each dot of a group a little apart, so equal scores stay visible
  const dotsOf = (g: Group, i: number): Dot[] =>
    (g.dist?.values ?? []).map((v, k, all) => ({
      x: i + (all.length > 1 ? (k / (all.length - 1) - 0.5) * 0.36 : 0),
      y: v,
      label: `${tick(i)} · ${g.label}`,
    }));
  const { scale } = spread;
  const threshold = spread.threshold;
  return (
    <figure data-testid={testId ?? "score-spread"} data-criterion={spread.criterionId} className="min-w-0">
      <figcaption className="text-sm font-medium">
        {spread.criterionId}{" "}
        <span className="text-xs font-normal text-zinc-600">
          (scale {scale[0]}–{scale[1]},{" "}
          {threshold === null
            ? `thresholds ${spread.thresholds[0]}–${spread.thresholds[1]} by case`
            : `threshold ${threshold}`}
          )
        </span>
      </figcaption>
      {/* recharts makes the chart focusable for its keyboard tooltips; the legend below reads it out */}
      <div className="h-56 w-full">
        <ResponsiveContainer width="100%" height="100%">
          <ScatterChart margin={{ top: 8, right: 8, bottom: 4, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
            <XAxis
              type="number"
              dataKey="x"
              domain={[-0.5, groups.length - 0.5]}
              ticks={groups.map((_, i) => i)}
              tickFormatter={tick}
              tick={{ fontSize: 11, fill: "#3f3f46" }}
              interval={0}
            />
            <YAxis
              type="number"
              dataKey="y"
              domain={scale}
              allowDataOverflow
              tick={{ fontSize: 11, fill: "#3f3f46" }}
              allowDecimals={false}
            />
            <ZAxis range={[28, 28]} />
            <Tooltip content={DotTooltip} cursor={{ strokeDasharray: "3 3" }} />
            {threshold !== null && (
              <ReferenceLine y={threshold} stroke={THRESHOLD_COLOR} strokeDasharray="6 3" />
            )}
            <Boxes groups={groups} />
            {groups.map((g, i) => (
              <Scatter
                key={g.key}
                name={g.label}
                data={dotsOf(g, i)}
                fill={g.color}
                stroke={MARK_OUTLINE}
                strokeWidth={1}
                isAnimationActive={false}
              />
            ))}
          </ScatterChart>
        </ResponsiveContainer>
      </div>
      <ol className="mt-1 space-y-0.5 text-xs text-zinc-800" data-testid="spread-legend">
        {groups.map((g, i) => (
          <li
            key={g.key}
            className="flex items-start gap-1.5"
            data-testid="spread-legend-item"
            data-key={g.key}
          >
            <span
              aria-hidden="true"
              className="mt-0.5 inline-block size-3 shrink-0 rounded-sm border"
              style={{ backgroundColor: g.color, borderColor: MARK_OUTLINE }}
              data-color={g.color}
            />
            <span className="min-w-0 [overflow-wrap:anywhere]">
              <span className="font-medium">
                {tick(i)} · {g.label}
              </span>
              : {summary(g.dist)} <span className="text-zinc-600">({restsOn(spread, g.key)})</span>
            </span>
          </li>
        ))}
      </ol>
    </figure>
  );
}
