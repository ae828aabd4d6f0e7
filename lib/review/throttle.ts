import type { Db } from "@/db/client";
import { takeJudgmentSlot } from "@/db/queries/judge-events";

/** At most `limit` judgments of a kind per rolling hour, across processes. */
export function tryAcquireJudgment(db: Db, kind: string, limit: number, now = Date.now()): boolean {
  return takeJudgmentSlot(db, kind, limit, now);
}

export function throttleLimit(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.JUDGE_MAX_PER_HOUR ?? 20);
  return Number.isInteger(n) && n > 0 ? n : 20;
}
