"use client";

import { useRouter } from "next/navigation";
import { useLiveProgress } from "@/components/jobs/use-live-progress";
import type { LiveProgress } from "@/lib/jobs/live";

/** One running experiment's progress, patched from /api/progress; the page reloads once when it stops. */
function ExperimentLine({ id, label, initial }: { id: string; label: string; initial: LiveProgress }) {
  const router = useRouter();
  const p = useLiveProgress(id, initial, () => router.refresh());
  return (
    <li data-testid="experiment-progress">
      <span className="font-medium">{label}</span>: {p.status}, {p.done} of {p.total} queries
    </li>
  );
}

export function ExperimentsProgress({
  items,
}: {
  items: { id: string; label: string; initial: LiveProgress }[];
}) {
  if (items.length === 0) return null;
  return (
    <ul className="space-y-1 rounded border border-indigo-200 bg-indigo-50 px-3 py-2 text-sm tabular-nums">
      {items.map((it) => (
        <ExperimentLine key={it.id} {...it} />
      ))}
    </ul>
  );
}
