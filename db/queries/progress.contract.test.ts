import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import { query, write } from "../op";
import type { ReviewRecord } from "../schema";
import { casClaimJob, ensureJob, finishJobRow, heartbeatJob } from "./jobs";
import { getAgreementJobLive, getExperimentLive, getReviewLive, getRunLive } from "./progress";
import { at, JUDGES, RUN, type SampleSpec, sampleSpecs, seedRuns, setStatus } from "./run-rows.fixture";

const seedExperiments = query(function* (db) {
  const { experiments, experimentResults, studyQueries } = db.tables;
  for (const [collection, n] of [
    ["col", 3],
    ["other", 2],
  ] as const)
    for (let i = 0; i < n; i++)
      yield* write(db.insert(studyQueries).values({ collection, queryId: `q${i}`, text: `query ${i}` }));
  const config = { mode: "hybrid" } as never;
  yield* write(
    db.insert(experiments).values([
      { id: "e1", collection: "col", label: "one", config, status: "running", createdAt: at(7) },
      { id: "e2", collection: "col", label: "none yet", config, status: "queued", createdAt: at(8) },
    ]),
  );
  for (const [queryId, costUsd] of [
    ["q0", 0.25],
    ["q2", 0.5],
  ] as const)
    yield* write(
      db.insert(experimentResults).values({
        experimentId: "e1",
        queryId,
        candidates: [],
        retrieved: [],
        path: "p",
        latencyMs: 1.5,
        costUsd,
      }),
    );
});

const storeReview = query(function* (db, id: string, record: ReviewRecord) {
  yield* write(
    db.insert(db.tables.reviews).values({
      id,
      title: "t",
      verdict: "pass",
      verdictSource: "judge",
      score: 8,
      diff: "",
      record,
    }),
  );
});

const call = (error?: string) => ({
  step: "judgment" as const,
  judge: "j",
  inputTokens: 1,
  outputTokens: 1,
  costUsd: 0.01,
  latencyMs: 5,
  ...(error === undefined ? {} : { error }),
});

describe.each(storeKinds())(
  "live progress of runs, experiments, reviews and agreement jobs, on %s",
  (kind) => {
    let store: Store;
    beforeEach(async () => {
      store = await freshStore(kind);
    });
    afterEach(() => store.close());

    it("getRunLive: the run's counters, newest samples after the cursor, and its judges", async () => {
      const ids = await seedRuns(store.db);
      const mine = sampleSpecs()
        .map((s, i): SampleSpec & { id: number } => ({ ...s, id: ids[i] }))
        .filter((s) => s.runId === RUN);
      const tasks = new Map(mine.map((s) => [`${s.caseId}/${s.criterionId}/${s.judge}/${s.sampleIndex}`, s]));
      const newest = [...mine].sort((a, b) => b.id - a.id);
      const common = {
        kind: "run",
        status: "running",
        total: tasks.size,
        done: [...tasks.values()].filter((s) => s.taskStatus === "done").length,
        errors: [...tasks.values()].filter((s) => s.taskStatus === "error").length,
        costUsd: mine.reduce((a, s) => a + s.costUsd, 0),
        startedAt: at(5).getTime(),
        judgesAsked: JUDGES.length,
        judgesAnswered: 1,
      };
      const first = await getRunLive(store.db, RUN);
      expect(first).toEqual({
        ...common,
        latest: newest.slice(0, 20).map(({ id, caseId, criterionId, judge, sampleIndex, score, error }) => ({
          id,
          caseId,
          criterionId,
          judge,
          sampleIndex,
          score,
          error,
        })),
        cursor: newest[0].id,
      });
      const cursor = newest[3].id;
      const next = await getRunLive(store.db, RUN, cursor, 2);
      expect(next?.latest.map((s) => s.id)).toEqual(newest.slice(0, 2).map((s) => s.id));
      expect(next?.cursor).toBe(newest[0].id);
      // nothing newer: the cursor stays
      expect(await getRunLive(store.db, RUN, newest[0].id)).toEqual({
        ...common,
        latest: [],
        cursor: newest[0].id,
      });
      await setStatus(store.db, RUN, "done");
      expect(await getRunLive(store.db, RUN, newest[0].id)).toEqual({
        ...common,
        status: "done",
        latest: [],
        cursor: newest[0].id,
      });
      expect(await getRunLive(store.db, "missing")).toBeUndefined();
    });

    it("getExperimentLive: the study's queries finished and their cost, none yet, or undefined", async () => {
      await seedExperiments(store.db);
      const base = { kind: "experiment", errors: 0, latest: [], cursor: 0, total: 3 };
      expect(await getExperimentLive(store.db, "e1")).toEqual({
        ...base,
        status: "running",
        done: 2,
        costUsd: 0.75,
        startedAt: at(7).getTime(),
      });
      expect(await getExperimentLive(store.db, "e2")).toEqual({
        ...base,
        status: "queued",
        done: 0,
        costUsd: 0,
        startedAt: at(8).getTime(),
      });
      expect(await getExperimentLive(store.db, "missing")).toBeUndefined();
    });

    it("getReviewLive: the job's counters until the review is stored, then the stored review's calls", async () => {
      const { db } = store;
      expect(await getReviewLive(db, "rv")).toBeUndefined();
      await ensureJob(db, { id: "rv", kind: "review", total: 5 });
      const base = { kind: "review", costUsd: 0, latest: [], cursor: 0 };
      expect(await getReviewLive(db, "rv")).toEqual({
        ...base,
        status: "queued",
        total: 5,
        done: 0,
        errors: 0,
        startedAt: null,
        error: null,
        stored: false,
      });
      await casClaimJob(db, {
        id: "rv",
        owner: { pid: 1, host: "h", token: "t" },
        expectedToken: null,
        now: at(3),
      });
      await heartbeatJob(db, {
        id: "rv",
        token: "t",
        now: at(4),
        progress: { done: 2, total: 5, errors: 1 },
      });
      expect(await getReviewLive(db, "rv")).toMatchObject({
        status: "running",
        done: 2,
        total: 5,
        errors: 1,
      });
      await storeReview(db, "rv", {
        context: {},
        samples: [],
        warnings: [],
        calls: [call(), call("HTTP 429"), call(), call(), call(), call("x"), call()],
      });
      await finishJobRow(db, { id: "rv", token: "t", status: "done", error: null, now: at(9) });
      expect(await getReviewLive(db, "rv")).toEqual({
        ...base,
        status: "done",
        total: 7, // more calls than planned
        done: 7,
        errors: 2,
        startedAt: at(3).getTime(),
        error: null,
        stored: true,
      });
      // a job of another kind with that id is not a review's
      await ensureJob(db, { id: "ag", kind: "agreement" });
      expect(await getReviewLive(db, "ag")).toBeUndefined();
    });

    it("getAgreementJobLive: the job's counters and outcome; a finished job did every step", async () => {
      const { db } = store;
      expect(await getAgreementJobLive(db, "ag")).toBeUndefined();
      await ensureJob(db, { id: "ag", kind: "agreement", total: 4 });
      await casClaimJob(db, {
        id: "ag",
        owner: { pid: 1, host: "h", token: "t" },
        expectedToken: null,
        now: at(3),
      });
      await heartbeatJob(db, {
        id: "ag",
        token: "t",
        now: at(4),
        progress: { done: 1, total: 4, errors: 1 },
      });
      const base = { kind: "agreement", costUsd: 0, latest: [], cursor: 0, startedAt: at(3).getTime() };
      expect(await getAgreementJobLive(db, "ag")).toEqual({
        ...base,
        status: "running",
        total: 4,
        done: 1,
        errors: 1,
        error: null,
      });
      await finishJobRow(db, { id: "ag", token: "t", status: "done", error: null, now: at(9) });
      expect(await getAgreementJobLive(db, "ag")).toEqual({
        ...base,
        status: "done",
        total: 4,
        done: 4,
        errors: 1,
        error: null,
      });
      await ensureJob(db, { id: "fl", kind: "agreement", total: 3 });
      await casClaimJob(db, {
        id: "fl",
        owner: { pid: 1, host: "h", token: "u" },
        expectedToken: null,
        now: at(3),
      });
      await finishJobRow(db, { id: "fl", token: "u", status: "failed", error: "bad file", now: at(9) });
      expect(await getAgreementJobLive(db, "fl")).toMatchObject({
        status: "failed",
        done: 0,
        error: "bad file",
      });
      await ensureJob(db, { id: "rv", kind: "review" });
      expect(await getAgreementJobLive(db, "rv")).toBeUndefined();
    });
  },
);
