import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { query, write } from "../op";
import { getOpenRunBatches, getRunBatches, insertRunBatch, updateRunBatch } from "./batches";

const addRun = query(function* (db, id: string) {
  yield* write(
    db
      .insert(db.tables.runs)
      .values({ id, suitePath: `p/${id}`, suiteName: id, options: { judges: [] } as never }),
  );
});
const setCreatedAt = query(function* (db, id: string, at: Date) {
  const { runBatches } = db.tables;
  yield* write(db.update(runBatches).set({ createdAt: at }).where(eq(runBatches.id, id)));
});

describe.each(storeKinds())("run batches on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("stores a batch, lists a run's oldest first, updates and leaves out the closed from the open", async () => {
    const db = store.db;
    await addRun(db, "r1");
    await addRun(db, "r2");
    expect(await getRunBatches(db, { runId: "r1" })).toEqual([]);
    expect(await getOpenRunBatches(db, { runId: "r1" })).toEqual([]);
    const t0 = Date.now();
    await insertRunBatch(db, {
      id: "b-late",
      runId: "r1",
      judge: "openai:gpt",
      taskIds: [3, 1, 2],
      inputFileId: "file-1",
    });
    await insertRunBatch(db, { id: "b-early", runId: "r1", judge: "anthropic:claude", taskIds: [] });
    await insertRunBatch(db, { id: "b-mid", runId: "r1", judge: "openai:gpt", taskIds: [7] });
    await insertRunBatch(db, { id: "b-other", runId: "r2", judge: "openai:gpt", taskIds: [9] });
    await setCreatedAt(db, "b-early", new Date(1_000));
    await setCreatedAt(db, "b-mid", new Date(2_000));
    await setCreatedAt(db, "b-late", new Date(3_000));

    const listed = await getRunBatches(db, { runId: "r1" });
    expect(listed.map((b) => b.id)).toEqual(["b-early", "b-mid", "b-late"]);
    const late = listed[2];
    expect(late).toMatchObject({
      runId: "r1",
      judge: "openai:gpt",
      status: "submitted",
      taskIds: [3, 1, 2],
      succeeded: 0,
      failed: 0,
      inputFileId: "file-1",
      error: null,
      createdAt: new Date(3_000),
    });
    expect(listed[0]).toMatchObject({ taskIds: [], inputFileId: null });
    expect(late.updatedAt?.getTime()).toBeGreaterThanOrEqual(t0);

    await updateRunBatch(db, "b-mid", { status: "in_progress", succeeded: 4 });
    await updateRunBatch(db, "b-early", {
      status: "collected",
      succeeded: 1,
      failed: 2,
      error: "two failed",
    });
    await updateRunBatch(db, "b-late", { status: "failed", error: null });
    await updateRunBatch(db, "missing", { status: "cancelled" });
    expect((await getOpenRunBatches(db, { runId: "r1" })).map((b) => [b.id, b.status, b.succeeded])).toEqual([
      ["b-mid", "in_progress", 4],
    ]);
    const after = await getRunBatches(db, { runId: "r1" });
    expect(after[0]).toMatchObject({
      id: "b-early",
      status: "collected",
      succeeded: 1,
      failed: 2,
      error: "two failed",
    });
    expect(after[2]).toMatchObject({ id: "b-late", status: "failed", error: null, inputFileId: "file-1" });
    expect((await getOpenRunBatches(db, { runId: "r2" })).map((b) => b.id)).toEqual(["b-other"]);
    expect(await getOpenRunBatches(db, { runId: "none" })).toEqual([]);
  });

  it("refuses a batch of a run that does not exist, and a batch id twice", async () => {
    const db = store.db;
    await addRun(db, "r1");
    await expect(
      Promise.resolve().then(() => insertRunBatch(db, { id: "b", runId: "nope", judge: "j", taskIds: [] })),
    ).rejects.toThrow();
    await insertRunBatch(db, { id: "b", runId: "r1", judge: "j", taskIds: [1] });
    await expect(
      Promise.resolve().then(() => insertRunBatch(db, { id: "b", runId: "r1", judge: "j2", taskIds: [2] })),
    ).rejects.toThrow();
    expect((await getRunBatches(db, { runId: "r1" })).map((b) => [b.id, b.judge])).toEqual([["b", "j"]]);
  });
});
