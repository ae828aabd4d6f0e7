import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import type { FailureGroup } from "@/lib/runs/coverage";

/** A run's failed samples, grouped by judge and kind of error, each with the first message seen. */
export function FailuresTable({ failures }: { failures: FailureGroup[] }) {
  return (
    <ScrollTable label="Failures by judge and error kind">
      <table className="w-full text-left text-sm" data-testid="run-failures">
        <TableHead columns={["Judge", "Error", "Samples", "First message"]} />
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
              <td className="pr-3 tabular-nums">{f.count}</td>
              <td className="break-all text-xs text-zinc-600">{f.example.slice(0, 300)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
