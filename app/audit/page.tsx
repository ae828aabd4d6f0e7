import Link from "next/link";
import { connection } from "next/server";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import { getDb } from "@/db/client";
import { listAudit } from "@/db/queries/users";
import { actionWords, describeAudit } from "@/lib/audit/export";

/** Entries a page shows. */
const PAGE = 100;

const when = (d: Date) => `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;

/** `?before=<id>`: the page of entries older than that one. */
function beforeOf(raw: string | string[] | undefined): number | undefined {
  const n = typeof raw === "string" && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
  return n !== undefined && n > 0 ? n : undefined;
}

/** The audit log, newest first, a page at a time (admins only: proxy.ts refuses anyone else). */
export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await connection();
  const before = beforeOf((await searchParams).before);
  const found = await listAudit(getDb(), { limit: PAGE + 1, before });
  const entries = found.slice(0, PAGE);
  const older = found.length > PAGE ? entries[entries.length - 1].id : undefined;
  const exports = (
    <div className="flex gap-3 text-sm">
      <a href="/audit/export?format=csv" className="text-indigo-700 underline" data-testid="audit-export-csv">
        Export CSV
      </a>
      <a
        href="/audit/export?format=jsonl"
        className="text-indigo-700 underline"
        data-testid="audit-export-jsonl"
      >
        Export JSON Lines
      </a>
    </div>
  );
  return (
    <div className="space-y-4">
      <PageTitle actions={entries.length > 0 ? exports : undefined}>Audit log</PageTitle>
      {entries.length === 0 ? (
        <EmptyState title={before ? "No older entries" : "Nothing recorded yet"} testId="audit-empty">
          {before ? (
            <>
              The log has nothing before this point. <Link href="/audit">Back to the newest entries</Link>.
            </>
          ) : (
            <>
              Who changed what lands here: each settings save (which settings, before and after; a key's
              variable only as changed), each promotion to the hook or a criterion's panel, and each user
              added, removed, given a new token or a new role (<code>jury users</code>). Entries are never
              changed or deleted. From the CLI: <code>jury audit</code>.
            </>
          )}
        </EmptyState>
      ) : (
        <Card
          title={`${before ? "Older" : "The newest"} ${entries.length === 1 ? "entry" : `${entries.length} entries`}${older ? ` (${PAGE} a page)` : ""}`}
        >
          <ScrollTable label="Audit log">
            <table className="w-full text-left text-sm" data-testid="audit-table">
              <TableHead columns={["When", "Who", "What", "Target", "Changed"]} />
              <tbody>
                {entries.map((e) => (
                  <tr key={e.id} className="border-t border-zinc-100 align-top" data-testid="audit-row">
                    <td className="whitespace-nowrap text-xs text-zinc-500 tabular-nums">{when(e.at)}</td>
                    <td data-testid="audit-actor">{e.actor}</td>
                    <td data-testid="audit-action" title={e.action}>
                      {actionWords(e.action)}
                    </td>
                    <td className="break-all">{e.target ?? "—"}</td>
                    <td className="break-words text-xs" data-testid="audit-detail">
                      {describeAudit(e)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
          <nav aria-label="Audit log pages" className="mt-3 flex gap-4 text-sm">
            {before !== undefined && (
              <Link href="/audit" className="text-indigo-700 underline">
                Newest
              </Link>
            )}
            {older !== undefined && (
              <Link
                href={`/audit?before=${older}`}
                className="text-indigo-700 underline"
                data-testid="audit-older"
              >
                Older
              </Link>
            )}
          </nav>
        </Card>
      )}
    </div>
  );
}
