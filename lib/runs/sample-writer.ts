import type { Db } from "@/db/client";
import { recordSample, recordSamples, type SampleRecord } from "@/db/queries/runs";

/**
 * Group commit for a run's samples. Answers that arrive in the same turn of the event loop are
 * written in one transaction at the end of that turn (setImmediate), instead of one commit each: at
 * concurrency 32 a burst of answers costs one commit. Nothing is counted as done before it is
 * committed (`onStored` runs after the commit), and an answer waits for its commit at most until the
 * event loop's next turn, so a kill loses at most the answers of the turn it lands in: their tasks
 * stay pending and a resume asks for them again (never twice for one that was stored).
 *
 * A commit that fails is retried one judgment per commit, so one write the database refuses never
 * takes the others of its batch with it; the first error goes to `onError` (the job's storage
 * failure), and the judgments not stored stay pending.
 */
export type SampleWriter = {
  write(item: SampleRecord, onStored: (written: boolean) => void): void;
  /** commits what is queued now (at the end of the run, before its status is computed) */
  flush(): void;
};

export function createSampleWriter(db: Db, onError: (err: unknown) => void): SampleWriter {
  let queue: { item: SampleRecord; onStored: (written: boolean) => void }[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let failed = false;
  // a progress callback that throws must not pass for a storage failure, nor escape the timer
  const notify = (onStored: (written: boolean) => void, written: boolean) => {
    try {
      onStored(written);
    } catch (err) {
      console.error("jury: a progress update failed:", err instanceof Error ? err.message : err);
    }
  };

  const flush = () => {
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
      if (failed) return;
      queue.push({ item, onStored });
      scheduled ??= setImmediate(flush);
    },
    flush,
  };
}
