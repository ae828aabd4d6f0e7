import Link from "next/link";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";

/** What the list shows of one criterion (from lib/criteria: the page passes plain data). */
export type CriterionRow = {
  id: string;
  name: string;
  type: "llm" | "deterministic";
  scale: [number, number];
  threshold: number;
  version: string;
  description: string;
  tags: string[];
};

const num = "text-right tabular-nums whitespace-nowrap";
/** a column shown from 640 px up; below, its value sits under the criterion's name */
const wide = "hidden sm:table-cell";

function TypeBadge({ type }: { type: CriterionRow["type"] }) {
  return (
    <span
      className={`rounded px-1.5 py-0.5 text-xs ${type === "llm" ? "bg-indigo-50 text-indigo-800" : "bg-zinc-100 text-zinc-800"}`}
    >
      {type === "llm" ? "LLM" : "deterministic"}
    </span>
  );
}

/**
 * One row per criterion: id, type, scale, default threshold and version in their own aligned
 * columns. On a phone each row stacks instead: the name, then "LLM · 1–10 · threshold 6 · v1.0",
 * then the description.
 */
export function CriteriaTable({ rows }: { rows: CriterionRow[] }) {
  return (
    <ScrollTable label="Criteria">
      <table className="w-full text-left text-sm" data-testid="criteria-table">
        <TableHead
          columns={[
            "Criterion",
            { label: "Type", className: wide },
            { label: "Scale", align: "right", className: wide },
            {
              label: "Default threshold",
              align: "right",
              title: "a verdict passes at or above it",
              className: wide,
            },
            { label: "Version", align: "right", className: wide },
            { label: "Description", className: `${wide} min-w-[16rem]` },
          ]}
        />
        <tbody>
          {rows.map((c) => (
            <tr
              key={c.id}
              className="border-t border-zinc-100 align-top"
              data-testid={`criterion-row-${c.id}`}
            >
              <td className="py-1.5">
                <Link
                  href={`/criteria/${c.id}`}
                  className="font-mono text-xs text-indigo-700 underline"
                  data-testid="criterion-link"
                >
                  {c.id}
                </Link>
                <div className="text-xs text-zinc-600">{c.name}</div>
                <div
                  className="mt-1 space-y-1 text-xs text-zinc-700 sm:hidden"
                  data-testid="criterion-summary"
                >
                  <div className="flex flex-wrap items-center gap-x-2 tabular-nums">
                    <TypeBadge type={c.type} />
                    <span>
                      {c.scale[0]}–{c.scale[1]}
                    </span>
                    <span>threshold {c.threshold}</span>
                    <span>v{c.version}</span>
                  </div>
                  <div>{c.description}</div>
                </div>
              </td>
              <td className={`py-1.5 ${wide}`} data-testid="criterion-type">
                <TypeBadge type={c.type} />
              </td>
              <td className={`py-1.5 ${num} ${wide}`} data-testid="criterion-scale">
                {c.scale[0]}–{c.scale[1]}
              </td>
              <td className={`py-1.5 ${num} ${wide}`} data-testid="criterion-threshold">
                {c.threshold}
              </td>
              <td className={`py-1.5 ${num} ${wide}`} data-testid="criterion-version">
                {c.version}
              </td>
              <td className={`py-1.5 ${wide}`}>
                {c.description}
                {c.tags.length > 0 && (
                  <div className="mt-0.5 text-xs text-zinc-600">{c.tags.join(" · ")}</div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
