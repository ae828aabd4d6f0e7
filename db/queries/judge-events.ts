import { and, count, eq, gt, sql } from "drizzle-orm";
import { one, query, rows, tx, write } from "../op";

/** The advisory lock PostgreSQL's count-and-insert takes per kind ("jury" in ASCII, and the kind's hash). */
const SLOT_LOCK = 0x6a75_7279;

/**
 * Takes one of `limit` judgments of a kind per rolling hour, counted in the database so the limit
 * holds across processes: the count and the insert happen in one transaction that no other taker of
 * the kind runs beside (SQLite's IMMEDIATE: the write lock; PostgreSQL: an advisory lock on the kind
 * until it commits).
 */
export const takeJudgmentSlot = query(function* (db, kind: string, limit: number, now: number) {
  return yield* tx(db, function* (t) {
    const { judgeEvents } = t.tables;
    if (t.engine === "pg") yield* rows(t, sql`select pg_advisory_xact_lock(${SLOT_LOCK}, hashtext(${kind}))`);
    const used = yield* one(
      t
        .select({ n: count() })
        .from(judgeEvents)
        .where(and(eq(judgeEvents.kind, kind), gt(judgeEvents.at, new Date(now - 3_600_000)))),
    );
    if ((used?.n ?? 0) >= limit) return false;
    yield* write(t.insert(judgeEvents).values({ kind, at: new Date(now) }));
    return true;
  });
});
