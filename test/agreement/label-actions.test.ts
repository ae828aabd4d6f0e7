// The dashboard's label actions with the real queries: a label set, changed, cleared and undone,
// each a history entry with who made it; bad input and arguments of the wrong shape refused with a
// typed ActionResult, nothing stored.
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { seedRun } from "@/lib/testing/agreement-run";
import { tempDir } from "@/lib/testing/fixtures";

vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

let runId: string;
beforeAll(async () => {
  process.env.JURY_DB = path.join(tempDir(), "labels.db");
  const { getDb } = await import("@/db/client");
  runId = await seedRun(getDb());
});

describe("setLabel and undoLabel", () => {
  it("sets, changes, clears and undoes a label; every change is kept with who made it", async () => {
    const { setLabel, undoLabel } = await import("@/app/actions/labels");
    const { getDb } = await import("@/db/client");
    const { listVerdictLabelHistory, getVerdictLabel } = await import("@/db/queries/labels");
    const k = { runId, caseId: "c1", criterionId: "helpful" };
    expect(await setLabel({ ...k, passed: true, score: 8, labeller: "ana" })).toEqual({
      ok: true,
      data: { label: { passed: true, score: 8 }, previous: null, changed: true },
    });
    expect(await setLabel({ ...k, passed: true, score: 8 })).toMatchObject({
      ok: true,
      data: { changed: false },
    });
    expect(await setLabel({ ...k, passed: false, score: null })).toMatchObject({
      ok: true,
      data: { label: { passed: false, score: null }, previous: { passed: true, score: 8 } },
    });
    expect(await setLabel({ ...k, passed: null })).toMatchObject({ ok: true, data: { label: null } });
    const db = getDb();
    expect((await listVerdictLabelHistory(db, runId)).map((h) => [h.passed, h.score, h.labeller])).toEqual([
      [null, null, null],
      [false, null, null],
      [true, 8, "ana"],
    ]);
    expect(await undoLabel({ runId })).toEqual({
      ok: true,
      data: { caseId: "c1", criterionId: "helpful", restored: { passed: false, score: null } },
    });
    expect(await getVerdictLabel(db, k)).toMatchObject({ passed: false, score: null });
  });

  it("names the person signed in as each label's and each history entry's author", async () => {
    const { setLabel, undoLabel } = await import("@/app/actions/labels");
    const { getDb } = await import("@/db/client");
    const { listVerdictLabelHistory, getVerdictLabel } = await import("@/db/queries/labels");
    const { actAs } = await import("@/lib/testing/request-context");
    const { OPEN_ACTOR } = await import("@/lib/auth/actor");
    const k = { runId, caseId: "c3", criterionId: "helpful" };
    const db = getDb();
    try {
      actAs({ name: "ana", role: "annotator", via: "user" });
      await setLabel({ ...k, passed: true });
      actAs({ name: "bo", role: "annotator", via: "user" });
      // the same label: no change, but bo's judgement is in the history
      expect(await setLabel({ ...k, passed: true })).toMatchObject({ ok: true, data: { changed: false } });
      expect(await getVerdictLabel(db, k)).toMatchObject({ passed: true, author: "bo" });
      actAs({ name: "cy", role: "admin", via: "user" });
      await undoLabel({ runId });
      const h = await listVerdictLabelHistory(db, runId, { caseId: "c3", criterionId: "helpful" });
      expect(h.map((x) => [x.source, x.author])).toEqual([
        ["undo", "cy"],
        ["human", "bo"],
        ["human", "ana"],
      ]);
      expect(await getVerdictLabel(db, k)).toMatchObject({ author: "ana" });
    } finally {
      actAs(OPEN_ACTOR);
    }
  });

  it("refuses a score off the scale, an unknown case or criterion, a bad id, and the wrong shape", async () => {
    const { setLabel, undoLabel } = await import("@/app/actions/labels");
    const k = { runId, caseId: "c2", criterionId: "helpful" };
    const off = await setLabel({ ...k, passed: true, score: 11 });
    expect(off).toMatchObject({ ok: false, fieldErrors: { score: expect.stringContaining("scale 1–10") } });
    const half = await setLabel({ ...k, passed: true, score: 6.5 });
    expect(half).toMatchObject({ ok: false, fieldErrors: { score: expect.stringContaining("whole point") } });
    expect(await setLabel({ ...k, caseId: "nope", passed: true })).toMatchObject({
      ok: false,
      fieldErrors: { caseId: expect.stringContaining('no case "nope"') },
    });
    expect(await setLabel({ ...k, criterionId: "other", passed: true })).toMatchObject({
      ok: false,
      fieldErrors: { criterionId: expect.any(String) },
    });
    expect(await setLabel({ ...k, runId: "../etc", passed: true })).toMatchObject({
      ok: false,
      fieldErrors: { runId: "Not a run id" },
    });
    expect(await setLabel({ ...k, runId: "run_20990101_deadbeef", passed: true })).toMatchObject({
      ok: false,
    });
    expect(await setLabel({ ...k, passed: "yes" })).toMatchObject({
      ok: false,
      fieldErrors: { passed: expect.any(String) },
    });
    expect(await setLabel({ ...k, passed: null, score: 3 })).toMatchObject({
      ok: false,
      fieldErrors: { score: expect.any(String) },
    });
    for (const bad of [null, "x", [1], 42]) {
      expect(await setLabel(bad)).toMatchObject({ ok: false, error: expect.stringContaining("Bad request") });
      expect(await undoLabel(bad)).toMatchObject({
        ok: false,
        error: expect.stringContaining("Bad request"),
      });
    }
    const { getDb } = await import("@/db/client");
    const { getVerdictLabel } = await import("@/db/queries/labels");
    expect(await getVerdictLabel(getDb(), k)).toBeUndefined();
  });
});
