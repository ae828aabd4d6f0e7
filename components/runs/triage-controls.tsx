"use client";

import { usePathname, useRouter } from "next/navigation";
import { useTransition } from "react";
import {
  type TriageQuery,
  type TriageStatus,
  triageSearch,
  triageSortLabels,
  triageSorts,
  triageStatuses,
  triageStatusLabels,
} from "@/lib/runs/triage";

type Props = {
  query: TriageQuery;
  counts: Record<TriageStatus, number>;
  judges: string[];
  criteria: string[];
  /** the selected cell's params, kept through a filter change */
  keep?: { case?: string; criterion?: string };
};

const statusHelp: Record<TriageStatus, string> = {
  all: "every case × criterion cell",
  failed: "cells with a failed sample (an error, a refusal, an answer that was not valid)",
  fail: "cells whose verdict is FAIL",
  flagged: "cells flagged for review: the judges disagree beyond the panel's consensus threshold",
  unstable: "cells whose samples fall on both sides of the threshold",
  "low-coverage": "cells with fewer samples answered than asked",
};

/**
 * The triage view's controls: status toggles (aria-pressed, with their counts), judge, criterion
 * and sort. Each change goes to the URL, so a filtered view can be linked; the selected cell stays.
 */
export function TriageControls({ query, counts, judges, criteria, keep = {} }: Props) {
  const router = useRouter();
  const pathname = usePathname();
  const [pending, start] = useTransition();
  const go = (patch: Partial<TriageQuery>) =>
    start(() =>
      router.replace(`${pathname}${triageSearch({ ...query, ...patch }, keep)}`, { scroll: false }),
    );
  const select = "rounded border border-zinc-300 bg-white px-2 py-1 text-sm";
  return (
    <div className="mb-3 space-y-2" data-testid="triage-controls" aria-busy={pending}>
      <fieldset className="flex flex-wrap items-center gap-1.5">
        <legend className="sr-only">Show cells</legend>
        <span aria-hidden className="mr-1 text-xs font-medium text-zinc-700">
          Show
        </span>
        {triageStatuses.map((s) => {
          const on = query.status === s;
          return (
            <button
              key={s}
              type="button"
              aria-pressed={on}
              title={statusHelp[s]}
              data-testid={`triage-status-${s}`}
              onClick={() => go({ status: s })}
              className={`rounded border px-2 py-0.5 text-xs ${on ? "border-indigo-700 bg-indigo-700 text-white" : "border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50"}`}
            >
              {triageStatusLabels[s]} <span className="tabular-nums">({counts[s]})</span>
            </button>
          );
        })}
      </fieldset>
      <div className="flex flex-wrap items-center gap-3 text-xs">
        <label className="flex items-center gap-1 font-medium text-zinc-700">
          Judge
          <select
            className={select}
            data-testid="triage-judge"
            value={query.judge ?? ""}
            onChange={(e) => go({ judge: e.currentTarget.value || null })}
          >
            <option value="">the panel</option>
            {judges.map((j) => (
              <option key={j} value={j}>
                {j}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1 font-medium text-zinc-700">
          Criterion
          <select
            className={select}
            data-testid="triage-criterion"
            value={query.criterion ?? ""}
            onChange={(e) => go({ criterion: e.currentTarget.value || null })}
          >
            <option value="">all</option>
            {criteria.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1 font-medium text-zinc-700">
          Sort cases by
          <select
            className={select}
            data-testid="triage-sort"
            value={query.sort}
            onChange={(e) => go({ sort: e.currentTarget.value as TriageQuery["sort"] })}
          >
            {triageSorts.map((s) => (
              <option key={s} value={s}>
                {triageSortLabels[s]}
              </option>
            ))}
          </select>
        </label>
        {(query.status !== "all" || query.judge || query.criterion || query.sort !== "case") && (
          <button
            type="button"
            data-testid="triage-clear"
            onClick={() => go({ status: "all", judge: null, criterion: null, sort: "case" })}
            className="text-indigo-700 underline"
          >
            clear
          </button>
        )}
      </div>
    </div>
  );
}
