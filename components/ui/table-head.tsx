import type { ReactNode } from "react";

export type Column =
  | string
  | {
      label: ReactNode;
      title?: string;
      key?: string;
      /** numbers read best right-aligned, under a right-aligned header */
      align?: "left" | "right";
      className?: string;
    };

/**
 * A table's header row in the dashboard's style; a column may carry a tooltip saying what it means.
 * On a narrow screen wrap the table in <ScrollTable> (components/ui/scroll-table.tsx): it scrolls
 * inside the page instead of widening it. Columns are spaced by globals.css (`th`, `td` padding).
 */
export function TableHead({ columns }: { columns: Column[] }) {
  return (
    <thead className="text-xs text-zinc-600">
      <tr>
        {columns.map((c) =>
          typeof c === "string" ? (
            <th key={c} scope="col" className="pb-1 font-medium">
              {c}
            </th>
          ) : (
            <th
              key={c.key ?? String(c.label)}
              scope="col"
              className={`pb-1 font-medium ${c.align === "right" ? "text-right" : ""} ${c.className ?? ""}`}
              title={c.title}
            >
              {c.label}
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}
