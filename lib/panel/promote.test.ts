// Promoting a configuration of the optimizer: the criterion's default panel and N with the evidence
// as provenance, refused without confirmation where the figures do not support it; the next
// `jury eval` plan (and the run form) take them.
import { describe, expect, it } from "vitest";
import { getRunTasks } from "@/db/queries/runs";
import { listAudit } from "@/db/queries/users";
import { hasErrorCode } from "../errors";
import { createRun } from "../runs/plan-run";
import { defaultEvalJudges, defaultEvalSamples, defaultFormSamples } from "../settings/criteria-panels";
import { readSettings, writeSettings } from "../settings/store";
import { loadSuite } from "../suites/load-suite";
import { tempDb, testRegistry, testSuite } from "../testing/fixtures";
import { promotePanelConfig } from "./promote";
import { optimizeRun } from "./run-panel";
import { PANEL_PRICES, seedPanelRun } from "./test-run";

async function seeded() {
  const { db } = tempDb();
  await writeSettings(db, { ...(await readSettings(db)), prices: PANEL_PRICES });
  const runId = await seedPanelRun(db);
  return { db, runId };
}

describe("promote a panel configuration", () => {
  it("the recommendation becomes the criterion's panel and N, its figures recomputed and recorded", async () => {
    const { db, runId } = await seeded();
    const r = (await optimizeRun(db, runId, { prices: PANEL_PRICES })).criteria[0];
    expect(r.recommendation.status).toBe("recommended");
    const rec = r.configs.find(
      (c) => r.recommendation.status === "recommended" && c.id === r.recommendation.config,
    );
    if (!rec) throw new Error("no recommendation");
    const out = await promotePanelConfig(db, {
      runId,
      criterionId: "correctness",
      judges: [...rec.judges].reverse(),
      n: rec.n,
      now: new Date("2026-03-01T00:00:00Z"),
      by: "ayse",
    });
    expect(out.guard.warnings).toEqual([]);
    const s = await readSettings(db);
    expect(s.criteriaPanels.correctness).toEqual(rec.judges);
    expect(s.criteriaSamples.correctness).toBe(rec.n);
    for (const path of ["criteriaPanels.correctness", "criteriaSamples.correctness"]) {
      const p = s.provenance[path];
      expect(p).toMatchObject({ source: "run", id: runId, at: "2026-03-01T00:00:00.000Z" });
      expect(p.label).toContain(`${rec.id} from the panel optimizer`);
      expect(p.figures.accuracy).toEqual({
        value: rec.accuracy.value,
        low: rec.accuracy.low,
        high: rec.accuracy.high,
        n: 60,
      });
      expect(p.figures["Cohen's κ"].low).not.toBeNull();
      expect(p.figures["USD per verdict"].value).toBeCloseTo(rec.costUsd as number, 12);
    }
    // the panel and its N in one audit entry, by who promoted them
    const entries = (await listAudit(db)).filter((e) => e.action.startsWith("promote."));
    expect(entries).toEqual([
      expect.objectContaining({
        actor: "ayse",
        action: "promote.panel-config",
        target: "criteriaPanels.correctness, criteriaSamples.correctness",
        detail: expect.objectContaining({
          source: "run",
          id: runId,
          changes: [
            { path: "criteriaPanels.correctness", after: rec.judges },
            { path: "criteriaSamples.correctness", after: rec.n },
          ],
        }),
      }),
    ]);
    expect(s.provenance["criteriaSamples.correctness"].by).toBe("ayse");
    // what the next `jury eval` and the run form take
    expect(defaultEvalJudges(s, ["correctness"]).criterionJudges?.correctness).toEqual(rec.judges);
    expect(defaultEvalSamples(s, ["correctness", "other"])).toEqual({ correctness: rec.n });
    expect(defaultFormSamples(s)).toBe(rec.n);
    expect(defaultFormSamples({ ...s, criteriaSamples: {} })).toBe(s.judging.samples);
  });

  it("a configuration that is not the recommendation is refused until confirmed; unknown ones are named", async () => {
    const { db, runId } = await seeded();
    const ask = (confirmed?: string[]) =>
      promotePanelConfig(db, { runId, criterionId: "correctness", judges: ["local:noise"], n: 1, confirmed });
    let refusal: unknown;
    try {
      await ask();
    } catch (err) {
      refusal = err;
    }
    expect(hasErrorCode(refusal, "needs_confirmation")).toBe(true);
    const codes = (
      refusal as { details: { guard: { warnings: { code: string }[] } } }
    ).details.guard.warnings.map((w) => w.code);
    expect(codes).toContain("not_best");
    expect(codes).toContain("weak_agreement");
    expect((await readSettings(db)).criteriaPanels.correctness).toBeUndefined();
    const ok = await ask(codes);
    expect((await readSettings(db)).criteriaPanels.correctness).toEqual(["local:noise"]);
    expect((await readSettings(db)).provenance["criteriaSamples.correctness"].label).toContain(
      "not called best, confirmed",
    );
    expect(ok.config.id).toBe("local:noise × 1");
    await expect(
      promotePanelConfig(db, { runId, criterionId: "correctness", judges: ["local:nope"], n: 1 }),
    ).rejects.toThrow(/not a configuration/);
    await expect(
      promotePanelConfig(db, { runId, criterionId: "correctness", judges: ["local:good"], n: 9 }),
    ).rejects.toThrow(/N up to 5/);
  });

  it("a run planned with a criterion's own N asks that many samples of its judges, the others N", async () => {
    const { db } = tempDb();
    const { registry } = testRegistry();
    const runId = await createRun(db, loadSuite(testSuite(2)), registry, {
      judges: ["local:a", "local:b"],
      n: 3,
      criterionN: { helpful: 1 },
      temperature: 0.8,
      concurrency: 1,
      noCache: false,
    });
    const tasks = getRunTasks(db, { runId });
    const count = (c: string) => tasks.filter((t) => t.criterionId === c).length;
    expect(count("helpful")).toBe(2 * 2 * 1);
    expect(count("brief")).toBe(2 * 2 * 3);
  });
});
