import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { query, write } from "../op";
import type { RetrievalConfig } from "../schema";
import {
  finishExperiment,
  getExperiment,
  getExperimentResults,
  insertExperiment,
  insertExperimentResult,
  listExperiments,
  pooledMemoryIds,
  setExperimentStatus,
} from "./experiments";

const CONFIG = {
  kind: "bm25",
  mode: "search",
  topK: 5,
  poolSize: 20,
  shuffle: false,
  extra: { "z-first": 1, "a-second": [0.1 + 0.2, null, "ä😀"] },
} as unknown as RetrievalConfig;

/** Sets an experiment's creation time (insertExperiment takes now). */
const setCreatedAt = query(function* (db, id: string, at: Date) {
  const { experiments } = db.tables;
  yield* write(db.update(experiments).set({ createdAt: at }).where(eq(experiments.id, id)));
});

const result = (experimentId: string, queryId: string, retrieved: string[], candidates: string[]) => ({
  experimentId,
  queryId,
  retrieved,
  candidates: candidates.map((memoryId, i) => ({ memoryId, score: 1 / (i + 1) })),
  path: "bm25",
  latencyMs: 1.5,
});

describe.each(storeKinds())("experiment queries on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("inserts an experiment queued, sets its status, finishes it (with and without an error)", async () => {
    const { db } = store;
    expect(await getExperiment(db, "e1")).toBeUndefined();
    const before = Date.now();
    await insertExperiment(db, { id: "e1", collection: "c", label: "BM25 ä", config: CONFIG });
    const e = await getExperiment(db, "e1");
    expect(e).toMatchObject({
      id: "e1",
      collection: "c",
      label: "BM25 ä",
      status: "queued",
      error: null,
      finishedAt: null,
    });
    expect(JSON.stringify(e?.config)).toBe(JSON.stringify(CONFIG));
    expect(e?.createdAt.getTime()).toBeGreaterThanOrEqual(before);

    await finishExperiment(db, "e1", "failed", "boom");
    const failed = await getExperiment(db, "e1");
    expect(failed).toMatchObject({ status: "failed", error: "boom" });
    expect(failed?.finishedAt).toBeInstanceOf(Date);

    await setExperimentStatus(db, "e1", "running");
    expect(await getExperiment(db, "e1")).toMatchObject({ status: "running", error: null, finishedAt: null });

    const t0 = Date.now();
    await finishExperiment(db, "e1", "done");
    const done = await getExperiment(db, "e1");
    expect(done).toMatchObject({ status: "done", error: null });
    expect(done?.finishedAt?.getTime()).toBeGreaterThanOrEqual(t0);

    await setExperimentStatus(db, "nope", "running"); // no row: nothing happens
    expect(await getExperiment(db, "nope")).toBeUndefined();
  });

  it("lists a collection's experiments newest first", async () => {
    const { db } = store;
    expect(await listExperiments(db, "c")).toEqual([]);
    for (const [id, at, collection] of [
      ["e1", 1000, "c"],
      ["e2", 3000, "c"],
      ["e3", -5, "c"],
      ["x1", 9000, "other"],
    ] as const) {
      await insertExperiment(db, { id, collection, label: id, config: CONFIG });
      await setCreatedAt(db, id, new Date(at));
    }
    const list = await listExperiments(db, "c");
    expect(list.map((e) => e.id)).toEqual(["e2", "e1", "e3"]);
    expect(list[2].createdAt).toEqual(new Date(-5));
    expect((await listExperiments(db, "other")).map((e) => e.id)).toEqual(["x1"]);
    // made in the same millisecond: the same order on both stores (by id, newest-first's tie-break)
    for (const id of ["t-b", "t-c", "t-a"]) {
      await insertExperiment(db, { id, collection: "ties", label: id, config: CONFIG });
      await setCreatedAt(db, id, new Date(5000));
    }
    expect((await listExperiments(db, "ties")).map((e) => e.id)).toEqual(["t-c", "t-b", "t-a"]);
  });

  it("stores results once per query (a second is ignored) and reads them in query id order", async () => {
    const { db } = store;
    await insertExperiment(db, { id: "e1", collection: "c", label: "l", config: CONFIG });
    await insertExperimentResult(db, result("e1", "q2", ["m1"], ["m1", "m2"]));
    await insertExperimentResult(db, {
      ...result("e1", "Q9", [], []),
      error: "timeout",
      inputTokens: 7,
      costUsd: 0.25,
    });
    await insertExperimentResult(db, result("e1", "q10", ["ä"], ["ä"]));
    await insertExperimentResult(db, result("e1", "q2", ["changed"], [])); // ignored
    const rows = await getExperimentResults(db, "e1");
    expect(rows.map((r) => r.queryId)).toEqual(["Q9", "q10", "q2"]);
    expect(rows[2]).toEqual({
      ...result("e1", "q2", ["m1"], ["m1", "m2"]),
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      error: null,
    });
    expect(rows[0]).toMatchObject({
      error: "timeout",
      inputTokens: 7,
      costUsd: 0.25,
      retrieved: [],
      candidates: [],
    });
    expect(await getExperimentResults(db, "nope")).toEqual([]);
  });

  it("pools a query's retrieved memories and top candidates across a collection's experiments, in experiment order", async () => {
    const { db } = store;
    expect(await pooledMemoryIds(db, "c", "q1")).toEqual([]);
    for (const [id, collection, at] of [
      ["eB", "c", 1000],
      ["eA", "c", 2000],
      ["eX", "other", 500],
    ] as const) {
      await insertExperiment(db, { id, collection, label: id, config: CONFIG });
      await setCreatedAt(db, id, new Date(at));
    }
    const many = Array.from({ length: 12 }, (_, i) => `c${i}`);
    await insertExperimentResult(db, result("eB", "q1", ["m3", "m1"], ["m1", ...many]));
    await insertExperimentResult(db, result("eA", "q1", ["m2"], ["m9", "m3"]));
    await insertExperimentResult(db, result("eA", "q2", ["z"], ["z"]));
    await insertExperimentResult(db, result("eX", "q1", ["other"], ["other"]));
    expect(await pooledMemoryIds(db, "c", "q1")).toEqual(["m3", "m1", ...many.slice(0, 9), "m2", "m9"]);
    expect(await pooledMemoryIds(db, "c", "q1", 1)).toEqual(["m3", "m1", "m2", "m9"]);
    expect(await pooledMemoryIds(db, "c", "q2")).toEqual(["z"]);
    expect(await pooledMemoryIds(db, "other", "q1")).toEqual(["other"]);
  });
});
