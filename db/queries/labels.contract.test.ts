// The verdict-label queries on both stores: the same answers from SQLite (its prepared statements,
// synchronously) and PostgreSQL (builders), every expectation computed here.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import type { AnyDb, SqliteDb } from "../client";
import { constraintViolated, query, write } from "../op";
import {
  getVerdictLabel,
  listLabelledRuns,
  listVerdictLabelHistory,
  listVerdictLabels,
  removeVerdictLabel,
  setVerdictLabel,
  setVerdictLabels,
  undoableVerdictLabelChange,
  undoLastVerdictLabel,
} from "./labels";

/** Runs, and result cells of a run (the cells a labelled run counts). */
const addRun = query(function* (db, id: string, createdAt: Date, cells: string[] = []) {
  const { runs, results } = db.tables;
  yield* write(
    db.insert(runs).values({
      id,
      suitePath: `p/${id}`,
      suiteName: `suite ${id}`,
      status: "done",
      options: { judges: ["j"], n: 1 } as never,
      createdAt,
    }),
  );
  for (const caseId of cells)
    yield* write(
      db.insert(results).values({ runId: id, caseId, criterionId: "c", passed: true, data: {} as never }),
    );
});

describe.each(storeKinds())("verdict labels on %s", (kind) => {
  let store: Store;
  let db: AnyDb;
  const k = { runId: "r1", caseId: "c1", criterionId: "helpful" };
  beforeEach(async () => {
    store = await freshStore(kind);
    db = store.db;
    await addRun(db, "r1", new Date(1_700_000_000_123), ["c1", "c2", "c3"]);
    await addRun(db, "r2", new Date(1_600_000_000_000));
  });
  afterEach(() => store.close());

  it("no label, then one set with its source, who, note and time; the same label again is no change", async () => {
    expect(await getVerdictLabel(db, k)).toBeUndefined();
    expect(await listVerdictLabels(db, "r1")).toEqual([]);
    expect(await listVerdictLabelHistory(db, "r1")).toEqual([]);
    const t0 = Date.now();
    expect(
      await setVerdictLabel(db, k, { passed: true, score: 7.5 }, { labeller: "ana", note: "clear" }),
    ).toEqual({
      changed: true,
      previous: null,
    });
    const l = await getVerdictLabel(db, k);
    expect(l).toEqual({
      ...k,
      passed: true,
      score: 7.5,
      source: "human",
      labeller: "ana",
      author: null,
      note: "clear",
      updatedAt: expect.any(Date),
    });
    expect(l!.updatedAt.getTime()).toBeGreaterThanOrEqual(t0);
    // the same label from an import: its provenance refreshed, the note kept (none given), no history entry
    expect(await setVerdictLabel(db, k, { passed: true, score: 7.5 }, { source: "import" })).toEqual({
      changed: false,
      previous: { passed: true, score: 7.5 },
    });
    expect(await getVerdictLabel(db, k)).toMatchObject({ source: "import", labeller: null, note: "clear" });
    // a new note replaces the old one
    await setVerdictLabel(db, k, { passed: false, score: null }, { note: "changed my mind" });
    expect(await getVerdictLabel(db, k)).toMatchObject({
      passed: false,
      score: null,
      note: "changed my mind",
    });
    const h = await listVerdictLabelHistory(db, "r1");
    expect(
      h.map((x) => [x.passed, x.score, x.previousPassed, x.previousScore, x.source, x.labeller]),
    ).toEqual([
      [false, null, true, 7.5, "human", null],
      [true, 7.5, null, null, "human", "ana"],
    ]);
    expect(h[0].at).toBeInstanceOf(Date);
    expect(typeof h[0].id).toBe("number");
    expect(h[0].id).toBeGreaterThan(h[1].id);
  });

  it("a label and each history entry name their author; a second person's same label is their own entry", async () => {
    await setVerdictLabel(db, k, { passed: true, score: 7 }, { author: "ana" });
    expect(await getVerdictLabel(db, k)).toMatchObject({ author: "ana", labeller: null });
    // ana again: no change, no entry; bo with the same label: no change, but bo's judgement is kept
    expect(await setVerdictLabel(db, k, { passed: true, score: 7 }, { author: "ana" })).toMatchObject({
      changed: false,
    });
    expect(await setVerdictLabel(db, k, { passed: true, score: 7 }, { author: "bo" })).toMatchObject({
      changed: false,
    });
    expect(await getVerdictLabel(db, k)).toMatchObject({ author: "bo" });
    await removeVerdictLabel(db, k, { author: "cy" });
    const h = await listVerdictLabelHistory(db, "r1");
    expect(h.map((x) => [x.passed, x.previousPassed, x.author])).toEqual([
      [null, true, "cy"],
      [true, true, "bo"],
      [true, null, "ana"],
    ]);
    // dee undoes cy's removal: the entry names dee, the label comes back as bo's
    expect(await undoLastVerdictLabel(db, "r1", { author: "dee" })).toMatchObject({ author: "cy" });
    expect(await getVerdictLabel(db, k)).toMatchObject({ passed: true, score: 7, author: "bo" });
    expect((await listVerdictLabelHistory(db, "r1"))[0]).toMatchObject({ source: "undo", author: "dee" });
  });

  it("lists a run's labels by case then criterion (byte order), and only that run's", async () => {
    await setVerdictLabels(
      db,
      [
        { runId: "r1", caseId: "c2", criterionId: "b", passed: true, score: null },
        { runId: "r1", caseId: "C9", criterionId: "a", passed: false, score: 0 },
        { runId: "r1", caseId: "c1", criterionId: "z", passed: true, score: 1e-9 },
        { runId: "r1", caseId: "c1", criterionId: "a", passed: false, score: -2.25 },
        { runId: "r2", caseId: "c1", criterionId: "a", passed: true, score: 3 },
      ],
      { labeller: "imp" },
    );
    const got = await listVerdictLabels(db, "r1");
    expect(got.map((l) => [l.caseId, l.criterionId, l.passed, l.score, l.source, l.labeller])).toEqual([
      ["C9", "a", false, 0, "import", "imp"],
      ["c1", "a", false, -2.25, "import", "imp"],
      ["c1", "z", true, 1e-9, "import", "imp"],
      ["c2", "b", true, null, "import", "imp"],
    ]);
    // one call: one time for all of them
    expect(new Set(got.map((l) => l.updatedAt.getTime())).size).toBe(1);
    expect(await listVerdictLabels(db, "r3")).toEqual([]);
  });

  it("sets many labels in one transaction: counts the changes; one that cannot be written undoes them all", async () => {
    expect(
      await setVerdictLabels(db, [
        { ...k, passed: true, score: 1 },
        { ...k, caseId: "c2", passed: true, score: null },
      ]),
    ).toBe(2);
    // the same again, and one changed, and one label given twice (the second a change from the first)
    expect(
      await setVerdictLabels(db, [
        { ...k, passed: true, score: 1 },
        { ...k, caseId: "c2", passed: false, score: null },
        { ...k, caseId: "c3", passed: true, score: 2 },
        { ...k, caseId: "c3", passed: true, score: 3 },
      ]),
    ).toBe(3);
    expect((await getVerdictLabel(db, { ...k, caseId: "c3" }))?.score).toBe(3);
    const before = await listVerdictLabelHistory(db, "r1");
    expect(before).toHaveLength(5);
    let err: unknown;
    try {
      // a run that does not exist: a foreign key, after a label that would have changed
      await setVerdictLabels(db, [
        { ...k, passed: false, score: null },
        { ...k, runId: "nope", passed: true, score: null },
      ]);
    } catch (e) {
      err = e;
    }
    expect(constraintViolated(err)).toBe("foreign_key");
    expect(await getVerdictLabel(db, k)).toMatchObject({ passed: true, score: 1 });
    expect(await listVerdictLabelHistory(db, "r1")).toEqual(before);
  });

  it("removes a label (the history keeps it); removing none is no change", async () => {
    expect(await removeVerdictLabel(db, k)).toEqual({ changed: false, previous: null });
    await setVerdictLabel(db, k, { passed: true, score: 4 }, { labeller: "ana" });
    expect(await removeVerdictLabel(db, k, { labeller: "bo" })).toEqual({
      changed: true,
      previous: { passed: true, score: 4 },
    });
    expect(await getVerdictLabel(db, k)).toBeUndefined();
    expect(await listVerdictLabels(db, "r1")).toEqual([]);
    expect((await listVerdictLabelHistory(db, "r1"))[0]).toMatchObject({
      passed: null,
      score: null,
      previousPassed: true,
      previousScore: 4,
      source: "human",
      labeller: "bo",
    });
  });

  it("history: newest first, one case × criterion's, a limit", async () => {
    await setVerdictLabel(db, k, { passed: true, score: null });
    await setVerdictLabel(db, { ...k, criterionId: "other" }, { passed: true, score: null });
    await setVerdictLabel(db, { ...k, caseId: "c2" }, { passed: false, score: null });
    await setVerdictLabel(db, k, { passed: false, score: null });
    await setVerdictLabel(db, { ...k, runId: "r2" }, { passed: false, score: null });
    const all = await listVerdictLabelHistory(db, "r1");
    expect(all.map((h) => [h.caseId, h.criterionId, h.passed])).toEqual([
      ["c1", "helpful", false],
      ["c2", "helpful", false],
      ["c1", "other", true],
      ["c1", "helpful", true],
    ]);
    expect(
      (await listVerdictLabelHistory(db, "r1", { caseId: "c1", criterionId: "helpful" })).map(
        (h) => h.passed,
      ),
    ).toEqual([false, true]);
    // a case without a criterion narrows nothing (both are needed)
    expect(await listVerdictLabelHistory(db, "r1", { caseId: "c1" })).toHaveLength(4);
    expect((await listVerdictLabelHistory(db, "r1", { limit: 2 })).map((h) => h.caseId)).toEqual([
      "c1",
      "c2",
    ]);
    expect(await listVerdictLabelHistory(db, "r2")).toHaveLength(1);
  });

  it("undo walks the changes back one at a time, each restored label with the source that set it", async () => {
    expect(await undoableVerdictLabelChange(db, "r1")).toBeUndefined();
    expect(await undoLastVerdictLabel(db, "r1")).toBeUndefined();
    await setVerdictLabel(db, k, { passed: true, score: 5 }, { source: "import" });
    await setVerdictLabel(db, k, { passed: false, score: 5 }, { labeller: "ana" });
    await setVerdictLabel(db, k, { passed: true, score: 5 }, { labeller: "bo" });
    await setVerdictLabel(db, { ...k, caseId: "c2" }, { passed: true, score: null });
    expect(await undoableVerdictLabelChange(db, "r1")).toMatchObject({ caseId: "c2", passed: true });
    // 1: c2 had no label → removed
    expect(await undoLastVerdictLabel(db, "r1", { labeller: "cy" })).toMatchObject({
      caseId: "c2",
      previousPassed: null,
    });
    expect(await getVerdictLabel(db, { ...k, caseId: "c2" })).toBeUndefined();
    expect((await listVerdictLabelHistory(db, "r1"))[0]).toMatchObject({
      caseId: "c2",
      passed: null,
      previousPassed: true,
      source: "undo",
      labeller: "cy",
    });
    // 2: c1 back to failed with 5, as ana set it (a person's)
    expect(await undoableVerdictLabelChange(db, "r1")).toMatchObject({ caseId: "c1", labeller: "bo" });
    await undoLastVerdictLabel(db, "r1");
    expect(await getVerdictLabel(db, k)).toMatchObject({ passed: false, score: 5, source: "human" });
    // 3: back to passed with 5, as the import set it
    await undoLastVerdictLabel(db, "r1");
    expect(await getVerdictLabel(db, k)).toMatchObject({ passed: true, score: 5, source: "import" });
    // 4: no label before the import
    await undoLastVerdictLabel(db, "r1");
    expect(await getVerdictLabel(db, k)).toBeUndefined();
    expect(await undoableVerdictLabelChange(db, "r1")).toBeUndefined();
    expect(await undoLastVerdictLabel(db, "r1")).toBeUndefined();
    expect(await listVerdictLabelHistory(db, "r1")).toHaveLength(8);
  });

  it("an undo matches the restored score exactly, a null score with a null one", async () => {
    const x = 0.1 + 0.2;
    await setVerdictLabel(db, k, { passed: true, score: x }, { source: "import" });
    await setVerdictLabel(db, k, { passed: true, score: 0.3 }, { labeller: "ana" });
    await undoLastVerdictLabel(db, "r1");
    expect(await getVerdictLabel(db, k)).toMatchObject({ score: x, source: "import" });
    await setVerdictLabel(db, k, { passed: true, score: null });
    // back to x: set by the import, not by the person's 0.3 (close, not equal) nor by the undo
    await undoLastVerdictLabel(db, "r1");
    expect(await getVerdictLabel(db, k)).toMatchObject({ passed: true, score: x, source: "import" });

    const k2 = { ...k, caseId: "c2" };
    await setVerdictLabel(db, k2, { passed: false, score: null }, { source: "import" });
    await setVerdictLabel(db, k2, { passed: true, score: null });
    await undoLastVerdictLabel(db, "r1");
    expect(await getVerdictLabel(db, k2)).toMatchObject({ passed: false, score: null, source: "import" });
  });

  it("lists the labelled runs, newest label first, with their labels and cells", async () => {
    expect(await listLabelledRuns(db)).toEqual([]);
    await setVerdictLabels(db, [
      { ...k, passed: true, score: null },
      { ...k, caseId: "c2", passed: true, score: null },
    ]);
    await new Promise((r) => setTimeout(r, 5));
    await setVerdictLabel(db, { ...k, runId: "r2" }, { passed: false, score: 1 });
    const newest = (await getVerdictLabel(db, { ...k, runId: "r2" }))!.updatedAt;
    const r1Label = (await getVerdictLabel(db, k))!.updatedAt;
    expect(await listLabelledRuns(db)).toEqual([
      {
        runId: "r2",
        suiteName: "suite r2",
        status: "done",
        createdAt: new Date(1_600_000_000_000),
        labels: 1,
        cells: 0,
        lastLabelledAt: newest,
      },
      {
        runId: "r1",
        suiteName: "suite r1",
        status: "done",
        createdAt: new Date(1_700_000_000_123),
        labels: 2,
        cells: 3,
        lastLabelledAt: r1Label,
      },
    ]);
  });

  it.runIf(kind === "sqlite")("answers synchronously on SQLite", () => {
    const s = store.db as SqliteDb;
    expect(setVerdictLabel(s, k, { passed: true, score: null })).toEqual({ changed: true, previous: null });
    expect(getVerdictLabel(s, k)).toMatchObject({ passed: true });
    expect(listVerdictLabels(s, "r1")).toHaveLength(1);
    expect(setVerdictLabels(s, [{ ...k, passed: false, score: null }])).toBe(1);
    expect(removeVerdictLabel(s, k)).toMatchObject({ changed: true });
    expect(undoableVerdictLabelChange(s, "r1")).toMatchObject({ passed: null });
    expect(undoLastVerdictLabel(s, "r1")).toMatchObject({ passed: null });
    expect(listVerdictLabelHistory(s, "r1")).toHaveLength(4);
    expect(listLabelledRuns(s)).toHaveLength(1);
  });
});
