"use client";

import { useEffect, useRef, useState } from "react";
import { isLive, type LiveProgress } from "@/lib/jobs/live";

/**
 * Polls /api/progress/<id> once a second while the job is live and returns the newest snapshot;
 * `onSettled` runs once when the job stops (the page then loads its final figures).
 */
export function useLiveProgress(
  id: string,
  initial: LiveProgress,
  onSettled?: (p: LiveProgress) => void,
): LiveProgress {
  const [snap, setSnap] = useState(initial);
  const settled = useRef(onSettled);
  settled.current = onSettled;
  const cursor = useRef(initial.cursor);
  useEffect(() => {
    setSnap(initial);
    cursor.current = initial.cursor;
  }, [initial]);
  const live = isLive(snap.status);
  useEffect(() => {
    if (!live) return;
    let stopped = false;
    const tick = async () => {
      try {
        const r = await fetch(`/api/progress/${encodeURIComponent(id)}?cursor=${cursor.current}`, {
          cache: "no-store",
        });
        if (!r.ok || stopped) return;
        const next = (await r.json()) as LiveProgress;
        cursor.current = next.cursor;
        setSnap((prev) => ({ ...next, latest: [...next.latest, ...prev.latest].slice(0, 20) }));
        if (!isLive(next.status)) settled.current?.(next);
      } catch {
        // the next tick tries again
      }
    };
    const t = setInterval(tick, 1000);
    return () => {
      stopped = true;
      clearInterval(t);
    };
  }, [id, live]);
  return snap;
}
