// Agreement between people read from the store, on both stores: a run labelled by two people (one
// giving the same label as the other, one change undone) against the run's verdict, and a study
// annotated by two people against the newest judge configuration. Every expected κ is worked by hand.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { finishExperiment, insertExperiment, insertExperimentResult } from "@/db/queries/experiments";
import { setVerdictLabel, undoLastVerdictLabel } from "@/db/queries/labels";
import { annotateOne, undoLastAnnotation, upsertStudyQueries } from "@/db/queries/study";
import { seedRun } from "@/lib/testing/agreement-run";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { runPeopleAgreement, studyPeopleAgreement } from "./people-reading";

describe.each(storeKinds())("agreement between people on %s", (kind) => {
  let store: Store;
  let db: Db;
  beforeEach(async () => {
    store = await freshStore(kind);
    db = store.db as Db;
  });
  afterEach(() => store.close());

  it("a run: each person vs the run's verdict and the two against each other", async () => {
    const runId = await seedRun(db);
    // the run's verdicts (mean of the two judges ≥ 6): c1 pass, c2–c4 fail, c5–c7 pass, c8 fail
    const label = (caseId: string, passed: boolean, author: string) =>
      setVerdictLabel(db, { runId, caseId, criterionId: "helpful" }, { passed, score: null }, { author });
    const ana = [true, false, false, false, true, true];
    const bo = [true, false, false, true, true, false];
    for (const [i, p] of ana.entries()) await label(`c${i + 1}`, p, "ana");
    for (const [i, p] of bo.entries()) await label(`c${i + 1}`, p, "bo");
    // bo labels c7, then undoes it: not bo's label
    await label("c7", false, "bo");
    await undoLastVerdictLabel(db, runId, { author: "bo" });
    const r = await runPeopleAgreement(db, runId);
    expect(r.judge).toBe("the run's verdict");
    expect(r.people).toEqual([
      { name: "ana", labelled: 6 },
      { name: "bo", labelled: 6 },
    ]);
    // ana agrees with every verdict: κ 1; bo with 4 of 6, 3 passes each side: (4/6 − 1/2) / (1/2) = 1/3
    expect(r.vsJudge?.map((v) => [v.person, v.n, v.kappa?.value])).toEqual([
      ["ana", 6, 1],
      ["bo", 6, expect.closeTo(1 / 3, 12)],
    ]);
    // ana vs bo: the same 4 of 6 (c4 and c6 differ), 3 passes each: κ 1/3
    expect(r.pairs).toHaveLength(1);
    expect(r.pairs[0]).toMatchObject({ a: "ana", b: "bo", n: 6 });
    expect(r.pairs[0].kappa?.value).toBeCloseTo(1 / 3, 12);
    expect(r.pairs[0].accuracy?.value).toBeCloseTo(4 / 6, 12);
  });

  it("a study: two annotators on the same memories, the judge's kept memories as its labels", async () => {
    await upsertStudyQueries(db, "s", [
      { queryId: "q1", text: "one" },
      { queryId: "q2", text: "two" },
    ]);
    const items = [
      ["q1", "a"],
      ["q1", "b"],
      ["q1", "c"],
      ["q2", "a"],
      ["q2", "d"],
      ["q2", "e"],
    ] as const;
    const ana = [1, 1, 0, 1, 0, 0];
    const bo = [1, 0, 0, 1, 0, 1];
    for (const [i, [q, m]] of items.entries())
      await annotateOne(db, "s", { queryId: q, memoryId: m, relevance: ana[i] }, "ana");
    for (const [i, [q, m]] of items.entries())
      await annotateOne(db, "s", { queryId: q, memoryId: m, relevance: bo[i] }, "bo");
    // bo's last change of q1 undone and labelled again the same way: still bo's one label there
    await undoLastAnnotation(db, "s", "q1", "bo");
    await annotateOne(db, "s", { queryId: "q1", memoryId: "c", relevance: 0 }, "bo");

    // no judge configuration yet
    let r = await studyPeopleAgreement(db, "s");
    expect(r.judge).toBeNull();
    expect(r.vsJudge).toBeNull();
    // ana and bo agree on 4 of 6; ana says relevant 3 times, bo 3: κ (4/6 − 1/2) / (1/2) = 1/3
    expect(r.pairs.map((p) => [p.a, p.b, p.n])).toEqual([["ana", "bo", 6]]);
    expect(r.pairs[0].kappa?.value).toBeCloseTo(1 / 3, 12);

    // a judge configuration that kept q1's a and b and q2's a, of the same candidates
    const config = { kind: "single" as const, mode: "auto" as const, topK: 3, poolSize: 3, shuffle: false };
    await insertExperiment(db, {
      id: "e1",
      collection: "s",
      label: "judge one",
      config: { ...config, model: "m" },
    });
    for (const [q, kept, all] of [
      ["q1", ["a", "b"], ["a", "b", "c"]],
      ["q2", ["a"], ["a", "d", "e"]],
    ] as const)
      await insertExperimentResult(db, {
        experimentId: "e1",
        queryId: q,
        candidates: all.map((memoryId, i) => ({ memoryId, score: 1 - i / 10 })),
        retrieved: [...kept],
        path: "judge",
        latencyMs: 1,
      });
    await finishExperiment(db, "e1", "done");
    r = await studyPeopleAgreement(db, "s");
    expect(r.judge).toBe("judge one");
    // ana matches the judge on all 6; bo on 4 (q1 b, q2 e differ): κ 1/3
    expect(r.vsJudge?.map((v) => [v.person, v.n, v.kappa?.value])).toEqual([
      ["ana", 6, 1],
      ["bo", 6, expect.closeTo(1 / 3, 12)],
    ]);
  });

  it("fewer than five shared items: n, no figure", async () => {
    const runId = await seedRun(db);
    for (const author of ["ana", "bo"])
      for (const c of ["c1", "c2", "c3", "c4"])
        await setVerdictLabel(
          db,
          { runId, caseId: c, criterionId: "helpful" },
          { passed: true, score: null },
          { author },
        );
    const r = await runPeopleAgreement(db, runId);
    expect(r.pairs).toEqual([{ a: "ana", b: "bo", n: 4, kappa: null, accuracy: null }]);
  });
});
