import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { AnnotationList } from "@/components/memory/annotation-list";
import { Card, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { pooledMemoryIds } from "@/db/queries/experiments";
import { getMemories } from "@/db/queries/memories";
import {
  countAnnotationHistory,
  listAnnotationHistory,
  listAnnotations,
  undoableChange,
} from "@/db/queries/study";
import { annotationProgress } from "@/lib/memory/annotation-progress";
import { collectionSchema } from "@/lib/validations/memory";

type Props = { params: Promise<{ collection: string }>; searchParams: Promise<{ q?: string }> };

export default async function AnnotatePage({ params, searchParams }: Props) {
  await connection();
  const collection = decodeURIComponent((await params).collection);
  if (!collectionSchema.safeParse(collection).success) notFound();
  const db = getDb();
  const progress = await annotationProgress(db, collection);
  if (progress.queries.length === 0) notFound();
  const { q } = await searchParams;
  const idx = Math.max(
    0,
    progress.queries.findIndex((x) => x.queryId === q),
  );
  const query = progress.queries[idx];
  const judged = new Map((await listAnnotations(db, collection, query.queryId)).map((a) => [a.memoryId, a]));
  const pooled = await pooledMemoryIds(db, collection, query.queryId);
  const items = (await getMemories(db, collection, pooled)).map((m) => {
    const a = judged.get(m.memoryId);
    return {
      ...m,
      relevant: a ? a.relevance > 0 : null,
      labelSource: a?.source ?? null,
      labelledAt: a ? a.updatedAt.toISOString() : null,
    };
  });
  const entries = await listAnnotationHistory(db, collection, query.queryId, 50);
  // every memory the history names gets its title, pooled or not
  const titles = new Map(items.map((m) => [m.memoryId, m.title]));
  const unpooled = [
    ...new Set(entries.flatMap((h) => (h.memoryId && !titles.has(h.memoryId) ? [h.memoryId] : []))),
  ];
  for (const m of await getMemories(db, collection, unpooled)) titles.set(m.memoryId, m.title);
  const history = entries.map((h) => ({
    id: h.id,
    memoryId: h.memoryId,
    title: h.memoryId ? (titles.get(h.memoryId) ?? "") : "",
    relevance: h.relevance,
    previous: h.previous,
    source: h.source,
    cleared: h.cleared
      ? { labels: h.cleared.labels.length, relevant: h.cleared.labels.filter((l) => l.relevance > 0).length }
      : null,
    author: h.author,
    at: h.at.toISOString(),
  }));
  const undoable = await undoableChange(db, collection, query.queryId);
  const historyTotal = await countAnnotationHistory(db, collection, query.queryId);
  const href = (i: number) =>
    `/memory/${encodeURIComponent(collection)}/annotate?q=${encodeURIComponent(progress.queries[i].queryId)}`;
  const next = idx + 1 < progress.queries.length ? href(idx + 1) : undefined;

  return (
    <div className="grid gap-4 md:grid-cols-[16rem_1fr]">
      <aside className="space-y-2">
        <p className="text-sm font-medium" data-testid="annotation-progress">
          {progress.complete} of {progress.queries.length} queries complete
        </p>
        {progress.needsAnnotation > 0 && (
          <p className="text-xs text-amber-800" data-testid="needs-annotation">
            {progress.needsAnnotation} need annotation (left out of every metric)
          </p>
        )}
        <ol className="max-h-[70vh] space-y-0.5 overflow-y-auto text-xs">
          {progress.queries.map((x, i) => (
            <li key={x.queryId}>
              <Link
                href={href(i)}
                className={`block truncate rounded px-1 py-0.5 ${i === idx ? "bg-indigo-50 font-medium" : "hover:bg-zinc-100"}`}
              >
                {x.complete ? "✓" : x.labelled ? "○" : "·"} {x.queryId} · {x.annotated}/{x.pooled}
                {!x.labelled && " · needs annotation"}
              </Link>
            </li>
          ))}
        </ol>
        <Link
          className="text-xs text-indigo-700 underline"
          href={`/memory/${encodeURIComponent(collection)}`}
        >
          back to the study
        </Link>
      </aside>
      <div className="space-y-3">
        <PageTitle>
          {query.queryId}: annotate {items.length} pooled candidate{items.length === 1 ? "" : "s"}
        </PageTitle>
        <Card>
          <p className="text-sm" data-testid="query-text">
            <span className="text-xs text-zinc-600">Prompt: </span>
            {query.text}
          </p>
          {!query.labelled && (
            <p className="mt-1 text-xs text-amber-800" data-testid="query-needs-annotation">
              Needs annotation: this query is left out of every metric until you label one of its memories.
            </p>
          )}
        </Card>
        <AnnotationList
          key={query.queryId}
          collection={collection}
          queryId={query.queryId}
          items={items}
          nextHref={next}
          history={history}
          historyTotal={historyTotal}
          undoable={
            undoable
              ? {
                  memoryId: undoable.memoryId,
                  title: undoable.memoryId ? (titles.get(undoable.memoryId) ?? "") : "",
                  previous: undoable.previous,
                  restores: undoable.cleared?.labels.length ?? null,
                }
              : null
          }
        />
      </div>
    </div>
  );
}
