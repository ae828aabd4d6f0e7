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

/** One row per criterion: id, type, scale, default threshold and version in their own aligned columns. */
export function CriteriaTable({ rows }: { rows: CriterionRow[] }) {
  return (
    <ScrollTable label="Criteria">
      <table className="w-full text-left text-sm" data-testid="criteria-table">
        <TableHead
          columns={[
            "Criterion",
            "Type",
            { label: "Scale", align: "right" },
            { label: "Default threshold", align: "right", title: "a verdict passes at or above it" },
            { label: "Version", align: "right" },
            { label: "Description", className: "min-w-[16rem]" },
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
              </td>
              <td className="py-1.5" data-testid="criterion-type">
                <span
                  className={`rounded px-1.5 py-0.5 text-xs ${c.type === "llm" ? "bg-indigo-50 text-indigo-800" : "bg-zinc-100 text-zinc-800"}`}
                >
                  {c.type === "llm" ? "LLM" : "deterministic"}
                </span>
              </td>
              <td className={`py-1.5 ${num}`} data-testid="criterion-scale">
                {c.scale[0]}–{c.scale[1]}
              </td>
              <td className={`py-1.5 ${num}`} data-testid="criterion-threshold">
                {c.threshold}
              </td>
              <td className={`py-1.5 ${num}`} data-testid="criterion-version">
                {c.version}
              </td>
              <td className="py-1.5">
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
