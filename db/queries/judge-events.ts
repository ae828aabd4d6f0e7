import type { Db } from "../client";

/**
 * Takes one of `limit` judgments of a kind per rolling hour, counted in the database so the limit
 * holds across processes: the count and the insert happen in one IMMEDIATE transaction.
 */
export function takeJudgmentSlot(db: Db, kind: string, limit: number, now: number): boolean {
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
