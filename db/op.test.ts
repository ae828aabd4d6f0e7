import { asc, eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { all, constraintViolated, exec, one, query, rows, tx, write } from "./op";
import type { NewRun, RunOptions } from "./schema";

const options: RunOptions = { judges: ["local:a"], n: 1, temperature: 0, concurrency: 1, noCache: false };

const run = (id: string, extra: Partial<NewRun> = {}): NewRun => ({
  id,
  suitePath: "suite.yaml",
  suiteName: "suite",
  options,
  ...extra,
});

// the query functions under test, each written once
const addRun = query(function* (db, r: NewRun) {
  return yield* write(db.insert(db.tables.runs).values(r));
});
const getRun = query(function* (db, id: string) {
  const { runs } = db.tables;
  return yield* one(db.select().from(runs).where(eq(runs.id, id)));
});
const runIds = query(function* (db) {
  const { runs } = db.tables;
  return (yield* all(db.select({ id: runs.id }).from(runs).orderBy(asc(runs.id)))).map((r) => r.id);
});
const renameRun = query(function* (db, id: string, suiteName: string) {
  const { runs } = db.tables;
  return yield* write(db.update(runs).set({ suiteName }).where(eq(runs.id, id)));
});
/** Adds the runs in one transaction; a throw after them rolls every one back. */
const addRunsThenMaybeFail = query(function* (db, ids: string[], failAfter: boolean) {
  return yield* tx(db, function* (t) {
    for (const id of ids) yield* addRun.body(t, run(id));
    if (failAfter) throw new Error("stop after the inserts");
    return ids.length;
  });
});
/** Adds a run that exists already: the error reaches the body, which says what it was and goes on. */
const addTwiceCaught = query(function* (db, id: string) {
  yield* addRun.body(db, run(id));
  try {
    yield* addRun.body(db, run(id));
    return "no error";
  } catch (err) {
    const again = yield* getRun.body(db, id); // the store still answers after the error
    return `${constraintViolated(err)}, ${again?.id}`;
  }
});
/** A nested transaction that fails is undone alone; the outer one goes on and commits. */
const nestedSavepoint = query(function* (db) {
  return yield* tx(db, function* (outer) {
    yield* addRun.body(outer, run("kept"));
    let caught = "";
    try {
      yield* tx(outer, function* (inner) {
        yield* addRun.body(inner, run("undone"));
        yield* addRun.body(inner, run("kept")); // a duplicate: the savepoint rolls back
      });
    } catch (err) {
      caught = constraintViolated(err) ?? "other";
    }
    yield* addRun.body(outer, run("after"));
    return caught;
  });
});
const countCancelled = query(function* (db) {
  const [r] = yield* rows<{ n: number }>(db, sql`select count(*) as n from runs where cancel_requested = 1`);
  return r.n;
});
const requeueAll = query(function* (db) {
  return yield* exec(db, sql`update runs set status = 'queued' where status <> 'queued'`);
});

describe.each(storeKinds())("query functions written once, on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("answers synchronously on SQLite and with a promise on PostgreSQL", async () => {
    const answer = getRun(store.db, "none");
    expect(answer instanceof Promise).toBe(kind === "pg");
    expect(await answer).toBeUndefined();
  });

  it("one, all and write: a row or undefined, every row in order, the count of rows changed", async () => {
    expect(await addRun(store.db, run("b", { cancelRequested: true }))).toEqual({ changes: 1 });
    await addRun(store.db, run("a"));
    const b = await getRun(store.db, "b");
    expect(b).toMatchObject({
      id: "b",
      suiteName: "suite",
      status: "queued",
      cancelRequested: true,
      options,
    });
    expect(b?.createdAt).toBeInstanceOf(Date);
    expect(await getRun(store.db, "zz")).toBeUndefined();
    expect(await runIds(store.db)).toEqual(["a", "b"]);
    expect(await renameRun(store.db, "a", "renamed")).toEqual({ changes: 1 });
    expect(await renameRun(store.db, "missing", "x")).toEqual({ changes: 0 });
    expect((await getRun(store.db, "a"))?.suiteName).toBe("renamed");
  });

  it("rows and exec run SQL written by hand, numbers as numbers", async () => {
    await addRun(store.db, run("a", { cancelRequested: true, status: "running" }));
    await addRun(store.db, run("b", { status: "done" }));
    expect(await countCancelled(store.db)).toBe(1); // count(*) is a number on both, not a string
    expect(await requeueAll(store.db)).toEqual({ changes: 2 });
    expect((await getRun(store.db, "b"))?.status).toBe("queued");
  });

  it("tx commits what its body wrote, and rolls all of it back when the body throws", async () => {
    expect(await addRunsThenMaybeFail(store.db, ["a", "b"], false)).toBe(2);
    await expect(async () => addRunsThenMaybeFail(store.db, ["c", "d"], true)).rejects.toThrow(
      "stop after the inserts",
    );
    expect(await runIds(store.db)).toEqual(["a", "b"]);
  });

  it("a store error is thrown into the body, where try/catch handles it", async () => {
    expect(await addTwiceCaught(store.db, "a")).toBe("unique, a");
  });

  it("a failed nested transaction is undone alone, and the outer one commits", async () => {
    expect(await nestedSavepoint(store.db)).toBe("unique");
    expect(await runIds(store.db)).toEqual(["after", "kept"]);
  });
});
