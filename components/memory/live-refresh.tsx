"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** Refreshes the page every second while something on it is still running. */
export function LiveRefresh({ active }: { active: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => router.refresh(), 1000);
    return () => clearInterval(t);
  }, [active, router]);
  return null;
}
