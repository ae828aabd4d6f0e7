"use client";

import Link from "next/link";
import { EmptyState, PageTitle } from "@/components/ui/card";

/** A page that failed while rendering: say so plainly, offer a retry; the details stay in the server log. */
export default function PageError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <div className="space-y-4" data-testid="page-error">
      <PageTitle>Something went wrong</PageTitle>
      <EmptyState title="This page could not be shown">
        <p className="mb-3">
          The server logged the cause{error.digest ? ` (reference ${error.digest})` : ""}. Try again, or go
          back to the{" "}
          <Link href="/" className="text-indigo-700 underline">
            overview
          </Link>
          .
        </p>
        <button
          type="button"
          onClick={reset}
          className="rounded border border-zinc-300 bg-white px-3 py-1.5 text-sm hover:bg-zinc-50"
        >
          Try again
        </button>
      </EmptyState>
    </div>
  );
}
