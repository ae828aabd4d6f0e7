import { beforeAll, describe, expect, it } from "vitest";
import { panelStats } from "@/lib/judging/panel-stats";
import { panelStatsFromCounts } from "@/lib/judging/panel-stats-from-counts";
import { groupFailureMessages, groupFailures, runCoverage, runCoverageFrom } from "@/lib/runs/coverage";
import { finalizeRun } from "@/lib/runs/finalize-run";
import { liveCoverage } from "@/lib/runs/live-verdicts";
import { CASES_PER_PAGE } from "@/lib/runs/paging";
import { createRun } from "@/lib/runs/plan-run";
import { loadRunPage } from "@/lib/runs/run-page";
import { DEFAULT_TRIAGE, type TriageCell, triageCells, triageCellsFrom, triageView } from "@/lib/runs/triage";
import { loadSuite } from "@/lib/suites/load-suite";
import { tempDb, testRegistry, testSuite } from "@/lib/testing/fixtures";
import type { SqliteDb } from "../client";
import { getRunLive } from "./progress";
import { getLatestRunSamples, getRunCounters } from "./run-live";
import {
  getCellJudgeStats,
  getFailureMessages,
  getRunCaseIndex,
  getRunResultsForCases,
  getRunSamplesForCases,
  getVerdictSummaries,
  judgeCountsOf,
} from "./run-page";
import {
  getRunById,
  getRunCases,
  getRunProgress,
  getRunResults,
  getRunSamples,
  getRunTasks,
  recordSamples,
  requeueSamples,
  type SampleRecord,
  setRunStatus,
} from "./runs";

// A run of 120 cases (3 pages) × 3 criteria (2 LLM, 1 deterministic) × 2 judges × N=3, answered with
// varied scores and failures of several kinds, then partly retried (superseded samples): the page's
// SQL aggregates must give what the old all-rows computations give on the same run.
const CASES = 120;
const JUDGES = ["local:a", "local:b"];
const ERRORS = ["HTTP 500: upstream down", "no answer within 2000 ms", "no JSON object in the reply", null];

let db: SqliteDb;
let runId: string;

function answer(round: number, only?: Set<number>) {
  const items: SampleRecord[] = getRunTasks(db, { runId })
    .filter((t) => t.status === "pending" && (!only || only.has(t.id)))
    .map((t, i) => {
      const h = (t.id * 2654435761 + round * 97) % 1000;
      const det = t.judge === "deterministic";
      // local:b fails often, local:a now and then; a retry round fails less
      const failed = !det && h % (t.judge === "local:b" ? 5 : 17) === (round === 0 ? 0 : 1) && h % 3 !== 2;
      const error = failed ? ERRORS[h % ERRORS.length] : null;
      const max = t.criterionId === "brief" ? 5 : 10;
      const score = det
        ? h % 2
        : failed
          ? null
          : 1 + ((h + t.sampleIndex * 3) % max) + (h % 4 === 0 ? 0.5 : 0);
      return {
        sample: {
          taskId: t.id,
          runId,
          caseId: t.caseId,
          criterionId: t.criterionId,
          judge: t.judge,
          sampleIndex: t.sampleIndex,
          score: score === null ? null : Math.min(score, max),
          reasoning: failed ? null : `r${i}`,
          rawText: null,
          latencyMs: 10,
          inputTokens: 10,
          outputTokens: 5,
          costUsd: det ? 0 : 0.0001 * (1 + (h % 7)),
          attempts: 1,
          cached: false,
          // a failure with no message: an answer with no score
          error: failed ? error : null,
        },
      };
    });
  recordSamples(db, items);
}

beforeAll(async () => {
  ({ db } = tempDb());
  const { registry } = testRegistry();
  runId = await createRun(db, loadSuite(testSuite(CASES)), registry, {
    judges: JUDGES,
    n: 3,
    temperature: 0.8,
    concurrency: 4,
    noCache: false,
  });
  setRunStatus(db, { id: runId, status: "running" });
  answer(0);
  const opts = getRunById(db, { id: runId })!.options;
  await finalizeRun(db, runId, opts);
  setRunStatus(db, { id: runId, status: "done_with_failures" });
  // retry a third of the failed samples: those are kept, superseded, and answered again
  const failed = getRunSamples(db, { runId }).filter((s) => s.score === null || s.error);
  const retried = failed.filter((_, i) => i % 3 === 0);
  expect(
    requeueSamples(db, { runId, sampleIds: retried.map((s) => s.id), reason: "retried", fresh: true }),
  ).toMatchObject({ ok: true });
  setRunStatus(db, { id: runId, status: "running" });
  answer(1, new Set(retried.map((s) => s.taskId)));
  await finalizeRun(db, runId, opts);
  setRunStatus(db, { id: runId, status: "done_with_failures" });
});

const strip = (c: TriageCell) => ({
  caseId: c.caseId,
  criterionId: c.criterionId,
  verdict: c.verdict,
  score: c.score,
  threshold: c.threshold,
  failedSamples: c.failedSamples,
  flagged: c.flagged,
  unstable: c.unstable,
  lowCoverage: c.lowCoverage,
  coverageRatio: c.coverageRatio,
  byJudge: [...c.byJudge.values()]
    .map(({ std: _s, mean: _m, ...j }) => j)
    .sort((a, b) => a.judge.localeCompare(b.judge)),
});

describe("the run page's queries", () => {
  it("the run has what the test needs: 3 pages of cases, failures of several kinds, superseded samples", () => {
    const all = getRunSamples(db, { runId });
    expect(getRunCaseIndex(db, { runId })).toHaveLength(CASES);
    expect(all.filter((s) => s.error).length).toBeGreaterThan(50);
    expect(new Set(all.filter((s) => s.error).map((s) => s.error)).size).toBe(3);
    expect(all.some((s) => s.score === null && !s.error)).toBe(true);
    expect(all.some((s) => s.score !== null && !Number.isInteger(s.score))).toBe(true);
    const history = db.$client
      .prepare("select count(*) from samples where superseded_at is not null")
      .pluck();
    expect(history.get()).toBeGreaterThan(10);
  });

  it("page 2 reads exactly its cases' samples and verdicts, nothing of the other pages", () => {
    const caseIds = getRunCaseIndex(db, { runId })
      .map((c) => c.caseId)
      .slice(CASES_PER_PAGE, 2 * CASES_PER_PAGE);
    const inPage = new Set(caseIds);
    const want = getRunSamples(db, { runId }).filter((s) => inPage.has(s.caseId));
    const got = getRunSamplesForCases(db, { runId, caseIds });
    expect(got.map((s) => s.id)).toEqual(want.map((s) => s.id));
    expect(got).toEqual(want);
    expect(new Set(got.map((s) => s.caseId))).toEqual(inPage);
    const one = getRunSamplesForCases(db, { runId, caseIds: [caseIds[0]], criterionId: "helpful" });
    expect(one.map((s) => s.id)).toEqual(
      want.filter((s) => s.caseId === caseIds[0] && s.criterionId === "helpful").map((s) => s.id),
    );
    const results = getRunResultsForCases(db, { runId, caseIds });
    expect(results.length).toBe(caseIds.length * 3);
    expect(results.every((r) => inPage.has(r.caseId))).toBe(true);
  });

  it("coverage, failures by judge and error, and triage cells from aggregates equal the all-rows computation", () => {
    const run = getRunById(db, { id: runId })!;
    const samples = getRunSamples(db, { runId });
    const stats = getCellJudgeStats(db, { runId });
    const oldCoverage = runCoverage(run.options.judges, run.totalTasks, samples);
    expect(runCoverageFrom(run.options.judges, run.totalTasks, judgeCountsOf(stats))).toEqual(oldCoverage);
    expect(oldCoverage.samples_failed).toBeGreaterThan(0);

    expect(groupFailureMessages(getFailureMessages(db, { runId }))).toEqual(groupFailures(samples));

    const oldCells = triageCells(getRunCases(db, { runId }), getRunResults(db, { runId }), samples);
    const newCells = triageCellsFrom(
      getRunCaseIndex(db, { runId }),
      getVerdictSummaries(db, { runId }),
      stats,
    );
    expect(newCells.map(strip)).toEqual(oldCells.map(strip));
    newCells.forEach((c, i) => {
      const o = oldCells[i];
      if (o.spread === null) expect(c.spread).toBeNull();
      else expect(c.spread).toBeCloseTo(o.spread, 10);
      for (const [j, x] of o.byJudge) {
        const y = c.byJudge.get(j)!;
        for (const k of ["mean", "std"] as const)
          if (x[k] === null) expect(y[k]).toBeNull();
          else expect(y[k]).toBeCloseTo(x[k] as number, 10);
      }
    });
    // and so every status's count and every filtered, sorted order
    const caseOrder = getRunCaseIndex(db, { runId }).map((c) => c.caseId);
    const criteria = ["helpful", "brief", "short"];
    for (const status of ["all", "failed", "fail", "flagged", "unstable", "low-coverage"] as const)
      for (const judge of [null, "local:b"])
        for (const sort of ["case", "score", "failures", "coverage"] as const) {
          const q = { ...DEFAULT_TRIAGE, status, judge, sort };
          const a = triageView(oldCells, caseOrder, criteria, q, 3);
          const b = triageView(newCells, caseOrder, criteria, q, 3);
          expect(b.counts).toEqual(a.counts);
          expect(b.rows.map((r) => r.caseId)).toEqual(a.rows.map((r) => r.caseId));
        }
  });

  it("panel agreement from aggregates equals panelStats over every sample", () => {
    const samples = getRunSamples(db, { runId });
    const want = panelStats(samples, JUDGES);
    const got = panelStatsFromCounts(getCellJudgeStats(db, { runId }), JUDGES);
    expect(got.map((c) => [c.criterionId, c.cases])).toEqual(want.map((c) => [c.criterionId, c.cases]));
    expect(want).toHaveLength(2);
    got.forEach((c, i) => {
      const w = want[i];
      expect(c.alphaAcrossJudges).toBeCloseTo(w.alphaAcrossJudges as number, 10);
      c.judges.forEach((j, k) => {
        const wj = w.judges[k];
        expect([j.judge, j.cases, j.samplesAnswered, j.samplesFailed]).toEqual([
          wj.judge,
          wj.cases,
          wj.samplesAnswered,
          wj.samplesFailed,
        ]);
        expect(j.selfConsistency).toBeCloseTo(wj.selfConsistency as number, 10);
        expect(j.meanOffset).toBeCloseTo(wj.meanOffset as number, 10);
      });
    });
  });

  it("the run's score spreads from aggregates equal those from every sample, and the panel's are the verdicts' final scores", async () => {
    const samples = getRunSamples(db, { runId }).filter((s) => s.supersededAt === null);
    const spreads = (await loadRunPage(db, runId, {}))!.spreads;
    expect(spreads.map((s) => s.criterionId)).toEqual(["helpful", "brief"]); // the LLM criteria
    for (const s of spreads) {
      expect(s.casesAsked).toBe(CASES);
      expect(s.scale).toEqual(s.criterionId === "brief" ? [1, 5] : [1, 10]);
      for (const j of s.judges) {
        const mine = samples.filter((x) => x.criterionId === s.criterionId && x.judge === j.judge);
        const ok = mine.filter((x) => x.score !== null && !x.error);
        const perCase = new Map<string, number[]>();
        for (const x of ok) perCase.set(x.caseId, [...(perCase.get(x.caseId) ?? []), x.score as number]);
        const means = [...perCase.values()]
          .map((v) => v.reduce((a, b) => a + b, 0) / v.length)
          .sort((a, b) => a - b);
        expect([j.cases, j.samplesAnswered, j.samplesFailed]).toEqual([
          perCase.size,
          ok.length,
          mine.length - ok.length,
        ]);
        expect(j.dist?.values?.length).toBe(means.length);
        for (const [i, v] of (j.dist?.values ?? []).entries()) expect(v).toBeCloseTo(means[i], 10);
      }
      const finals = getRunResults(db, { runId })
        .filter((r) => r.criterionId === s.criterionId && r.finalScore !== null)
        .map((r) => r.finalScore as number)
        .sort((a, b) => a - b);
      expect(s.panel.cases).toBe(finals.length);
      // stored final scores are rounded to 2 decimals
      for (const [i, v] of (s.panel.dist?.values ?? []).entries())
        expect(Math.abs(v - finals[i])).toBeLessThanOrEqual(0.005 + 1e-9);
    }
  });

  it("the live counters and newest samples equal the old queries, settled and live", () => {
    const legacyLatest = (after: number) =>
      db.$client
        .prepare(
          `select id, case_id as caseId, criterion_id as criterionId, judge, sample_index as sampleIndex, score, error
           from samples where run_id = ? and id > ? order by id desc limit 20`,
        )
        .all(runId, after);
    const settled = getRunCounters(db, { runId });
    expect(settled).toEqual(getRunProgress(db, { runId }));
    expect(settled.costUsd).toBeGreaterThan(0);
    const max = getRunSamples(db, { runId }).at(-1)!.id;
    for (const after of [0, max - 5, max])
      expect(getLatestRunSamples(db, { runId, after })).toEqual(legacyLatest(after));
    setRunStatus(db, { id: runId, status: "running" }); // live: counted from the indexes
    try {
      expect(getRunCounters(db, { runId })).toEqual(getRunProgress(db, { runId }));
      expect(getRunLive(db, runId)).toMatchObject({ total: settled.total, done: settled.done, cursor: max });
    } finally {
      setRunStatus(db, { id: runId, status: "done_with_failures" });
    }
  });

  it("the live snapshot counts what the run's coverage counts (the header and the bar read it), and a live page's verdicts are the finished rule's", async () => {
    const fromSamples = runCoverage(
      JUDGES,
      getRunById(db, { id: runId })!.totalTasks,
      getRunSamples(db, { runId }),
    );
    expect(liveCoverage(getRunLive(db, runId)!)).toEqual(fromSamples);
    setRunStatus(db, { id: runId, status: "running" });
    try {
      expect(liveCoverage(getRunLive(db, runId)!)).toEqual(fromSamples);
      const page = (await loadRunPage(db, runId, {}))!;
      expect(page.live).toBe(true);
      const stored = new Map(getRunResults(db, { runId }).map((r) => [`${r.caseId}/${r.criterionId}`, r]));
      for (const r of page.triage.results.values())
        expect(r).toEqual(stored.get(`${r.caseId}/${r.criterionId}`));
    } finally {
      setRunStatus(db, { id: runId, status: "done_with_failures" });
    }
  });

  it("loadRunPage pages the case table (filtered when a filter is on) and keeps the run-wide figures", async () => {
    const caseOrder = getRunCaseIndex(db, { runId }).map((c) => c.caseId);
    const p2 = (await loadRunPage(db, runId, { page: "2" }))!;
    expect(p2.triage.page).toMatchObject({ page: 2, pages: 3, first: 51, last: 100, total: CASES });
    expect(p2.triage.page.rows.map((r) => r.caseId)).toEqual(caseOrder.slice(50, 100));
    expect([...p2.triage.results.values()].every((r) => p2.triage.caseNames.has(r.caseId))).toBe(true);
    expect(p2.triage.caseNames.size).toBe(50);
    expect(p2.coverage).toEqual(
      runCoverage(JUDGES, getRunById(db, { id: runId })!.totalTasks, getRunSamples(db, { runId })),
    );
    // the last page holds the rest; a page past the end shows the last one
    expect((await loadRunPage(db, runId, { page: "99" }))!.triage.page).toMatchObject({
      page: 3,
      first: 101,
      last: 120,
    });
    expect((await loadRunPage(db, runId, { page: "x" }))!.triage.page.page).toBe(1);
    // under a filter the pages run over the matching cases, in the filter's order
    const failed = (await loadRunPage(db, runId, { status: "failed", judge: "local:b", sort: "failures" }))!;
    const old = triageView(
      triageCells(getRunCases(db, { runId }), getRunResults(db, { runId }), getRunSamples(db, { runId })),
      caseOrder,
      ["helpful", "brief", "short"],
      { ...DEFAULT_TRIAGE, status: "failed", judge: "local:b", sort: "failures" },
      3,
    );
    expect(failed.triage.page.total).toBe(old.rows.length);
    expect(old.rows.length).toBeGreaterThan(CASES_PER_PAGE); // two pages of matching cases
    expect(failed.triage.page.pages).toBe(2);
    expect(failed.triage.page.rows.map((r) => r.caseId)).toEqual(old.rows.slice(0, 50).map((r) => r.caseId));
    // the selected cell: its samples only, in judge then sample order
    const sel = (await loadRunPage(db, runId, { case: caseOrder[70], criterion: "brief", page: "2" }))!;
    expect(sel.cell?.samples.map((s) => [s.caseId, s.criterionId])).toEqual(
      Array(6).fill([caseOrder[70], "brief"]),
    );
    expect(sel.cell?.samples.map((s) => s.judge)).toEqual([
      "local:a",
      "local:a",
      "local:a",
      "local:b",
      "local:b",
      "local:b",
    ]);
  });
});
