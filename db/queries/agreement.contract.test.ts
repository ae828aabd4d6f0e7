import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { constraintViolated, one, query, tx, write } from "../op";
import type { RunOptions } from "../schema";
import {
  type AgreementItemRow,
  type AgreementJudgmentRow,
  getAgreementItems,
  getAgreementJudgments,
  getAgreementReport,
  getAgreementSet,
  insertAgreementSet,
  listAgreementSets,
  type NewAgreementSet,
  putAgreementReport,
  putResponse,
  runAgreementStamp,
  SET_STAMP,
} from "./agreement";

/** SQLite's BINARY (and the PostgreSQL schema's "C"): byte order of the UTF-8 text. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

const ITEMS: AgreementItemRow[] = [
  {
    itemId: "q2",
    position: 2,
    gold: 1,
    data: { input: "ä 😀", outputs: ["x", "y"], nested: { z: 1, a: [null, 2.5] } },
  },
  { itemId: "q1", position: 0, gold: null, data: null },
  { itemId: "Q3", position: 1, gold: 0.5, data: {} },
];

const JUDGMENTS: NewAgreementSet["judgments"] = [
  { itemId: "q2", judge: "openai:b", label: 1 },
  { itemId: "q1", judge: "openai:b", label: null, error: "unparsable", raw: "??" },
  {
    itemId: "q1",
    judge: "Anthropic:a",
    order: "swapped",
    label: 2,
    raw: "{}",
    inputTokens: 12,
    outputTokens: 3,
    costUsd: 0.1 + 0.2,
  },
  { itemId: "q1", judge: "Anthropic:a", order: "original", label: 0, costUsd: 0 },
  { itemId: "Q3", judge: "é", label: 3 },
];

const set = (id: string, extra: Partial<NewAgreementSet> = {}): NewAgreementSet => ({
  id,
  kind: "jsonl",
  name: `set ${id}`,
  options: { cut: 2, judges: ["b", "a"], nested: { "z-first": true, "a-second": null } },
  items: ITEMS,
  judgments: JUDGMENTS,
  ...extra,
});

/** A judgment as stored: the defaults filled in. */
const stored = (j: NewAgreementSet["judgments"][number]): AgreementJudgmentRow => ({
  itemId: j.itemId,
  judge: j.judge,
  order: j.order ?? "",
  label: j.label,
  raw: j.raw ?? null,
  error: j.error ?? null,
  inputTokens: j.inputTokens ?? 0,
  outputTokens: j.outputTokens ?? 0,
  costUsd: j.costUsd ?? null,
});
const judgmentOrder = (a: AgreementJudgmentRow, b: AgreementJudgmentRow) =>
  byteOrder(a.judge, b.judge) || byteOrder(a.itemId, b.itemId) || byteOrder(a.order, b.order);

// rows the functions under test read, written directly
const cachedResponse = query(function* (db, key: string) {
  const { responseCache: c } = db.tables;
  return yield* one(db.select().from(c).where(eq(c.key, key)));
});
const OPTIONS: RunOptions = { judges: ["local:a"], n: 1, temperature: 0, concurrency: 1, noCache: false };
const addRun = query(function* (db, id: string, status: "running" | "done") {
  yield* write(
    db.insert(db.tables.runs).values({ id, suitePath: "s", suiteName: "s", options: OPTIONS, status }),
  );
});
const addSample = query(function* (db, runId: string, key: string) {
  const { tasks, samples } = db.tables;
  const base = { runId, caseId: key, criterionId: "c", judge: "local:a", sampleIndex: 0 };
  const t = yield* one(
    db
      .insert(tasks)
      .values({ ...base, key })
      .returning({ id: tasks.id }),
  );
  yield* write(db.insert(samples).values({ ...base, taskId: t?.id ?? 0, score: 1 }));
});
const addLabel = query(function* (db, runId: string, caseId: string) {
  const { verdictLabels, verdictLabelHistory } = db.tables;
  yield* write(
    db.insert(verdictLabels).values({ runId, caseId, criterionId: "c", passed: true, source: "human" }),
  );
  yield* write(
    db.insert(verdictLabelHistory).values({ runId, caseId, criterionId: "c", passed: true, source: "human" }),
  );
});
/** Stores a set inside a transaction that then fails. */
const insertSetThenFail = query(function* (db, s: NewAgreementSet) {
  yield* tx(db, function* (t) {
    yield* insertAgreementSet.body(t, s, new Date(5));
    throw new Error("after the set");
  });
});

describe.each(storeKinds())("agreement queries on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("stores a set whole and reads it back: options and data JSON, nulls, items by position, judgments sorted", async () => {
    const { db } = store;
    const at = new Date(1_700_000_000_123);
    await insertAgreementSet(db, { ...set("s1"), createdBy: "ayse (cli)" }, at);
    expect(await getAgreementSet(db, "s1")).toEqual({
      id: "s1",
      kind: "jsonl",
      name: "set s1",
      options: set("s1").options,
      createdAt: at,
      createdBy: "ayse (cli)",
    });
    const opts = (await getAgreementSet(db, "s1"))?.options;
    expect(JSON.stringify(opts)).toBe(JSON.stringify(set("s1").options)); // key order kept
    expect(await getAgreementItems(db, "s1")).toEqual([...ITEMS].sort((a, b) => a.position - b.position));
    const judgments = await getAgreementJudgments(db, "s1");
    expect(judgments).toEqual(JUDGMENTS.map(stored).sort(judgmentOrder));
    expect(judgments.map((j) => j.judge)).toEqual([
      "Anthropic:a",
      "Anthropic:a",
      "openai:b",
      "openai:b",
      "é",
    ]);
    expect(await getAgreementSet(db, "nope")).toBeUndefined();
    expect(await getAgreementItems(db, "nope")).toEqual([]);
    expect(await getAgreementJudgments(db, "nope")).toEqual([]);
  });

  it("defaults createdAt to now", async () => {
    const before = Date.now();
    await insertAgreementSet(store.db, set("s1"));
    const after = Date.now();
    const t = (await getAgreementSet(store.db, "s1"))?.createdAt.getTime() ?? 0;
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(after);
  });

  it("stores a large set entirely (more rows than one insert takes)", async () => {
    const items = Array.from({ length: 1203 }, (_, i) => ({
      itemId: `i${String(i).padStart(4, "0")}`,
      position: i,
      gold: i % 4,
      data: null,
    }));
    const judgments = items.flatMap((it) =>
      ["j1", "j2"].map((judge) => ({ itemId: it.itemId, judge, label: it.gold })),
    );
    await insertAgreementSet(store.db, set("big", { items, judgments }), new Date(1));
    expect(await getAgreementItems(store.db, "big")).toEqual(items);
    const got = await getAgreementJudgments(store.db, "big");
    expect(got).toEqual(judgments.map(stored).sort(judgmentOrder));
    expect((await listAgreementSets(store.db))[0]).toMatchObject({
      items: 1203,
      judgments: 2406,
      judges: ["j1", "j2"],
    });
  });

  it("stores nothing of a set that breaks a constraint, and nothing of one whose transaction fails", async () => {
    const { db } = store;
    const dup = set("bad", { judgments: [...JUDGMENTS, { itemId: "q2", judge: "openai:b", label: 0 }] });
    let err: unknown;
    try {
      await insertAgreementSet(db, dup);
    } catch (e) {
      err = e;
    }
    expect(constraintViolated(err)).toBe("unique");
    expect(await getAgreementSet(db, "bad")).toBeUndefined();
    expect(await getAgreementItems(db, "bad")).toEqual([]);
    expect(await getAgreementJudgments(db, "bad")).toEqual([]);

    await expect(async () => insertSetThenFail(db, set("rolled"))).rejects.toThrow("after the set");
    expect(await getAgreementSet(db, "rolled")).toBeUndefined();
    expect(await getAgreementItems(db, "rolled")).toEqual([]);
    expect(await listAgreementSets(db)).toEqual([]);

    await insertAgreementSet(db, set("s1"));
    let again: unknown;
    try {
      await insertAgreementSet(db, set("s1", { name: "twice" }));
    } catch (e) {
      again = e;
    }
    expect(constraintViolated(again)).toBe("unique");
    expect((await getAgreementSet(db, "s1"))?.name).toBe("set s1");
  });

  it("lists sets newest first (ties by id), with counts and distinct sorted judges, up to a limit", async () => {
    const { db } = store;
    expect(await listAgreementSets(db)).toEqual([]);
    await insertAgreementSet(db, set("b", { items: [], judgments: [] }), new Date(2000));
    await insertAgreementSet(db, set("a"), new Date(2000));
    await insertAgreementSet(db, set("old", { kind: "trec" }), new Date(-5));
    await insertAgreementSet(
      db,
      set("new", { items: ITEMS.slice(0, 1), judgments: JUDGMENTS.slice(0, 1) }),
      new Date(9e12),
    );
    const judgesOfAll = [...new Set(JUDGMENTS.map((j) => j.judge))].sort(byteOrder);
    const list = await listAgreementSets(db);
    expect(list.map((s) => s.id)).toEqual(["new", "a", "b", "old"]);
    expect(list[0]).toEqual({
      id: "new",
      kind: "jsonl",
      name: "set new",
      options: set("new").options,
      createdAt: new Date(9e12),
      createdBy: null, // who made it not given
      items: 1,
      judgments: 1,
      judges: ["openai:b"],
    });
    expect(list[1]).toMatchObject({ items: 3, judgments: 5, judges: judgesOfAll });
    expect(list[2]).toMatchObject({ items: 0, judgments: 0, judges: [] });
    expect(list[3]).toMatchObject({ kind: "trec", createdAt: new Date(-5) });
    expect((await listAgreementSets(db, { limit: 2 })).map((s) => s.id)).toEqual(["new", "a"]);
  });

  it("puts a response in the cache, replacing one of the same key", async () => {
    const { db } = store;
    const before = Date.now();
    await putResponse(db, { key: "k", text: "first ä", inputTokens: 1, outputTokens: 2 });
    await putResponse(db, { key: "other", text: "o", inputTokens: 0, outputTokens: 0 });
    await putResponse(db, { key: "k", text: "second 😀", inputTokens: 30, outputTokens: 40 });
    const after = Date.now();
    const k = await cachedResponse(db, "k");
    expect(k).toMatchObject({ key: "k", text: "second 😀", inputTokens: 30, outputTokens: 40 });
    expect(k?.createdAt).toBeInstanceOf(Date);
    expect(k?.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(k?.createdAt.getTime()).toBeLessThanOrEqual(after);
    expect(await cachedResponse(db, "other")).toMatchObject({ text: "o", inputTokens: 0 });
  });

  it("puts and gets stored reports, replacing one of the same subject", async () => {
    const { db } = store;
    expect(await getAgreementReport(db, "s1")).toBeUndefined();
    const r1 = {
      subjectId: "s1",
      kind: "set" as const,
      stamp: SET_STAMP,
      report: '{"a":1}',
      cpuMs: 12,
      computedAt: new Date(1000),
    };
    await putAgreementReport(db, r1);
    expect(await getAgreementReport(db, "s1")).toEqual(r1);
    const r2 = {
      subjectId: "s1",
      kind: "run" as const,
      stamp: "labels 1/1",
      report: "{}",
      cpuMs: 0,
      computedAt: new Date(2_000_000_000_000),
    };
    await putAgreementReport(db, r2);
    await putAgreementReport(db, { ...r1, subjectId: "s2" });
    expect(await getAgreementReport(db, "s1")).toEqual(r2);
    expect(await getAgreementReport(db, "s2")).toEqual({ ...r1, subjectId: "s2" });
  });

  it("stamps a run by its label history, labels, samples and status", async () => {
    const { db } = store;
    expect(await runAgreementStamp(db, "r1")).toBe("labels 0/0 · samples 0 · ?");
    await addRun(db, "r1", "running");
    await addRun(db, "r2", "done");
    expect(await runAgreementStamp(db, "r1")).toBe("labels 0/0 · samples 0 · running");
    await addSample(db, "r1", "c1");
    await addSample(db, "r1", "c2");
    await addSample(db, "r2", "c1");
    await addLabel(db, "r2", "c1"); // history id 1, another run's
    await addLabel(db, "r1", "c1"); // history id 2
    await addLabel(db, "r1", "c2"); // history id 3
    expect(await runAgreementStamp(db, "r1")).toBe("labels 3/2 · samples 2 · running");
    expect(await runAgreementStamp(db, "r2")).toBe("labels 1/1 · samples 1 · done");
    expect(SET_STAMP).toBe("set v1");
  });
});
