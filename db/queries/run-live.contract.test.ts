import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { query, write } from "../op";
import {
  getFailedJudges,
  getJudgesAnswered,
  getLatestRunSamples,
  getRunCounters,
  getRunScores,
} from "./run-live";
import {
  answered,
  JUDGES,
  OTHER_RUN,
  RUN,
  type SampleSpec,
  sampleSpecs,
  seedRuns,
  setStatus,
} from "./run-rows.fixture";

const setSettledCost = query(function* (db, runId: string, costUsd: number) {
  const { runTotals } = db.tables;
  yield* write(db.update(runTotals).set({ costUsd }).where(eq(runTotals.runId, runId)));
});

describe.each(storeKinds())("a run's live counters and newest samples, on %s", (kind) => {
  let store: Store;
  let specs: (SampleSpec & { id: number })[];
  beforeEach(async () => {
    store = await freshStore(kind);
    const ids = await seedRuns(store.db);
    specs = sampleSpecs().map((s, i) => ({ ...s, id: ids[i] }));
  });
  afterEach(() => store.close());

  const mine = () => specs.filter((s) => s.runId === RUN);
  const taskStatuses = () => {
    const byTask = new Map<string, string>();
    for (const s of mine())
      byTask.set(`${s.caseId}/${s.criterionId}/${s.judge}/${s.sampleIndex}`, s.taskStatus);
    return [...byTask.values()];
  };
  const live = (s: SampleSpec & { id: number }) => ({
    id: s.id,
    caseId: s.caseId,
    criterionId: s.criterionId,
    judge: s.judge,
    sampleIndex: s.sampleIndex,
    score: s.score,
    error: s.error,
  });

  it("getRunCounters: live, counted from the tasks and every sample's cost; settled, from run_totals", async () => {
    const statuses = taskStatuses();
    const want = {
      total: statuses.length,
      done: statuses.filter((s) => s === "done").length,
      errors: statuses.filter((s) => s === "error").length,
      pending: 0,
      costUsd: mine().reduce((a, s) => a + s.costUsd, 0), // superseded included
    };
    expect(want.done).toBeGreaterThan(0);
    expect(want.errors).toBeGreaterThan(0);
    expect(await getRunCounters(store.db, { runId: RUN })).toEqual(want);
    expect(await getRunCounters(store.db, { runId: "missing" })).toEqual({
      total: 0,
      done: 0,
      errors: 0,
      pending: 0,
      costUsd: 0,
    });
    await setStatus(store.db, RUN, "done_with_failures");
    expect(await getRunCounters(store.db, { runId: RUN })).toEqual(want);
    // read from run_totals, not counted again
    await setSettledCost(store.db, RUN, 99.5);
    expect(await getRunCounters(store.db, { runId: RUN })).toEqual({ ...want, costUsd: 99.5 });
  });

  it("getLatestRunSamples: the run's newest samples above `after`, newest first, at most `limit`", async () => {
    const newest = [...mine()].sort((a, b) => b.id - a.id).map(live);
    expect(await getLatestRunSamples(store.db, { runId: RUN })).toEqual(newest.slice(0, 20));
    const mid = newest[8].id;
    expect(await getLatestRunSamples(store.db, { runId: RUN, after: mid, limit: 3 })).toEqual(
      newest.filter((s) => s.id > mid).slice(0, 3),
    );
    expect(await getLatestRunSamples(store.db, { runId: RUN, after: mid, limit: 50 })).toEqual(
      newest.filter((s) => s.id > mid),
    );
    expect(await getLatestRunSamples(store.db, { runId: RUN, after: newest[0].id })).toEqual([]);
    expect(await getLatestRunSamples(store.db, { runId: "missing" })).toEqual([]);
    const other = specs.filter((s) => s.runId === OTHER_RUN);
    expect(await getLatestRunSamples(store.db, { runId: OTHER_RUN, limit: 2 })).toEqual(
      [...other]
        .sort((a, b) => b.id - a.id)
        .slice(0, 2)
        .map(live),
    );
  });

  it("getJudgesAnswered and getFailedJudges: a judge with a task done answered; one with only failures failed, with its first error", async () => {
    expect(await getJudgesAnswered(store.db, { runId: RUN, judges: JUDGES })).toBe(1);
    expect(await getJudgesAnswered(store.db, { runId: RUN, judges: [] })).toBe(0);
    expect(await getJudgesAnswered(store.db, { runId: "missing", judges: JUDGES })).toBe(0);
    const firstB = mine()
      .filter((s) => s.judge === "j-b" && !s.superseded && s.error !== null)
      .sort((a, b) => a.id - b.id)[0];
    expect(await getFailedJudges(store.db, { runId: RUN, judges: JUDGES })).toEqual([
      { judge: "j-b", message: firstB.error },
    ]);
    expect(firstB.error).toBe("HTTP 500: upstream");
    expect(await getFailedJudges(store.db, { runId: RUN, judges: ["j-c", "j-a"] })).toEqual([]);
  });

  it("getRunScores: the current samples' scores in id order (superseded ones left out)", async () => {
    const want = mine()
      .filter((s) => !s.superseded)
      .sort((a, b) => a.id - b.id)
      .map(({ caseId, criterionId, judge, sampleIndex, score, error }) => ({
        caseId,
        criterionId,
        judge,
        sampleIndex,
        score,
        error,
      }));
    expect(want.length).toBe(mine().length - 1);
    expect(await getRunScores(store.db, { runId: RUN })).toEqual(want);
    expect(await getRunScores(store.db, { runId: "missing" })).toEqual([]);
    expect(want.some((s) => answered(s) && s.error === "")).toBe(true);
  });
});
