// Promote guards that look at the evidence, server-side: a study configuration that kept nothing and
// a run's panel on two labels are refused by the actions until each warning is confirmed, and the
// refusal carries the figures (recall, precision with its n, judge coverage; accuracy and κ with
// their intervals and n) for the page to show.
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { tempDir, writeJson } from "@/lib/testing/fixtures";

vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

const file = path.join(tempDir(), "guard.db");
beforeAll(() => {
  process.env.JURY_DB = file;
});

/** A study whose queries share no word with its memories: BM25 keeps nothing on every query. */
async function keptNothingExperiment(): Promise<string> {
  const { getDb } = await import("@/db/client");
  const { importStudyFolder } = await import("@/lib/memory/import");
  const { runExperiment } = await import("@/lib/memory/experiment");
  const { readSettings } = await import("@/lib/settings/store");
  const dir = tempDir();
  writeJson(path.join(dir, "memories", "a.json"), {
    id: "a",
    category: "decision",
    title: "Invoices are rounded to cents",
    tags: ["billing"],
    body: "Round half to even.",
  });
  writeJson(
    path.join(dir, "queries.json"),
    ["zebra crossing", "volcanic ash"].map((text, i) => ({ id: `q${i}`, text, relevant: ["a"] })),
  );
  const db = getDb();
  await importStudyFolder(db, dir, "notes");
  return await runExperiment(db, {
    collection: "notes",
    config: { kind: "bm25", mode: "auto", topK: 3, poolSize: 15, shuffle: false },
    settings: await readSettings(db),
  });
}

describe("promoting from the study: a configuration that kept nothing", () => {
  it("is refused without the confirmation, with its figures; confirming part of it is not enough", async () => {
    const { promoteExperimentAction } = await import("@/app/actions/promote");
    const { getDb } = await import("@/db/client");
    const { readSettings } = await import("@/lib/settings/store");
    const id = await keptNothingExperiment();
    const r = await promoteExperimentAction({ experimentId: id });
    expect(r.ok).toBe(false);
    expect(r.needsConfirmation).toMatchObject({
      keptNothing: true,
      figures: [
        expect.stringMatching(/^precision — n=0/),
        "recall 0 % [0–0 %] n=2",
        "kept 0 memories over 2 queries",
      ],
      warnings: [
        {
          code: "kept_nothing",
          text: "It kept nothing: no memory on any of its 2 queries, so the hook would inject nothing (recall 0 %, precision n=0).",
        },
        { code: "not_best", text: expect.stringContaining("Not called best") },
      ],
    });
    expect(r.ok ? "" : r.error).toContain("It kept nothing");
    expect((await readSettings(getDb())).provenance).toEqual({});
    // the page's old confirmation (not best) does not cover it
    expect(await promoteExperimentAction({ experimentId: id, confirmed: ["not_best"] })).toMatchObject({
      ok: false,
      needsConfirmation: { keptNothing: true },
    });
    expect((await readSettings(getDb())).memoryJudge.collection).toBeUndefined();
    // an unknown code is an invalid request, not a confirmation
    expect(await promoteExperimentAction({ experimentId: id, confirmed: ["yes"] })).toMatchObject({
      ok: false,
    });

    const ok = await promoteExperimentAction({ experimentId: id, confirmed: ["kept_nothing", "not_best"] });
    expect(ok).toMatchObject({ ok: true, data: { best: false } });
    const s = await readSettings(getDb());
    expect(s.memoryJudge.collection).toBe("notes");
    expect(s.provenance.memoryJudge.label).toMatch(/kept nothing, confirmed · not called best, confirmed$/);
    expect(ok.ok && ok.data.reads).toMatch(
      /^The hook and the memory-search skill read notes \(promoted in Settings\)/,
    );
  });
});

describe("promoting from the agreement view: a panel on two labels", () => {
  it("is refused without the confirmation, with accuracy and κ, their intervals and n", async () => {
    const { promotePanelAction } = await import("@/app/actions/promote");
    const { getDb } = await import("@/db/client");
    const { setVerdictLabel } = await import("@/db/queries/labels");
    const { CASES, seedRun } = await import("@/lib/testing/agreement-run");
    const { readSettings } = await import("@/lib/settings/store");
    const db = getDb();
    const runId = await seedRun(db);
    for (const [i, caseId] of CASES.slice(0, 2).entries())
      await setVerdictLabel(db, { runId, caseId, criterionId: "helpful" }, { passed: i === 0, score: null });
    const ask = { runId, criterionId: "helpful", judge: "panel", target: "criterion" };
    const r = await promotePanelAction(ask);
    expect(r.ok).toBe(false);
    const guard = r.needsConfirmation;
    expect(guard?.figures).toEqual([
      expect.stringMatching(/^accuracy \d+ % \[\d+–\d+ %\] n=2$/),
      expect.stringMatching(/^Cohen's κ (-?\d\.\d\d( \[-?\d\.\d\d, -?\d\.\d\d\])?|—) n=2$/),
      "answered 2 of 2 labelled cells",
    ]);
    expect(guard?.warnings.map((w) => w.code)).toEqual(
      expect.arrayContaining(["few_labels", "weak_agreement"]),
    );
    expect((await readSettings(db)).criteriaPanels).toEqual({});
    const ok = await promotePanelAction({ ...ask, confirmed: guard?.warnings.map((w) => w.code) });
    expect(ok).toMatchObject({ ok: true, data: { judges: ["local:a", "local:b"] } });
    expect((await readSettings(db)).criteriaPanels).toEqual({ helpful: ["local:a", "local:b"] });
  });
});
