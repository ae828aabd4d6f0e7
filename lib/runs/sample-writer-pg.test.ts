// The sample writer on PostgreSQL (its commits are promises): ordered, grouped while one is in
// flight, counted only once committed, and a refused write stops it without losing the others.
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PgDb } from "@/db/client";
import { getPendingTasks, getRunSamples, type SampleWrite } from "@/db/queries/runs";
import type { Task } from "@/db/schema";
import { loadSuite } from "../suites/load-suite";
import { testRegistry, testSuite } from "../testing/fixtures";
import { freshStore, type Store, storeKinds } from "../testing/stores";
import { createRun } from "./plan-run";
import { createSampleWriter } from "./sample-writer";

const sample = (t: Task, runId: string, score = 3): SampleWrite => ({
  taskId: t.id,
  runId,
  caseId: t.caseId,
  criterionId: t.criterionId,
  judge: t.judge,
  sampleIndex: t.sampleIndex,
  score,
  reasoning: "r",
  rawText: "{}",
  latencyMs: 1,
  inputTokens: 1,
  outputTokens: 1,
  costUsd: 0,
  attempts: 1,
  cached: false,
  error: null,
});

describe.runIf(storeKinds().includes("pg"))("the sample writer on PostgreSQL", () => {
  let store: Store<PgDb>;
  let runId: string;
  let tasks: Task[];
  beforeEach(async () => {
    store = await freshStore("pg");
    runId = await createRun(store.db, loadSuite(testSuite(4)), testRegistry().registry, {
      judges: ["local:a"],
      n: 2,
      temperature: 0,
      concurrency: 4,
      noCache: true,
    });
    tasks = (await getPendingTasks(store.db, { runId })).filter((t) => t.judge !== "deterministic");
  });
  afterEach(() => store.close());

  it("commits in order, one at a time: what arrives during a commit goes in the next; counted once committed", async () => {
    const { db } = store;
    const errors: unknown[] = [];
    const w = createSampleWriter(db, (e) => errors.push(e));
    const stored: number[] = [];
    const first = tasks
      .slice(0, 3)
      .map((t) => w.write({ sample: sample(t, runId) }, () => stored.push(t.id)));
    expect(stored).toEqual([]); // not yet committed: not counted
    await new Promise((r) => setImmediate(r)); // the first commit starts
    // these arrive while it is in flight
    const second = tasks
      .slice(3, 6)
      .map((t) => w.write({ sample: sample(t, runId) }, () => stored.push(t.id)));
    await Promise.all(first);
    expect(stored.slice(0, 3)).toEqual(tasks.slice(0, 3).map((t) => t.id));
    await Promise.all(second);
    expect(stored).toEqual(tasks.slice(0, 6).map((t) => t.id));
    expect(await getRunSamples(db, { runId })).toHaveLength(6);
    // a task written twice: the second is not written, and says so
    const again: boolean[] = [];
    w.write({ sample: sample(tasks[0], runId) }, (ok) => again.push(ok));
    await w.flush();
    expect(again).toEqual([false]);
    expect(errors).toEqual([]);
  });

  it("a write the database refuses never takes the rest of its batch with it; the error stops the writer", async () => {
    const { db } = store;
    await db.execute(
      sql.raw(`create function refuse() returns trigger language plpgsql as $$
        begin if new.score = 99 then raise exception 'database or disk is full'; end if; return new; end $$`),
    );
    await db.execute(
      sql.raw("create trigger refuse before insert on samples for each row execute function refuse()"),
    );
    const rest = tasks.slice(0, 5);
    const errors: unknown[] = [];
    const w = createSampleWriter(db, (e) => errors.push(e));
    const stored: (number | string)[] = [];
    // the third of five is refused: the two before it are stored, the writer stops there
    const settled = rest.map((t, i) =>
      w.write({ sample: sample(t, runId, i === 2 ? 99 : 3) }, () => stored.push(t.id)),
    );
    await w.flush();
    await Promise.all(settled); // every write's promise settles, stored or not
    expect(stored).toEqual([rest[0].id, rest[1].id]);
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0], Object.getOwnPropertyNames(errors[0])) + String(errors[0])).toContain(
      "database or disk is full",
    );
    const pending = new Set((await getPendingTasks(db, { runId })).map((t) => t.id));
    for (const t of rest.slice(2)) expect(pending.has(t.id)).toBe(true); // left for a resume
    // stopped: nothing more is written
    await w.write({ sample: sample(rest[3], runId) }, () => stored.push("late"));
    await w.flush();
    expect(stored).toHaveLength(2);
  });
});
