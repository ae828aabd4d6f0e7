import Link from "next/link";
import { EmptyState, PageTitle } from "@/components/ui/card";

/** Unknown URLs, and pages whose id does not exist (notFound()). */
export default function NotFound() {
  return (
    <div className="space-y-4" data-testid="not-found">
      <PageTitle>Not found</PageTitle>
      <EmptyState title="Nothing lives at this address">
        The run, review or study may have been deleted, or the link is mistyped. Start from the{" "}
        <Link href="/" className="text-indigo-700 underline">
          overview
        </Link>
        , or open{" "}
        <Link href="/runs" className="text-indigo-700 underline">
          Runs
        </Link>{" "}
        or{" "}
        <Link href="/memory" className="text-indigo-700 underline">
          Memory
        </Link>
        .
      </EmptyState>
    </div>
  );
}
