"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { startFreshAnnotation } from "@/app/actions/memory";

/** Clears a study's labels (the history keeps them) so a person annotates the same queries afresh. */
export function FreshAnnotationButton({ collection, queries }: { collection: string; queries: number }) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [error, setError] = useState<string | null>(null);
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        data-testid="fresh-annotation"
        disabled={pending}
        className="rounded border border-zinc-300 bg-white px-3 py-1.5 text-sm hover:bg-zinc-50 disabled:opacity-50"
        onClick={() => {
          if (
            !window.confirm(
              `Clear every label of the ${queries} queries and annotate them yourself? The label history is kept.`,
            )
          )
            return;
          start(async () => {
            const r = await startFreshAnnotation({ collection });
            if (r.ok) router.refresh();
            else setError(r.error);
          });
        }}
      >
        {pending ? "Clearing…" : "Start a fresh annotation"}
      </button>
      {error && <span className="text-sm text-red-700">{error}</span>}
    </span>
  );
}
