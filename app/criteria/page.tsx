import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { TableHead } from "@/components/ui/table-head";
import { loadProjectCriteria } from "@/lib/criteria/load";

export const dynamic = "force-dynamic";

export default function CriteriaPage() {
  const { criteria, errors } = loadProjectCriteria();
  const list = [...criteria.values()].sort((a, b) => a.id.localeCompare(b.id));
  return (
    <div className="space-y-4">
      <PageTitle>Criteria</PageTitle>
      <p className="-mt-2 text-sm text-zinc-600">
        Each criterion is a folder under <code>criteria/</code> with a <code>definition.json</code> and a{" "}
        <code>README.md</code>
        (and a <code>logic.ts</code> for deterministic ones). {list.length} loaded
        {errors.length > 0 && `, ${new Set(errors.map((e) => e.folder)).size} broken`}.
      </p>
      {errors.length > 0 && (
        <Card title="Definitions that did not load (the others still run)" testId="criteria-errors">
          <ul className="space-y-1 text-sm">
            {errors.map((e) => (
              <li key={`${e.folder}-${e.field}-${e.message}`} className="text-red-700">
                <code>criteria/{e.folder}</code> · <code>{e.field}</code>: {e.message}
              </li>
            ))}
          </ul>
        </Card>
      )}
      {list.length === 0 ? (
        <EmptyState title="No criteria">Add a folder under criteria/ with a definition.json.</EmptyState>
      ) : (
        <Card>
          <table className="w-full text-left text-sm" data-testid="criteria-table">
            <TableHead columns={["Id", "Type", "Scale", "Default threshold", "Description", "Tags"]} />
            <tbody>
              {list.map((c) => (
                <tr key={c.id} className="border-t border-zinc-100 align-top">
                  <td className="py-1 font-mono text-xs">{c.id}</td>
                  <td>{c.type}</td>
                  <td className="tabular-nums">
                    {c.scoring.scale[0]}–{c.scoring.scale[1]}
                  </td>
                  <td className="tabular-nums">{c.scoring.default_threshold}</td>
                  <td>{c.description}</td>
                  <td className="text-xs text-zinc-500">{c.tags.join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      )}
    </div>
  );
}
