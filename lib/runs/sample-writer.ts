import type { Db, PgDb, SqliteDb } from "@/db/client";
import { recordSample, recordSamples, type SampleRecord } from "@/db/queries/runs";

/**
 * Group commit for a run's samples. Answers that arrive in the same turn of the event loop are
 * written in one transaction at the end of that turn (setImmediate), instead of one commit each: at
 * concurrency 32 a burst of answers costs one commit. Nothing is counted as done before it is
 * committed (`onStored` runs after the commit), and an answer waits for its commit at most until the
 * event loop's next turn, so a kill loses at most the answers of the turn it lands in: their tasks
 * stay pending and a resume asks for them again (never twice for one that was stored).
 *
 * On PostgreSQL a commit is a round trip: commits run one after the other (never two at once, in
 * the order the answers came), and the answers that arrive while one is in flight go together in the
 * next, which starts as soon as it ends. The same guarantee holds: an answer is counted only once its
 * commit returned, and a kill loses at most the answers not yet committed (their tasks stay pending).
 * On SQLite the commit is synchronous, as it always was.
 *
 * A commit that fails is retried one judgment per commit, so one write the database refuses never
 * takes the others of its batch with it; the first error goes to `onError` (the job's storage
 * failure), and the judgments not stored stay pending.
 */
export type SampleWriter = {
  /**
   * Queues a judgment. On PostgreSQL it returns a promise that settles (never rejects) once its
   * commit ended; on SQLite nothing (its commit is at the end of this turn of the event loop).
   */
  write(item: SampleRecord, onStored: (written: boolean) => void): undefined | Promise<void>;
  /**
   * Commits what is queued now (at the end of the run, before its status is computed). On PostgreSQL
   * a promise of that commit and the ones before it; await it either way.
   */
  flush(): undefined | Promise<void>;
};

type Queued = { item: SampleRecord; onStored: (written: boolean) => void };

// a progress callback that throws must not pass for a storage failure, nor escape the timer
function notify(onStored: (written: boolean) => void, written: boolean): void {
  try {
    onStored(written);
  } catch (err) {
    console.error("jury: a progress update failed:", err instanceof Error ? err.message : err);
  }
}

export function createSampleWriter(db: Db, onError: (err: unknown) => void): SampleWriter {
  return db.engine === "pg" ? pgWriter(db, onError) : sqliteWriter(db, onError);
}

function sqliteWriter(db: SqliteDb, onError: (err: unknown) => void): SampleWriter {
  let queue: Queued[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let failed = false;

  const flush = (): undefined => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    const batch = queue;
    queue = [];
    if (batch.length === 0 || failed) return;
    let written: boolean[];
    try {
      written = recordSamples(
        db,
        batch.map((b) => b.item),
      );
    } catch (err) {
      if (batch.length === 1) {
        failed = true;
        onError(err);
        return;
      }
      // one by one: what can be stored is stored, the rest stays pending
      for (const b of batch) {
        let ok: boolean;
        try {
          ok = recordSample(db, b.item.sample, b.item.cache);
        } catch (e) {
          failed = true;
          onError(e);
          return;
        }
        notify(b.onStored, ok);
      }
      return;
    }
    for (let i = 0; i < batch.length; i++) notify(batch[i].onStored, written[i]);
  };

  return {
    write(item, onStored) {
      if (failed) return undefined;
      queue.push({ item, onStored });
      scheduled ??= setImmediate(flush);
      return undefined;
    },
    flush,
  };
}

function pgWriter(db: PgDb, onError: (err: unknown) => void): SampleWriter {
  type Entry = Queued & { settle: () => void };
  let queue: Entry[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let failed = false;
  // the last commit chained (they run one at a time, in order); `waiting`: one is chained and has
  // not taken its batch yet, so what is queued meanwhile goes in it
  let tail: Promise<void> = Promise.resolve();
  let waiting = false;

  const fail = (err: unknown) => {
    if (failed) return;
    failed = true;
    onError(err);
  };

  const commit = async (batch: Entry[]): Promise<void> => {
    if (batch.length === 0 || failed) return;
    let written: boolean[];
    try {
      written = await recordSamples(
        db,
        batch.map((b) => b.item),
      );
    } catch (err) {
      if (batch.length === 1) return fail(err);
      // one by one: what can be stored is stored, the rest stays pending
      for (const b of batch) {
        let ok: boolean;
        try {
          ok = await recordSample(db, b.item.sample, b.item.cache);
        } catch (e) {
          return fail(e);
        }
        notify(b.onStored, ok);
      }
      return;
    }
    for (let i = 0; i < batch.length; i++) notify(batch[i].onStored, written[i]);
  };

  const flush = (): Promise<void> => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    if (!waiting && queue.length > 0) {
      waiting = true;
      tail = tail.then(async () => {
        waiting = false;
        const batch = queue;
        queue = [];
        try {
          await commit(batch);
        } catch (err) {
          fail(err); // a guard: commit sends its own errors to onError
        } finally {
          // what was not stored stays pending; whoever waits on it goes on
          for (const b of batch) b.settle();
        }
      });
    }
    return tail;
  };

  return {
    write(item, onStored) {
      if (failed) return Promise.resolve();
      return new Promise<void>((settle) => {
        queue.push({ item, onStored, settle });
        if (!waiting) scheduled ??= setImmediate(flush);
      });
    },
    flush,
  };
}
