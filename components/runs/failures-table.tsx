import Link from "next/link";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import type { FailureGroup } from "@/lib/runs/coverage";
import { triageSearch } from "@/lib/runs/triage";

/**
 * A run's failed samples, grouped by judge and kind of error, each with the first message seen and
 * a link to the cells they failed on (the triage view, filtered to that judge's failures).
 */
export function FailuresTable({ failures, runId }: { failures: FailureGroup[]; runId: string }) {
  return (
    <ScrollTable label="Failures by judge and error kind">
      <table className="w-full text-left text-sm" data-testid="run-failures">
        <TableHead
          columns={[
            "Judge",
            "Error",
            { label: "Samples", align: "right" },
            "First message",
            { label: "Cells", title: "the cells this judge failed on, in the verdict table" },
          ]}
        />
        <tbody>
          {failures.map((f) => (
            <tr
              key={`${f.judge}-${f.kind}`}
              className="border-t border-zinc-100 align-top"
              data-testid="failure-group"
            >
              <td className="pr-3">
                <code className="text-xs">{f.judge}</code>
              </td>
              <td className="pr-3 font-medium text-red-800">{f.kind}</td>
              <td className="pr-3 text-right tabular-nums">{f.count}</td>
              <td className="break-all text-xs text-zinc-600">{f.example.slice(0, 300)}</td>
              <td className="whitespace-nowrap text-xs">
                <Link
                  className="text-indigo-700 underline"
                  data-testid="failure-cells"
                  href={`/runs/${runId}${triageSearch({ status: "failed", judge: f.judge, criterion: null, sort: "case" })}#verdicts`}
                >
                  show cells
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
