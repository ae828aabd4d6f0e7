import Link from "next/link";
import { PageTitle } from "@/components/ui/card";
import type { LabelsInfo } from "@/lib/memory/study-report";
import { FreshAnnotationButton } from "./fresh-annotation-button";

type Props = {
  collection: string;
  memories: number;
  queries: number;
  /** queries whose every pooled candidate is annotated, and annotations in all */
  complete: number;
  annotations: number;
  labels: LabelsInfo;
  needsAnnotation: number;
  /** the query the Annotate link opens; none: no link */
  firstOpen: string | undefined;
};

/** A study's title with its Annotate link, how far annotation has come, and where the labels come from. */
export function StudyHeader({
  collection,
  memories,
  queries,
  complete,
  annotations,
  labels,
  needsAnnotation,
  firstOpen,
}: Props) {
  return (
    <>
      <PageTitle
        actions={
          <div className="flex flex-wrap items-center gap-2">
            {firstOpen && (
              <Link
                href={`/memory/${encodeURIComponent(collection)}/annotate?q=${encodeURIComponent(firstOpen)}`}
                className="rounded border border-zinc-300 bg-white px-3 py-1.5 text-sm hover:bg-zinc-50"
                data-testid="annotate-link"
              >
                Annotate
              </Link>
            )}
            <ExportLinks collection={collection} />
          </div>
        }
      >
        Memory study: {collection}
      </PageTitle>
      <p className="-mt-2 text-sm text-zinc-600" data-testid="annotation-progress">
        {memories} memories · {queries} queries ·{" "}
        <strong>
          {complete} of {queries} queries complete
        </strong>{" "}
        (every pooled candidate annotated) · {annotations} annotations
      </p>
      <div className="-mt-1 flex flex-wrap items-center justify-between gap-2 text-sm text-zinc-600">
        <p data-testid="labels-info">
          <span className="font-medium text-zinc-800">Labels:</span> {labels.description}.
          {needsAnnotation > 0 && (
            <>
              {" "}
              <strong className="text-amber-800" data-testid="needs-annotation">
                {needsAnnotation} of {queries} queries need annotation
              </strong>{" "}
              and are left out of every metric until a person labels them.
            </>
          )}
        </p>
        {labels.convention === "annotated" && queries > 0 && annotations > 0 && (
          <FreshAnnotationButton collection={collection} queries={queries} />
        )}
      </div>
    </>
  );
}

/** Plain download links to the study's export route (the same files as `jury memory export-labels|export-metrics`). */
function ExportLinks({ collection }: { collection: string }) {
  const base = `/memory/${encodeURIComponent(collection)}/export`;
  const links = [
    { href: `${base}?what=labels&format=csv`, text: "Export labels (CSV)", id: "export-labels" },
    { href: `${base}?what=metrics&format=csv`, text: "Export metrics (CSV)", id: "export-metrics" },
    { href: `${base}?what=qrels`, text: "Export qrels", id: "export-qrels" },
  ];
  return (
    <nav aria-label="Export" className="flex flex-wrap gap-x-3 text-sm">
      {links.map((l) => (
        <a key={l.id} href={l.href} download className="text-indigo-700 underline" data-testid={l.id}>
          {l.text}
        </a>
      ))}
    </nav>
  );
}
