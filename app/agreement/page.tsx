import Link from "next/link";
import { connection } from "next/server";
import { ImportForm } from "@/components/agreement/import-form";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import { getDb } from "@/db/client";
import { listAgreementSets } from "@/db/queries/agreement";
import { listLabelledRuns } from "@/db/queries/labels";
import { readEnv } from "@/lib/env/registry";

const KIND: Record<string, string> = {
  trec: "TREC qrels",
  llmbar: "LLMBar",
  jsonl: "JSONL",
  pairwise: "pairwise audit",
};
const when = (d: Date) => d.toISOString().replace("T", " ").slice(0, 16);

export default async function AgreementPage() {
  await connection();
  const db = getDb();
  const sets = await listAgreementSets(db);
  const runs = await listLabelledRuns(db);
  return (
    <div className="space-y-4">
      <PageTitle>Agreement</PageTitle>
      <p className="-mt-2 text-sm text-zinc-600">
        Judges against people and against published data: accuracy, Cohen&apos;s κ, quadratic-weighted κ and
        Krippendorff&apos;s α against gold labels, the confusion matrix and the disagreements, and the
        position-bias audit of pairwise judges. Every figure says on how many items it rests, with a 95%
        interval.
      </p>
      <Card title="Runs with labels" testId="labelled-runs">
        {runs.length === 0 ? (
          <p className="text-sm text-zinc-600">
            No run has labels yet. Label verdicts on a run page (Pass / Fail, keys y and n), or{" "}
            <code>jury agreement label &lt;run&gt; &lt;case&gt; &lt;criterion&gt; pass|fail</code>.
          </p>
        ) : (
          <ScrollTable label="Runs with labels" testId="labelled-runs-scroll">
            <table className="w-full min-w-[32rem] text-left text-sm">
              <TableHead
                columns={[
                  "Run",
                  "Suite",
                  "Status",
                  { label: "Labelled cells", title: "case × criterion verdicts a person labelled, of all" },
                  "Last labelled",
                ]}
              />
              <tbody>
                {runs.map((r) => (
                  <tr key={r.runId} className="border-t border-zinc-100">
                    <td className="sticky left-0 bg-white pr-2">
                      <Link
                        className="font-mono text-xs text-indigo-700 underline"
                        href={`/agreement/${r.runId}`}
                      >
                        {r.runId}
                      </Link>
                    </td>
                    <td>{r.suiteName}</td>
                    <td>{r.status.replaceAll("_", " ")}</td>
                    <td>
                      {r.labels} of {r.cells}
                    </td>
                    <td className="text-xs text-zinc-600">{when(r.lastLabelledAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        )}
      </Card>
      <Card title="Imports and pairwise audits" testId="agreement-sets">
        {sets.length === 0 ? (
          <EmptyState title="Nothing imported yet">
            Import published judgments below, or from the CLI:{" "}
            <code>jury agreement import trec gold.qrels judge.qrels</code>,{" "}
            <code>{"jury agreement import llmbar evaluators/*/*/result.json --dataset dataset.json"}</code>.
            Audit a pairwise criterion with{" "}
            <code>jury agreement pairwise examples/agreement/pairwise --judges …</code>.
          </EmptyState>
        ) : (
          <ScrollTable label="Imports and pairwise audits" testId="agreement-sets-scroll">
            <table className="w-full min-w-[36rem] text-left text-sm">
              <TableHead
                columns={["Import", "Kind", "Name", { label: "Items", align: "right" }, "Judges", "Created"]}
              />
              <tbody>
                {sets.map((s) => (
                  <tr key={s.id} className="border-t border-zinc-100" data-testid={`set-${s.id}`}>
                    <td className="sticky left-0 bg-white pr-2">
                      <Link
                        className="font-mono text-xs text-indigo-700 underline"
                        href={`/agreement/${s.id}`}
                      >
                        {s.id}
                      </Link>
                    </td>
                    <td>{KIND[s.kind] ?? s.kind}</td>
                    <td className="break-words">{s.name}</td>
                    <td className="text-right">{s.items}</td>
                    <td className="text-xs">
                      {s.judges.length <= 3 ? (
                        <span className="font-mono">{s.judges.join(", ")}</span>
                      ) : (
                        <details>
                          <summary className="cursor-pointer">{s.judges.length} judges</summary>
                          <span className="font-mono break-words">{s.judges.join(", ")}</span>
                        </details>
                      )}
                    </td>
                    <td className="text-xs text-zinc-600">{when(s.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        )}
      </Card>
      <Card title="Import judgments" testId="agreement-import">
        <ImportForm maxBytes={readEnv("JURY_UPLOAD_MAX_BYTES")} />
      </Card>
    </div>
  );
}
