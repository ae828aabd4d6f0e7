import type { Confusion, Figure } from "@/lib/agreement/metrics";

/** What a figure's interval is: Wilson for a proportion, a percentile bootstrap over items otherwise. */
const METHOD: Record<Figure["method"], string> = {
  wilson: "95% Wilson interval",
  bootstrap: "95% percentile bootstrap over items",
};

/** A figure as "0.62 [0.41–0.80] n=24", or a percentage; "—" with n where it is undefined. */
export function FigureCell({
  f,
  percent = false,
  testId,
}: {
  f: Figure | null | undefined;
  percent?: boolean;
  testId?: string;
}) {
  if (!f) return <span className="text-zinc-400">—</span>;
  const fmt = (x: number) => (percent ? `${(x * 100).toFixed(percent ? 1 : 0)}%` : x.toFixed(2));
  if (f.value === null)
    return (
      <span
        className="text-zinc-500"
        data-testid={testId}
        title="undefined on these items (e.g. every item in one category)"
      >
        — <span className="text-xs">n={f.n}</span>
      </span>
    );
  return (
    <span title={METHOD[f.method]} data-testid={testId} data-value={f.value}>
      <span className="font-medium">{fmt(f.value)}</span>
      <span className="text-xs text-zinc-500">
        {f.low !== null && f.high !== null ? ` [${fmt(f.low)}–${fmt(f.high)}]` : " [no interval]"} n={f.n}
      </span>
    </span>
  );
}

/** A confusion matrix: rows the gold label, columns the judge's; the diagonal is agreement. */
export function ConfusionMatrix({
  c,
  passFail,
  caption,
  testId,
}: {
  c: Confusion;
  passFail: boolean;
  caption: string;
  testId?: string;
}) {
  const name = (x: number) => (passFail ? (x === 1 ? "pass" : "fail") : String(x));
  return (
    <table className="text-right text-xs" data-testid={testId}>
      <caption className="mb-1 text-left text-xs text-zinc-600">{caption}</caption>
      <thead>
        <tr>
          <th scope="col" className="pr-2 text-left font-medium text-zinc-500">
            gold ↓ judge →
          </th>
          {c.categories.map((x) => (
            <th key={x} scope="col" className="px-2 font-medium">
              {name(x)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {c.matrix.map((row, i) => (
          <tr key={c.categories[i]}>
            <th scope="row" className="pr-2 text-left font-medium">
              {name(c.categories[i])}
            </th>
            {row.map((v, j) => (
              <td
                key={c.categories[j]}
                className={`px-2 tabular-nums ${i === j ? "bg-green-50 font-semibold" : v > 0 ? "bg-red-50" : "text-zinc-400"}`}
              >
                {v}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A list of ids, cut after `max` with how many more. */
export function IdList({ ids, max = 30 }: { ids: readonly string[]; max?: number }) {
  if (ids.length === 0) return <span className="text-zinc-500">none</span>;
  return (
    <span className="font-mono text-xs">
      {ids.slice(0, max).join(", ")}
      {ids.length > max ? ` … and ${ids.length - max} more` : ""}
    </span>
  );
}
