import { CriteriaTable } from "@/components/criteria/criteria-table";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
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
        <code>README.md</code> (and a <code>logic.ts</code> for deterministic ones). {list.length} loaded
        {errors.length > 0 && `, ${new Set(errors.map((e) => e.folder)).size} broken`}. Open one to read its
        prompt and try it on an input of your own.
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
        <EmptyState title="No criteria">
          Add a folder under <code>criteria/</code> with a <code>definition.json</code> (copy{" "}
          <code>criteria/correctness</code> to start), then reload this page.
        </EmptyState>
      ) : (
        <Card>
          <CriteriaTable
            rows={list.map((c) => ({
              id: c.id,
              name: c.name,
              type: c.type,
              scale: c.scoring.scale,
              threshold: c.scoring.default_threshold,
              version: c.version,
              description: c.description,
              tags: c.tags,
            }))}
          />
        </Card>
      )}
    </div>
  );
}
