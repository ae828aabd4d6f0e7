import Link from "next/link";
import { connection } from "next/server";
import { ImportExampleButton } from "@/components/memory/import-example-button";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import { getDb } from "@/db/client";
import { listStudies } from "@/db/queries/study";

export default async function MemoryPage() {
  await connection();
  const studies = await listStudies(getDb());
  return (
    <div className="space-y-4">
      <PageTitle actions={<ImportExampleButton />}>Memory study</PageTitle>
      <p className="-mt-2 text-sm text-zinc-600">
        Measure the memory-retrieval pipeline (FTS5 BM25, then an optional LLM judge) before you ship it as
        the Claude Code hook: annotate ground truth per query, run configurations, compare precision, recall,
        latency and cost.
      </p>
      {studies.length === 0 ? (
        <EmptyState title="No memories yet" testId="memory-empty">
          Import the example study above, or from the CLI:{" "}
          <code>npx jury memory import-study examples/memory-study --collection shop-api</code>,{" "}
          <code>npx jury memory import-beir &lt;dir&gt; --collection name</code>, or{" "}
          <code>npx jury memory import &lt;folder&gt;</code> for the hook&apos;s own memories (collection{" "}
          <code>default</code>).
        </EmptyState>
      ) : (
        <Card>
          <ScrollTable label="Studies">
            <table className="w-full text-left text-sm" data-testid="studies-table">
              <TableHead
                columns={[
                  "Collection",
                  "Memories",
                  "Study queries",
                  { label: "Need annotation", title: "queries without labels: left out of every metric" },
                  { label: "Labels", title: "where the labels come from and how an unjudged item counts" },
                  "Experiments",
                ]}
              />
              <tbody>
                {studies.map((s) => (
                  <tr key={s.collection} className="border-t border-zinc-100">
                    <td>
                      <Link
                        className="text-indigo-700 underline"
                        href={`/memory/${encodeURIComponent(s.collection)}`}
                      >
                        {s.collection}
                      </Link>
                    </td>
                    <td className="tabular-nums">{s.memories}</td>
                    <td className="tabular-nums">{s.queries}</td>
                    <td className="tabular-nums">{s.needsAnnotation}</td>
                    <td className="text-xs">
                      {s.origin === null
                        ? "—"
                        : `${s.origin === "example" ? "example" : s.origin === "human" ? "annotated in Jury" : s.origin} · ${s.labelConvention === "qrels" ? "unjudged = not relevant" : "unjudged = needs annotation"}`}
                    </td>
                    <td className="tabular-nums">{s.experiments}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        </Card>
      )}
    </div>
  );
}
