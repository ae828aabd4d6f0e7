"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { importExampleStudy } from "@/app/actions/memory";

export function ImportExampleButton() {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [error, setError] = useState<string | null>(null);
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        data-testid="import-example-study"
        disabled={pending}
        className="rounded bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
        onClick={() =>
          start(async () => {
            const r = await importExampleStudy();
            if (r.ok) router.push(`/memory/${r.data.collection}`);
            else setError(r.error);
          })
        }
      >
        {pending ? "Importing…" : "Import the example study (shop-api)"}
      </button>
      {error && <span className="text-sm text-red-700">{error}</span>}
    </span>
  );
}
