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
          firstOpen ? (
            <Link
              href={`/memory/${encodeURIComponent(collection)}/annotate?q=${encodeURIComponent(firstOpen)}`}
              className="rounded border border-zinc-300 bg-white px-3 py-1.5 text-sm hover:bg-zinc-50"
              data-testid="annotate-link"
            >
              Annotate
            </Link>
          ) : undefined
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
