import type { ReactNode } from "react";

export type Column = string | { label: ReactNode; title?: string; key?: string };

/** A table's header row in the dashboard's style; a column may carry a tooltip saying what it means. */
export function TableHead({ columns }: { columns: Column[] }) {
  return (
    <thead className="text-xs text-zinc-500">
      <tr>
        {columns.map((c) =>
          typeof c === "string" ? (
            <th key={c} className="font-medium">
              {c}
            </th>
          ) : (
            <th key={c.key ?? String(c.label)} className="font-medium" title={c.title}>
              {c.label}
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}
