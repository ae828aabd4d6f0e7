// A run's judges against people's labels: labels stored with their history and undone step by step,
// and the agreement figures recomputed here from the stored labels and samples.
import { describe, expect, it } from "vitest";
import {
  getVerdictLabel,
  listLabelledRuns,
  listVerdictLabelHistory,
  listVerdictLabels,
  removeVerdictLabel,
  setVerdictLabel,
  setVerdictLabels,
  undoLastVerdictLabel,
} from "@/db/queries/labels";
import { getRunSamples } from "@/db/queries/runs";
import { cohenKappa, weightedKappa } from "../stats/kappa";
import { CASES, seedRun } from "../testing/agreement-run";
import { tempDb } from "../testing/fixtures";
import { PANEL, runAgreement } from "./run-agreement";
import { showAgreement } from "./service";

const HUMAN = [
  { passed: true, score: 8 },
  { passed: true, score: 7 },
  { passed: false, score: 2 },
  { passed: false, score: 3 },
  { passed: true, score: 9 },
  { passed: false, score: 4 },
];

describe("verdict labels", () => {
  it("keeps every change with its source, who and the label before, and undoes them one at a time", async () => {
    const { db } = tempDb();
    const runId = await seedRun(db);
    const k = { runId, caseId: "c1", criterionId: "helpful" };
    expect(setVerdictLabel(db, k, { passed: true, score: null }, { labeller: "ana" })).toEqual({
      changed: true,
      previous: null,
    });
    expect(setVerdictLabel(db, k, { passed: true, score: null })).toMatchObject({ changed: false });
    expect(setVerdictLabel(db, k, { passed: false, score: 3 }, { labeller: "bo" })).toEqual({
      changed: true,
      previous: { passed: true, score: null },
    });
    setVerdictLabel(db, { ...k, caseId: "c2" }, { passed: true, score: 9 });
    expect(getVerdictLabel(db, k)).toMatchObject({
      passed: false,
      score: 3,
      source: "human",
      labeller: "bo",
    });
    const h = listVerdictLabelHistory(db, runId);
    expect(
      h.map((x) => [x.caseId, x.passed, x.score, x.previousPassed, x.previousScore, x.source, x.labeller]),
    ).toEqual([
      ["c2", true, 9, null, null, "human", null],
      ["c1", false, 3, true, null, "human", "bo"],
      ["c1", true, null, null, null, "human", "ana"],
    ]);
    // undo: c2 removed, then c1 back to pass, then c1 removed; each undo itself recorded
    expect(undoLastVerdictLabel(db, runId)?.caseId).toBe("c2");
    expect(getVerdictLabel(db, { ...k, caseId: "c2" })).toBeUndefined();
    expect(undoLastVerdictLabel(db, runId)?.caseId).toBe("c1");
    expect(getVerdictLabel(db, k)).toMatchObject({ passed: true, score: null });
    expect(undoLastVerdictLabel(db, runId)?.caseId).toBe("c1");
    expect(listVerdictLabels(db, runId)).toEqual([]);
    expect(undoLastVerdictLabel(db, runId)).toBeUndefined();
    expect(listVerdictLabelHistory(db, runId).filter((x) => x.source === "undo")).toHaveLength(3);
    // removal is a change too
    setVerdictLabel(db, k, { passed: true, score: 5 });
    expect(removeVerdictLabel(db, k)).toEqual({ changed: true, previous: { passed: true, score: 5 } });
    expect(removeVerdictLabel(db, k).changed).toBe(false);
  });

  it("an import sets many labels at once and the runs list says how many cells are labelled", async () => {
    const { db } = tempDb();
    const runId = await seedRun(db);
    expect(listLabelledRuns(db)).toEqual([]);
    const n = setVerdictLabels(
      db,
      HUMAN.map((l, i) => ({ runId, caseId: CASES[i], criterionId: "helpful", ...l })),
      { labeller: "import.jsonl" },
    );
    expect(n).toBe(6);
    expect(listLabelledRuns(db)).toMatchObject([{ runId, labels: 6, cells: 8 }]);
    expect(listVerdictLabels(db, runId)[0]).toMatchObject({ source: "import", labeller: "import.jsonl" });
  });
});

describe("run agreement", () => {
  it("recomputes, from the stored labels and samples, the figures per judge and for the panel", async () => {
    const { db } = tempDb();
    const runId = await seedRun(db);
    // 6 of 8 cells labelled: the run is labelled partly
    for (const [i, l] of HUMAN.entries())
      setVerdictLabel(db, { runId, caseId: CASES[i], criterionId: "helpful" }, l);
    const shown = await showAgreement(db, runId);
    expect(shown.kind).toBe("run");
    if (shown.kind !== "run") return;
    const r = shown.report;
    expect([r.cells, r.labelled]).toEqual([8, 6]);
    const c = r.criteria[0];
    expect([c.criterionId, c.cells, c.labelled, c.scored]).toEqual(["helpful", 8, 6, 6]);
    expect(c.judges.map((j) => j.judge)).toEqual([PANEL, "local:a", "local:b"]);

    // recompute from what is stored: each judge's mean score per labelled case, passing at 6
    const samples = getRunSamples(db, { runId });
    const labels = listVerdictLabels(db, runId);
    const gold = labels.map((l) => (l.passed ? 1 : 0));
    const judgeScore = (judge: string, caseId: string) =>
      samples.find((s) => s.judge === judge && s.caseId === caseId)!.score as number;
    for (const judge of ["local:a", "local:b"]) {
      const mine = labels.map((l) => judgeScore(judge, l.caseId));
      const passed = mine.map((s) => (s >= 6 ? 1 : 0));
      const got = c.judges.find((j) => j.judge === judge)!;
      expect(got.passFail.n).toBe(6);
      expect(got.passFail.accuracy.value).toBe(passed.filter((p, i) => p === gold[i]).length / 6);
      const k = cohenKappa(gold, passed, [1, 0]);
      if (k === null) expect(got.passFail.kappa.value).toBeNull();
      else expect(got.passFail.kappa.value).toBeCloseTo(k, 12);
      const goldScores = labels.map((l) => l.score as number);
      expect(got.scores!.weightedKappa!.value).toBeCloseTo(
        weightedKappa(
          goldScores,
          mine.map(Math.round),
          Array.from({ length: 10 }, (_, i) => i + 1),
        ) as number,
        12,
      );
      expect(got.noAnswer).toEqual([]);
    }
    // by hand: local:a agrees with every pass/fail label; the panel (mean of the two) with 4 of 6
    expect(c.judges[1].passFail.accuracy.value).toBe(1);
    const panel = c.judges[0].passFail;
    expect(panel.accuracy.value).toBe(4 / 6);
    expect(panel.confusion).toEqual({
      categories: [1, 0],
      matrix: [
        [2, 1],
        [1, 2],
      ],
    });
    expect(panel.kappa.value).toBeCloseTo(1 / 3, 12);
    expect(panel.disagreements.map((d) => [d.itemId, d.gold, d.judge, d.judgeRaw])).toEqual([
      ["c2", 1, 0, 5.5],
      ["c6", 0, 1, 6],
    ]);
    expect(panel.accuracy.low as number).toBeLessThan(4 / 6);
  });

  it("names labelled cells a judge did not answer, and labels without scores leave the score figures out", () => {
    const r = runAgreement(
      "r",
      [
        { caseId: "x", criteria: [{ id: "k", type: "llm", scale: [1, 5], threshold: 3 }] },
        { caseId: "y", criteria: [{ id: "k", type: "llm", scale: [1, 5], threshold: 3 }] },
      ],
      [
        { caseId: "x", criterionId: "k", finalScore: 4, passed: true },
        { caseId: "y", criterionId: "k", finalScore: null, passed: false },
      ],
      [
        { caseId: "x", criterionId: "k", judge: "j", score: 4, error: null },
        { caseId: "y", criterionId: "k", judge: "j", score: null, error: "timeout" },
      ],
      [
        { caseId: "x", criterionId: "k", passed: true, score: null },
        { caseId: "y", criterionId: "k", passed: false, score: null },
      ],
      { judges: ["j"] },
    );
    const [panel, j] = r.criteria[0].judges;
    expect(panel.noAnswer).toEqual(["y"]);
    expect(j.noAnswer).toEqual(["y"]);
    expect(j.passFail.n).toBe(1);
    expect(j.scores).toBeNull();
    expect(r.criteria[0].scored).toBe(0);
  });
});
