"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import { isLive, type LiveProgress } from "@/lib/jobs/live";
import { StatusBadge } from "./status-badge";

/** One run as the list shows it; its counters are patched from /api/progress while it is live. */
export type RunsListRow = {
  id: string;
  suite: string;
  judges: string[];
  n: number;
  status: LiveProgress["status"];
  total: number;
  done: number;
  errors: number;
  costUsd: number;
  /** judges with no price: their cost is unknown, never $0 */
  unpriced: string[];
  createdAt: string;
};

/** no sample is newer than this: the list needs the counters only, never the newest samples */
const NO_SAMPLES = "999999999999999";

/**
 * Polls the live runs' progress once a second and patches their rows in place (no page reload);
 * a run that stops keeps its last figures. Runs that are not live are never polled.
 */
function useLiveRows(initial: RunsListRow[]): RunsListRow[] {
  const [rows, setRows] = useState(initial);
  useEffect(() => setRows(initial), [initial]);
  const liveIds = rows
    .filter((r) => isLive(r.status))
    .map((r) => r.id)
    .join(",");
  useEffect(() => {
    if (!liveIds) return;
    let stopped = false;
    const tick = async () => {
      const updates = await Promise.all(
        liveIds.split(",").map(async (id) => {
          try {
            const r = await fetch(`/api/progress/${encodeURIComponent(id)}?cursor=${NO_SAMPLES}`, {
              cache: "no-store",
            });
            return r.ok ? ([id, (await r.json()) as LiveProgress] as const) : undefined;
          } catch {
            return undefined; // the next tick tries again
          }
        }),
      );
      if (stopped) return;
      const by = new Map(updates.filter((u) => u !== undefined));
      if (by.size === 0) return;
      setRows((prev) =>
        prev.map((row) => {
          const p = by.get(row.id);
          return p
            ? { ...row, status: p.status, total: p.total, done: p.done, errors: p.errors, costUsd: p.costUsd }
            : row;
        }),
      );
    };
    const t = setInterval(tick, 1000);
    return () => {
      stopped = true;
      clearInterval(t);
    };
  }, [liveIds]);
  return rows;
}

const money = (r: RunsListRow) =>
  r.unpriced.length
    ? r.costUsd > 0
      ? `$${r.costUsd.toFixed(4)} + unpriced`
      : "unpriced"
    : `$${r.costUsd.toFixed(4)}`;

/**
 * Below md the Run column sticks to the left of the scrolling table, narrow (its id wraps), so the
 * columns beside it stay in view; its background covers what scrolls under it.
 */
const STICKY = "max-md:sticky max-md:left-0 max-md:z-10 max-md:w-28 max-md:min-w-28 max-md:max-w-28";

/** The runs list: status, coverage (samples answered of planned), failures and cost in their own aligned columns. */
export function RunsTable({ rows: initial }: { rows: RunsListRow[] }) {
  const rows = useLiveRows(initial);
  return (
    <ScrollTable label="Runs">
      <table className="w-full text-left text-sm" data-testid="runs-table">
        <TableHead
          columns={[
            // the run's name stays in view while the rest scrolls beside it (a phone); status,
            // coverage, failures and cost come first, so a phone shows them without scrolling
            { label: "Run", className: `${STICKY} bg-white` },
            "Status",
            { label: "Coverage", align: "right", title: "samples answered, as a share of those planned" },
            { label: "Failed", align: "right", title: "samples that failed (errors, invalid answers)" },
            { label: "Cost", align: "right", title: "every call paid for, retried ones included" },
            {
              label: "Answered",
              align: "right",
              title: "samples answered of the samples planned (failed and pending ones are not answered)",
            },
            "Suite",
            "Judges × N",
            "Started",
          ]}
        />
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} className="border-t border-zinc-100" data-testid={`run-row-${r.id}`}>
              <th scope="row" className={`${STICKY} bg-white py-1 text-left font-normal`}>
                <Link
                  className="font-mono text-xs text-indigo-700 underline [overflow-wrap:anywhere]"
                  href={`/runs/${r.id}`}
                >
                  {r.id}
                </Link>
              </th>
              <td className="whitespace-nowrap">
                <StatusBadge status={r.status} />
              </td>
              <td className="text-right tabular-nums" data-testid="run-coverage-pct">
                {r.total ? `${Math.floor((r.done / r.total) * 100)}%` : "—"}
              </td>
              <td
                className={`text-right tabular-nums ${r.errors ? "text-red-700" : ""}`}
                data-testid="run-failed"
              >
                {r.errors}
              </td>
              <td
                className="whitespace-nowrap text-right tabular-nums"
                data-testid="run-cost"
                title={r.unpriced.length ? `no price for ${r.unpriced.join(", ")}` : undefined}
              >
                {money(r)}
              </td>
              <td className="whitespace-nowrap text-right tabular-nums" data-testid="run-answered">
                {r.done} / {r.total}
              </td>
              <td className="min-w-40">{r.suite}</td>
              <td className="min-w-56 text-xs">
                {r.judges.join(", ")} × {r.n}
              </td>
              <td className="whitespace-nowrap text-xs text-zinc-600">
                {r.createdAt.replace("T", " ").slice(0, 19)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
