import Link from "next/link";
import { connection } from "next/server";
import { type ReviewJobItem, ReviewWorkbench } from "@/components/reviews/review-workbench";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import { getDb } from "@/db/client";
import { listReviews, listUnstoredReviewJobs } from "@/db/queries/reviews";
import { maxFileBytes } from "@/lib/read-text";
import { DIMENSIONS } from "@/lib/review/judgment";
import { enabledJudges, type Settings } from "@/lib/settings/schema";
import { readSettings } from "@/lib/settings/store";

const verdictCls = {
  pass: "bg-green-100 text-green-800",
  partial: "bg-amber-100 text-amber-800",
  fail: "bg-red-100 text-red-800",
};
const f = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(2));
const when = (d: Date) => d.toISOString().slice(0, 16).replace("T", " ");

/**
 * The judges ticked at first, as `jury review` picks them: the review judges promoted in Settings
 * that are enabled, else every enabled judge.
 */
function defaultReviewJudges(settings: Settings): string[] {
  const enabled = enabledJudges(settings);
  const promoted = settings.reviewJudges.filter((j) => enabled.includes(j));
  return promoted.length ? promoted : enabled;
}

/** Review jobs with no stored review: running ones are followed live, stopped ones say why. */
async function reviewJobItems(db: ReturnType<typeof getDb>): Promise<ReviewJobItem[]> {
  return (await listUnstoredReviewJobs(db)).map((j) => ({
    id: j.id,
    createdAt: when(j.createdAt),
    initial: {
      kind: "review",
      status: j.status,
      total: Math.max(j.total, j.done),
      done: j.done,
      errors: j.errors,
      costUsd: 0,
      startedAt: j.startedAt?.getTime() ?? null,
      latest: [],
      cursor: 0,
      error: j.error,
      stored: false,
    },
  }));
}

export default async function ReviewsPage() {
  await connection();
  const db = getDb();
  const reviews = await listReviews(db);
  const settings = await readSettings(db);
  const jobs = await reviewJobItems(db);
  const ranked = reviews.filter((r) => r.mechanicalScore !== null && r.blendedScore !== null);
  const byMech = [...ranked].sort((a, b) => (b.mechanicalScore ?? 0) - (a.mechanicalScore ?? 0));
  const byBlend = [...ranked].sort((a, b) => (b.blendedScore ?? 0) - (a.blendedScore ?? 0));
  return (
    <div className="space-y-4">
      <PageTitle>Reviews</PageTitle>
      <Card title="Review a change" testId="review-workbench">
        <ReviewWorkbench
          judges={enabledJudges(settings)}
          defaultJudges={defaultReviewJudges(settings)}
          defaultN={settings.judging.samples}
          maxBytes={maxFileBytes()}
          jobs={jobs}
        />
      </Card>
      {reviews.length === 0 ? (
        <EmptyState title="No reviews yet" testId="reviews-empty">
          Review a change with the form above, or from the CLI:{" "}
          <code>npx jury review --repo . --base main --criteria criteria.md --passed 12 --failed 0</code>, or
          try an example:{" "}
          <code>
            npx jury review --diff examples/reviews/hardcoded-tests/change.diff --criteria
            examples/reviews/hardcoded-tests/criteria.md
          </code>
          .
        </EmptyState>
      ) : (
        <Card title={`${reviews.length} review${reviews.length === 1 ? "" : "s"}`}>
          <ScrollTable label="Reviews">
            <table className="w-full text-left text-sm tabular-nums" data-testid="reviews-table">
              <TableHead
                columns={[
                  "Review",
                  "Verdict",
                  {
                    label: "Judge",
                    title: "what the judge did; without it the verdict is the tests' (mechanical)",
                  },
                  "Score",
                  ...DIMENSIONS,
                  "Cost",
                  "When",
                ]}
              />
              <tbody>
                {reviews.map((r) => {
                  const dims = (r.record.judgment as { dimensions?: Record<string, number> } | null)
                    ?.dimensions;
                  return (
                    <tr key={r.id} className="border-t border-zinc-100">
                      <td>
                        <Link
                          href={`/reviews/${r.id}`}
                          className="text-indigo-700 underline"
                          data-testid="review-link"
                        >
                          {r.title}
                        </Link>
                      </td>
                      <td>
                        <span
                          className={`rounded px-1.5 py-0.5 text-xs font-medium ${verdictCls[r.verdict]}`}
                        >
                          {r.verdict}
                        </span>{" "}
                        <span className="text-xs text-zinc-500">({r.verdictSource})</span>
                      </td>
                      <td className="text-xs" data-testid="review-judge-status">
                        {r.record.judge?.status ?? (r.verdictSource === "tests" ? "—" : "answered")}
                      </td>
                      <td>{f(r.score)}</td>
                      {DIMENSIONS.map((d) => (
                        <td key={d}>{f(dims?.[d])}</td>
                      ))}
                      <td>
                        {r.record.costUsd === null
                          ? "unpriced"
                          : r.record.costUsd === undefined
                            ? "—"
                            : `$${r.record.costUsd.toFixed(4)}`}
                      </td>
                      <td className="text-xs text-zinc-500">{when(r.createdAt)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </ScrollTable>
        </Card>
      )}
      {ranked.length > 0 && (
        <Card
          title={`Ranking: mechanical only against blended (0.6 × mechanical + 0.4 × judge), ${ranked.length} reviews with both`}
        >
          <ScrollTable label="Ranking">
            <table className="w-full text-left text-sm tabular-nums" data-testid="ranking-table">
              <thead className="text-xs text-zinc-500">
                <tr>
                  <th className="font-medium">#</th>
                  <th className="font-medium">Mechanical only</th>
                  <th className="font-medium">Blended</th>
                </tr>
              </thead>
              <tbody>
                {byMech.map((r, i) => (
                  <tr key={r.id}>
                    <td>{i + 1}</td>
                    <td>
                      {r.title} ({f(r.mechanicalScore)})
                    </td>
                    <td className={byBlend[i].id !== r.id ? "bg-amber-50" : ""}>
                      {byBlend[i].title} ({f(byBlend[i].blendedScore)})
                    </td>
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
