import type { Db } from "@/db/client";

/**
 * At most `limit` judgments of a kind per rolling hour, counted in the database so the limit holds
 * across processes. The check and the insert happen in one IMMEDIATE transaction.
 */
export function tryAcquireJudgment(db: Db, kind: string, limit: number, now = Date.now()): boolean {
  const c = db.$client;
  const take = c.transaction(() => {
    const used = c
      .prepare("select count(*) from judge_events where kind = ? and at > ?")
      .pluck()
      .get(kind, now - 3_600_000) as number;
    if (used >= limit) return false;
    c.prepare("insert into judge_events (kind, at) values (?, ?)").run(kind, now);
    return true;
  });
  return take.immediate();
}

export function throttleLimit(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.JUDGE_MAX_PER_HOUR ?? 20);
  return Number.isInteger(n) && n > 0 ? n : 20;
}
