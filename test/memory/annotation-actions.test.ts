// The dashboard's annotation actions with the real queries: a relabel is a history entry from a
// person, undo restores the earlier label, a fresh annotation clears the labels and keeps the history.
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";

vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

beforeAll(() => {
  process.env.JURY_DB = path.join(tempDir(), "annotate.db");
});

describe("annotate, undo and a fresh annotation (server actions + queries)", () => {
  it("relabelling a query adds a history entry; undo restores the earlier label", async () => {
    const { annotate, importExampleStudy, undoAnnotation } = await import("@/app/actions/memory");
    const { getDb } = await import("@/db/client");
    const { listAnnotationHistory, listAnnotations, getStudyMeta } = await import("@/db/queries/study");
    expect(await importExampleStudy()).toEqual({ ok: true, data: { collection: "shop-api" } });
    const db = getDb();
    expect(await getStudyMeta(db, "shop-api")).toMatchObject({
      labelConvention: "annotated",
      origin: "example",
    });
    const label = async () =>
      (await listAnnotations(db, "shop-api", "q01")).find(
        (a) => a.memoryId === "bug-double-fulfilment-webhook-retry",
      );
    expect(await label()).toMatchObject({ relevance: 1, source: "example" });
    const before = (await listAnnotationHistory(db, "shop-api", "q01")).length;

    expect(
      await annotate({
        collection: "shop-api",
        queryId: "q01",
        memoryId: "bug-double-fulfilment-webhook-retry",
        relevant: false,
      }),
    ).toEqual({ ok: true, data: null });
    expect(await label()).toMatchObject({ relevance: 0, source: "human" });
    const history = await listAnnotationHistory(db, "shop-api", "q01");
    expect(history).toHaveLength(before + 1);
    expect(history[0]).toMatchObject({
      memoryId: "bug-double-fulfilment-webhook-retry",
      previous: 1,
      relevance: 0,
      source: "human",
      // the one-person dashboard's actor
      author: "local",
    });
    expect(await label()).toMatchObject({ author: "local" });
    expect(history[0].at).toBeInstanceOf(Date);

    expect(await undoAnnotation({ collection: "shop-api", queryId: "q01" })).toEqual({
      ok: true,
      data: { memoryId: "bug-double-fulfilment-webhook-retry", restored: 1 },
    });
    expect(await label()).toMatchObject({ relevance: 1, source: "example" });
    expect((await listAnnotationHistory(db, "shop-api", "q01"))[0]).toMatchObject({
      source: "undo",
      relevance: 1,
    });

    // importing the example again opens it: a person's labels are never overwritten
    await annotate({
      collection: "shop-api",
      queryId: "q02",
      memoryId: "preference-config-module",
      relevant: true,
    });
    expect(await importExampleStudy()).toEqual({ ok: true, data: { collection: "shop-api" } });
    expect(
      (await listAnnotations(db, "shop-api", "q02")).find((a) => a.memoryId === "preference-config-module"),
    ).toMatchObject({ relevance: 1, source: "human" });
  });

  it("a BM25 configuration started from the dashboard is labelled with its real depth, not the judge's pool", async () => {
    const { startExperiment } = await import("@/app/actions/memory");
    const { getDb } = await import("@/db/client");
    const { getExperiment } = await import("@/db/queries/experiments");
    const f = new FormData();
    for (const [k, v] of Object.entries({
      collection: "shop-api",
      kind: "bm25",
      mode: "auto",
      topK: "3",
      poolSize: "15",
      n: "1",
    }))
      f.append(k, v);
    const r = await startExperiment(null, f);
    if (!r?.ok) throw new Error(`not started: ${JSON.stringify(r)}`);
    const deadline = Date.now() + 10_000;
    while ((await getExperiment(getDb(), r.data.id))?.status !== "done" && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 20));
    expect(await getExperiment(getDb(), r.data.id)).toMatchObject({
      label: "BM25 · auto · top 3 · depth 100",
      status: "done",
      config: { kind: "bm25", poolSize: 100, depth: 100 },
    });
  });

  it("a fresh annotation clears the labels (history kept) and every query needs annotation, out of the metrics", async () => {
    const { startFreshAnnotation, undoAnnotation } = await import("@/app/actions/memory");
    const { getDb } = await import("@/db/client");
    const { getQrels, getStudyMeta, listAnnotationHistory, listAnnotations, listStudyQueries } = await import(
      "@/db/queries/study"
    );
    const db = getDb();
    const history = (await listAnnotationHistory(db, "shop-api", "q03")).length;
    const r = await startFreshAnnotation({ collection: "shop-api" });
    expect(r).toMatchObject({ ok: true, data: { queries: 20 } });
    expect(await listAnnotations(db, "shop-api")).toEqual([]);
    expect((await listStudyQueries(db, "shop-api")).filter((q) => q.labelled)).toEqual([]);
    expect((await getQrels(db, "shop-api")).size).toBe(0);
    expect(await getStudyMeta(db, "shop-api")).toMatchObject({
      origin: "human",
      labelConvention: "annotated",
    });
    // one entry per query, not one per label cleared
    expect((await listAnnotationHistory(db, "shop-api", "q03")).length).toBe(history + 1);
    expect((await listAnnotationHistory(db, "shop-api", "q03"))[0]).toMatchObject({
      source: "fresh",
      memoryId: null,
    });
    // undo brings the query's labels back in one step, and says how many
    const cleared = (await listAnnotationHistory(db, "shop-api", "q03"))[0].cleared?.labels.length;
    expect(await undoAnnotation({ collection: "shop-api", queryId: "q03" })).toEqual({
      ok: true,
      data: { memoryId: null, restored: cleared },
    });
    expect(await listAnnotations(db, "shop-api", "q03")).toHaveLength(cleared ?? -1);
    expect((await listStudyQueries(db, "shop-api")).find((q) => q.queryId === "q03")?.labelled).toBe(true);

    expect(await undoAnnotation({ collection: "nope", queryId: "q01" })).toMatchObject({
      ok: false,
      error: 'No query "q01" in nope',
    });
    expect(await undoAnnotation({ collection: "shop-api" })).toMatchObject({
      ok: false,
      error: "Invalid undo",
    });
    expect(await startFreshAnnotation("shop-api")).toMatchObject({ ok: false });
  });
});
