// Who did it: each dashboard action that makes something records the signed-in actor's name on it
// (a run, an experiment, a review, an imported agreement set, the settings row), on both stores. The
// actions run as they do in a request (the actor comes from the header proxy.ts sets); only the
// background work that would call judges after the row is stored is stood in for.
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import { actAs } from "@/lib/testing/request-context";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";

const current = vi.hoisted(() => ({ db: undefined as unknown, reviews: [] as Promise<unknown>[] }));
vi.mock("@/db/client", async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  getDb: () => current.db,
}));
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));
// the run and the experiment are stored by the action; their judging is not this test's
vi.mock("@/lib/runs/background", () => ({ startRunInBackground: async () => {} }));
vi.mock("@/lib/memory/experiment", async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  executeExperiment: async () => {},
}));
// the review runs to its stored row, awaited here rather than left in the background
vi.mock("@/lib/review/background", async () => {
  const { executeReview } = await import("@/lib/review/review-job");
  return {
    startReviewInBackground: (db: never, input: Parameters<typeof executeReview>[1]) => {
      current.reviews.push(executeReview(db, input));
    },
  };
});

const AYSE: Actor = { name: "ayse", role: "admin", via: "user" };
const BO: Actor = { name: "bo", role: "annotator", via: "user" };

const form = (entries: [string, string | File][]) => {
  const f = new FormData();
  for (const [k, v] of entries) f.append(k, v);
  return f;
};

describe.each(storeKinds())("authors on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
    current.db = store.db;
    current.reviews = [];
  });
  afterEach(async () => {
    actAs({ name: "local", role: "admin", via: "open" });
    await store.close();
  });

  /** Settings with the mock provider on, saved by `by` through the action. */
  async function enableMock(by: Actor) {
    const { saveSettings } = await import("@/app/actions/settings");
    const { defaultSettings } = await import("@/lib/settings/schema");
    actAs(by);
    const s = structuredClone(defaultSettings);
    s.providers.mock.enabled = true;
    const r = await saveSettings(null, form([["payload", JSON.stringify(s)]]));
    expect(r).toMatchObject({ ok: true });
  }

  it("a settings save records who saved: on the row, and as the audit entry's actor", async () => {
    const { getSettingsSaved } = await import("@/db/queries/settings");
    const { listAudit } = await import("@/db/queries/users");
    await enableMock(AYSE);
    expect(await getSettingsSaved(store.db)).toMatchObject({ by: "ayse", at: expect.any(Date) });
    const [entry] = await listAudit(store.db);
    expect(entry).toMatchObject({ actor: "ayse", action: "settings.save" });
  });

  it("a run started from the dashboard records who started it", async () => {
    const { startRun } = await import("@/app/actions/runs");
    const { getRunById } = await import("@/db/queries/runs");
    await enableMock(AYSE);
    actAs(BO);
    const r = await startRun(
      null,
      form([
        ["suiteDir", path.resolve("examples/suites/qa")],
        ["judges", "mock:judge"],
        ["n", "1"],
      ]),
    );
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
    const runId = r?.ok ? r.data.runId : "";
    expect((await getRunById(store.db, { id: runId }))?.createdBy).toBe("bo");
  });

  it("an experiment started from the study page records who started it", async () => {
    const { startExperiment } = await import("@/app/actions/memory");
    const { getExperiment } = await import("@/db/queries/experiments");
    const { importStudyFolder } = await import("@/lib/memory/import");
    await importStudyFolder(store.db, path.resolve("examples/memory-study"), "s");
    actAs(BO);
    const r = await startExperiment(
      null,
      form([
        ["collection", "s"],
        ["kind", "bm25"],
        ["mode", "auto"],
        ["topK", "3"],
        ["poolSize", "15"],
        ["n", "1"],
      ]),
    );
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
    const id = r?.ok ? r.data.id : "";
    expect((await getExperiment(store.db, id))?.createdBy).toBe("bo");
  });

  it("a review asked for from the Reviews page records who asked", async () => {
    const { startReview } = await import("@/app/actions/reviews");
    const { getReview } = await import("@/db/queries/reviews");
    await enableMock(AYSE);
    actAs(BO);
    const r = await startReview(
      null,
      form([
        ["title", "a change"],
        ["criteria", "The tests pass."],
        ["diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"],
        ["passed", "3"],
        ["failed", "1"],
        ["testOutput", "1 failed"],
        ["judges", "mock:judge"],
        ["n", "1"],
      ]),
    );
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
    await Promise.all(current.reviews);
    const id = r?.ok ? r.data.reviewId : "";
    expect((await getReview(store.db, id))?.createdBy).toBe("bo");
  });

  it("an agreement file imported from the dashboard records who imported it", async () => {
    const { importAgreement } = await import("@/app/actions/agreement");
    const { getAgreementSet, listAgreementSets } = await import("@/db/queries/agreement");
    actAs(BO);
    const lines = [
      { item_id: "q1", judge: "j", label: true, gold: true },
      { item_id: "q2", judge: "j", label: false, gold: true },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n");
    const r = await importAgreement(
      null,
      form([
        ["format", "jsonl"],
        ["judges", new File([lines], "labels.jsonl")],
      ]),
    );
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
    const setId = r?.ok ? r.data.setId : "";
    expect((await getAgreementSet(store.db, setId))?.createdBy).toBe("bo");
    expect((await listAgreementSets(store.db)).find((s) => s.id === setId)?.createdBy).toBe("bo");
  });
});
