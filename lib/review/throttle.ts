import type { Db } from "@/db/client";
import { takeJudgmentSlot } from "@/db/queries/judge-events";
import { readEnv } from "../env/registry";

/** At most `limit` judgments of a kind per rolling hour, across processes. */
export async function tryAcquireJudgment(
  db: Db,
  kind: string,
  limit: number,
  now = Date.now(),
): Promise<boolean> {
  return await takeJudgmentSlot(db, kind, limit, now);
}

/** JUDGE_MAX_PER_HOUR (default 20); an invalid value is an error naming it, never a silent 20. */
export function throttleLimit(env: Record<string, string | undefined> = process.env): number {
  return readEnv("JUDGE_MAX_PER_HOUR", env);
}
