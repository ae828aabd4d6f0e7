"use client";

import { useRouter } from "next/navigation";
import { createContext, type ReactNode, useContext, useEffect, useRef } from "react";
import { useLiveProgress } from "@/components/jobs/use-live-progress";
import { isLive, type LiveProgress } from "@/lib/jobs/live";
import { liveCoverage } from "@/lib/runs/live-verdicts";
import { CoverageLine } from "./coverage-line";

const LiveRunContext = createContext<LiveProgress | null>(null);

/** The page reloads its verdicts at most this often while samples arrive. */
const REFRESH_MS = 1500;

/**
 * One live snapshot of a run (/api/progress, polled while it runs) for everything on its page that
 * counts: the header's coverage and the progress bar read the same snapshot, so they always agree.
 * While samples arrive the page's server part is refreshed (its partial verdicts), at most every
 * 1.5 s, and once more when the run stops.
 */
export function LiveRun({
  runId,
  initial,
  children,
}: {
  runId: string;
  initial: LiveProgress;
  children: ReactNode;
}) {
  const router = useRouter();
  const snap = useLiveProgress(runId, initial, () => router.refresh());
  const finished = snap.done + snap.errors;
  const last = useRef({ finished, at: 0 });
  useEffect(() => {
    if (!isLive(snap.status) || finished === last.current.finished) return;
    const wait = Math.max(0, last.current.at + REFRESH_MS - Date.now());
    const t = setTimeout(() => {
      last.current = { finished, at: Date.now() };
      router.refresh();
    }, wait);
    return () => clearTimeout(t);
  }, [finished, snap.status, router]);
  return <LiveRunContext.Provider value={snap}>{children}</LiveRunContext.Provider>;
}

/** The run's live snapshot (inside LiveRun). */
export function useLiveRun(): LiveProgress {
  const snap = useContext(LiveRunContext);
  if (!snap) throw new Error("useLiveRun outside LiveRun");
  return snap;
}

/** The header's "judges answered · samples answered of asked", from the live snapshot. */
export function LiveCoverageLine() {
  const snap = useLiveRun();
  const c = liveCoverage(snap);
  return (
    <span data-count={c.samples_answered + c.samples_failed} data-testid="run-count">
      <CoverageLine coverage={c} testId="run-coverage" />
    </span>
  );
}
