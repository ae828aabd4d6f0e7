import { asc, count, eq, gt, max, min, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { all, one, query, rows, write } from "./op";
import type { NewRun, RunOptions } from "./schema";

/**
 * Numbers, timestamps, JSON and text compare and sort the same on SQLite and PostgreSQL: the
 * PostgreSQL schema stores what SQLite stores (db/pg/columns.ts), and each expectation here is
 * computed in JavaScript, not read from either engine, so both are held to the same answer.
 */

const TEXTS = [
  "b",
  "a",
  "B",
  "A",
  "a ",
  "ab",
  "a b",
  "_",
  "-",
  "10",
  "9",
  "é",
  "e",
  "z",
  "Z",
  "ä",
  "😀",
  "ｚ",
  "",
];
/** SQLite's BINARY: byte order of the UTF-8 text. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

const INTS = [0, 1, -1, 7, -7, 2 ** 53 - 1, -(2 ** 53 - 1), 1_000_000_007];
const DOUBLES = [0.1 + 0.2, 1e-300, 1.7976931348623157e308, -2.5, 3, 123456.789];
const DATES = [0, -1, 1, 1_700_000_000_123, 8.64e15, -8.64e15].map((ms) => new Date(ms));
const OPTIONS: RunOptions = {
  judges: ["local:ä", "openai:gpt-😀"],
  n: 3,
  temperature: 0.7,
  concurrency: 1e21,
  noCache: false,
  panel: { consensus_threshold: 0.1 + 0.2 } as unknown as RunOptions["panel"],
  unpriced: [],
  criterionJudges: { "z-first": ["b"], "a-second": ["a"] }, // key order kept, not sorted
};

const run = (id: string, extra: Partial<NewRun> = {}): NewRun => ({
  id,
  suitePath: `p/${id}`,
  suiteName: id,
  options: OPTIONS,
  ...extra,
});

const insertRuns = query(function* (db, rs: NewRun[]) {
  for (const r of rs) yield* write(db.insert(db.tables.runs).values(r));
});
const idsSorted = query(function* (db) {
  const { runs } = db.tables;
  return (yield* all(db.select({ id: runs.id }).from(runs).orderBy(asc(runs.id)))).map((r) => r.id);
});
const textFacts = query(function* (db) {
  const { runs } = db.tables;
  const range = yield* one(db.select({ lo: min(runs.id), hi: max(runs.id), n: count() }).from(runs));
  const aboveA = yield* one(db.select({ n: count() }).from(runs).where(gt(runs.id, "a")));
  const exactA = yield* all(db.select({ id: runs.id }).from(runs).where(eq(runs.id, "a")));
  const lowered = yield* rows<{ l: string }>(
    db,
    sql`select lower(suite_name) as l from runs where suite_name in ('B', 'Z', 'ä', 'é') order by l`,
  );
  return { range, aboveA: aboveA?.n, exactA: exactA.map((r) => r.id), lowered: lowered.map((r) => r.l) };
});
const numberFacts = query(function* (db) {
  const { runs } = db.tables;
  const sorted = yield* all(db.select({ t: runs.totalTasks }).from(runs).orderBy(asc(runs.totalTasks)));
  const [agg] = yield* rows<{ s: number; a: number; half: number; neg: number }>(
    db,
    sql`select sum(total_tasks) as s, avg(total_tasks) as a,
          (select total_tasks / 2 from runs where id = 'i3') as half,
          (select total_tasks / 2 from runs where id = 'i4') as neg
        from runs where id in ('i0', 'i1', 'i3', 'i7')`,
  );
  return { sorted: sorted.map((r) => r.t), agg };
});
const addReviews = query(function* (db, scores: number[]) {
  for (const [i, score] of scores.entries())
    yield* write(
      db.insert(db.tables.reviews).values({
        id: `r${i}`,
        title: "t",
        verdict: "pass",
        verdictSource: "judge",
        score,
        diff: "",
        record: { context: {}, samples: [], warnings: [] },
      }),
    );
});
const scoresSorted = query(function* (db) {
  const { reviews } = db.tables;
  return (yield* all(db.select({ s: reviews.score }).from(reviews).orderBy(asc(reviews.score)))).map(
    (r) => r.s,
  );
});
const datesSorted = query(function* (db) {
  const { runs } = db.tables;
  return (yield* all(db.select({ at: runs.createdAt }).from(runs).orderBy(asc(runs.createdAt)))).map(
    (r) => r.at,
  );
});
const setStatus = query(function* (db, id: string, status: NewRun["status"]) {
  const { runs } = db.tables;
  yield* write(db.update(runs).set({ status }).where(eq(runs.id, id)));
});
const addTaskWithSample = query(function* (
  db,
  runId: string,
  key: string,
  status: "done" | "error",
  cost: number,
) {
  const { tasks, samples } = db.tables;
  const task = yield* one(
    db
      .insert(tasks)
      .values({ runId, key, caseId: "c", criterionId: key, judge: "j", sampleIndex: 0, status })
      .returning({ id: tasks.id }),
  );
  yield* write(
    db.insert(samples).values({
      taskId: task!.id,
      runId,
      caseId: "c",
      criterionId: key,
      judge: "j",
      sampleIndex: 0,
      costUsd: cost,
      error: status === "error" ? "boom" : null,
    }),
  );
});
const totalsOf = query(function* (db, runId: string) {
  const { runTotals } = db.tables;
  return yield* one(
    db
      .select({ done: runTotals.done, errors: runTotals.errors, costUsd: runTotals.costUsd })
      .from(runTotals)
      .where(eq(runTotals.runId, runId)),
  );
});
const optionsOf = query(function* (db, id: string) {
  const { runs } = db.tables;
  return (yield* one(db.select({ o: runs.options }).from(runs).where(eq(runs.id, id))))?.o;
});

describe.each(storeKinds())("values compare and sort as on SQLite, on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("text: byte order (SQLite's BINARY), case and accents distinct, lower() on ASCII only", async () => {
    await insertRuns(
      store.db,
      TEXTS.map((t) => run(t)),
    );
    expect(await idsSorted(store.db)).toEqual([...TEXTS].sort(byteOrder));
    const facts = await textFacts(store.db);
    expect(facts.range).toEqual({ lo: "", hi: "😀", n: TEXTS.length });
    expect(facts.aboveA).toBe(TEXTS.filter((t) => byteOrder(t, "a") > 0).length);
    expect(facts.exactA).toEqual(["a"]);
    expect(facts.lowered).toEqual(["b", "z", "ä", "é"]); // 'ä' and 'é' unchanged: not ASCII
  });

  it("integers: exact to 2^53, sorted numerically; sum, avg and integer division as SQLite's", async () => {
    await insertRuns(
      store.db,
      INTS.map((t, i) => run(`i${i}`, { totalTasks: t })),
    );
    const facts = await numberFacts(store.db);
    expect(facts.sorted).toEqual([...INTS].sort((a, b) => a - b));
    const some = [INTS[0], INTS[1], INTS[3], INTS[7]];
    expect(facts.agg.s).toBe(some.reduce((a, b) => a + b, 0));
    expect(facts.agg.a).toBe(some.reduce((a, b) => a + b, 0) / some.length);
    expect(facts.agg.half).toBe(3); // 7 / 2: integer division, truncated
    expect(facts.agg.neg).toBe(-3); // -7 / 2: towards zero on both
  });

  it("doubles round-trip bit for bit and sort numerically", async () => {
    await addReviews(store.db, DOUBLES);
    expect(await scoresSorted(store.db)).toEqual([...DOUBLES].sort((a, b) => a - b));
  });

  it("timestamps: the same millisecond, before 1970 and at the far ends of Date, sorted in time", async () => {
    await insertRuns(
      store.db,
      DATES.map((d, i) => run(`d${i}`, { createdAt: d })),
    );
    const got = await datesSorted(store.db);
    expect(got.map((d) => d.getTime())).toEqual(DATES.map((d) => d.getTime()).sort((a, b) => a - b));
    expect(got.every((d) => d instanceof Date)).toBe(true);
  });

  it("JSON: the same value back, keys in their order, numbers as written", async () => {
    await insertRuns(store.db, [run("j")]);
    const back = await optionsOf(store.db, "j");
    expect(back).toEqual(OPTIONS);
    expect(JSON.stringify(back)).toBe(JSON.stringify(OPTIONS));
  });

  it("run_totals: kept by the same triggers (written when a run finishes, removed by a late sample or a restart)", async () => {
    await insertRuns(store.db, [run("r", { status: "running" })]);
    await addTaskWithSample(store.db, "r", "k1", "done", 0.25);
    await addTaskWithSample(store.db, "r", "k2", "done", 0.5);
    await addTaskWithSample(store.db, "r", "k3", "error", 0);
    expect(await totalsOf(store.db, "r")).toBeUndefined();
    await setStatus(store.db, "r", "done_with_failures");
    expect(await totalsOf(store.db, "r")).toEqual({ done: 2, errors: 1, costUsd: 0.75 });
    await addTaskWithSample(store.db, "r", "k4", "done", 1); // a late write: counted live again
    expect(await totalsOf(store.db, "r")).toBeUndefined();
    await setStatus(store.db, "r", "done");
    expect(await totalsOf(store.db, "r")).toEqual({ done: 3, errors: 1, costUsd: 1.75 });
    await setStatus(store.db, "r", "running");
    expect(await totalsOf(store.db, "r")).toBeUndefined();
  });
});
