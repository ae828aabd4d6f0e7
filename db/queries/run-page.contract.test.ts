import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CellJudgeStats } from "@/lib/runs/triage";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import {
  getCellJudgeStats,
  getFailureMessages,
  getRunCase,
  getRunCaseIndex,
  getRunResultsForCases,
  getRunSamplesForCases,
  getVerdictSummaries,
  judgeCountsOf,
} from "./run-page";
import {
  answered,
  CASES,
  CRITERIA,
  OTHER_RUN,
  RUN,
  type SampleSpec,
  sampleSpecs,
  seedRuns,
  verdictSpecs,
} from "./run-rows.fixture";

/** SQLite's BINARY order (and the C collation's): bytes of the UTF-8 text. */
const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const byKeys =
  <T>(...keys: ((x: T) => string)[]) =>
  (a: T, b: T) => {
    for (const k of keys) {
      const c = bytes(k(a), k(b));
      if (c) return c;
    }
    return 0;
  };

describe.each(storeKinds())("the run page's queries, on %s", (kind) => {
  let store: Store;
  let specs: (SampleSpec & { id: number })[];
  beforeEach(async () => {
    store = await freshStore(kind);
    const ids = await seedRuns(store.db);
    specs = sampleSpecs().map((s, i) => ({ ...s, id: ids[i] }));
  });
  afterEach(() => store.close());

  const current = () => specs.filter((s) => s.runId === RUN && !s.superseded);

  it("getRunCaseIndex: every case in byte order, with its criteria's id, type, threshold, scale and panel", async () => {
    const want = [...CASES].sort(bytes).map((caseId) => ({
      caseId,
      name: `Case ${caseId} é`,
      criteria: CRITERIA.map((c) => ({
        id: c.id,
        type: c.type,
        threshold: c.threshold,
        scale: c.scale,
        ...(c.panel ? { panel: c.panel } : {}),
      })),
    }));
    expect(want.map((c) => c.caseId)).toEqual(["c1", "c10", "c2"]);
    expect(await getRunCaseIndex(store.db, { runId: RUN })).toEqual(want);
    expect(await getRunCaseIndex(store.db, { runId: OTHER_RUN })).toEqual([]);
  });

  it("getRunCase: one case whole, or undefined", async () => {
    expect(await getRunCase(store.db, { runId: RUN, caseId: "c10" })).toEqual({
      runId: RUN,
      caseId: "c10",
      name: "Case c10 é",
      input: { q: "c10", nested: { n: 1 } },
      output: "out c10",
      criteria: CRITERIA,
    });
    expect(await getRunCase(store.db, { runId: RUN, caseId: "c3" })).toBeUndefined();
  });

  it("getCellJudgeStats: per case × criterion × judge, answered and failed counts and the answered scores' sums, min and max; judgeCountsOf sums them", async () => {
    const cells = new Map<string, CellJudgeStats>();
    for (const s of current()) {
      const key = `${s.caseId}\u0000${s.criterionId}\u0000${s.judge}`;
      let c = cells.get(key);
      if (!c) {
        c = {
          caseId: s.caseId,
          criterionId: s.criterionId,
          judge: s.judge,
          answered: 0,
          failed: 0,
          sum: null,
          sumSq: null,
          min: null,
          max: null,
        };
        cells.set(key, c);
      }
      if (answered(s)) {
        const v = s.score as number;
        c.answered++;
        c.sum = (c.sum ?? 0) + v;
        c.sumSq = (c.sumSq ?? 0) + v * v;
        c.min = Math.min(c.min ?? v, v);
        c.max = Math.max(c.max ?? v, v);
      } else c.failed++;
    }
    const want = [...cells.values()].sort(
      byKeys(
        (c) => c.caseId,
        (c) => c.criterionId,
        (c) => c.judge,
      ),
    );
    expect(want.some((c) => c.answered === 0 && c.sum === null)).toBe(true);
    expect(want.some((c) => c.answered > 0 && c.failed > 0)).toBe(true);
    const got = await getCellJudgeStats(store.db, { runId: RUN });
    expect(got).toEqual(want);
    expect(judgeCountsOf(got)).toEqual([
      {
        judge: "j-a",
        answered: want.filter((c) => c.judge === "j-a").reduce((a, c) => a + c.answered, 0),
        failed: 1,
      },
      {
        judge: "j-b",
        answered: 0,
        failed: want.filter((c) => c.judge === "j-b").reduce((a, c) => a + c.failed, 0),
      },
    ]);
    expect(await getCellJudgeStats(store.db, { runId: "missing" })).toEqual([]);
  });

  it("getFailureMessages: failed current samples per judge and message ('no score' without one), with the first's id", async () => {
    const groups = new Map<string, { judge: string; message: string; count: number; firstId: number }>();
    for (const s of current()) {
      if (answered(s)) continue;
      const message = s.error ?? "no score";
      const g = groups.get(`${s.judge}\u0000${message}`);
      if (g) {
        g.count++;
        g.firstId = Math.min(g.firstId, s.id);
      } else groups.set(`${s.judge}\u0000${message}`, { judge: s.judge, message, count: 1, firstId: s.id });
    }
    const want = [...groups.values()].sort(
      byKeys(
        (g) => g.judge,
        (g) => g.message,
      ),
    );
    expect(want.map((g) => [g.judge, g.message])).toEqual([
      ["j-a", "no score"],
      ["j-b", "HTTP 500: upstream"],
      ["j-b", "late"],
      ["j-b", "timeout"],
    ]);
    expect(await getFailureMessages(store.db, { runId: RUN })).toEqual(want);
    expect(await getFailureMessages(store.db, { runId: "missing" })).toEqual([]);
  });

  it("getVerdictSummaries: each verdict's scores, flags, threshold, coverage, straddle and spread, in case then criterion order", async () => {
    const want = verdictSpecs()
      .sort(
        byKeys(
          (v) => v.caseId,
          (v) => v.criterionId,
        ),
      )
      .map((v) => {
        const d = v.data as {
          threshold?: number;
          coverage?: { samples_answered: number; samples_asked: number } | null;
          straddles_threshold?: boolean;
          cross_model_std: number | null;
        };
        return {
          caseId: v.caseId,
          criterionId: v.criterionId,
          finalScore: v.finalScore,
          passed: v.passed,
          flagForReview: v.flagForReview,
          threshold: d.threshold ?? null,
          coverage: d.coverage
            ? { samplesAnswered: d.coverage.samples_answered, samplesAsked: d.coverage.samples_asked }
            : null,
          straddlesThreshold: d.straddles_threshold === true,
          crossModelStd: d.cross_model_std,
        };
      });
    expect(new Set(want.map((v) => v.straddlesThreshold))).toEqual(new Set([true, false]));
    expect(want.some((v) => v.coverage === null) && want.some((v) => v.coverage !== null)).toBe(true);
    expect(want.some((v) => v.threshold === null)).toBe(true);
    expect(await getVerdictSummaries(store.db, { runId: RUN })).toEqual(want);
    expect(await getVerdictSummaries(store.db, { runId: OTHER_RUN })).toEqual([]);
  });

  it("getRunResultsForCases: the verdicts of the cases asked for, whole, in case then criterion order; in chunks past 500", async () => {
    const want = (caseIds: string[]) =>
      verdictSpecs()
        .filter((v) => caseIds.includes(v.caseId))
        .sort(
          byKeys(
            (v) => v.caseId,
            (v) => v.criterionId,
          ),
        )
        .map((v) => ({
          runId: RUN,
          caseId: v.caseId,
          criterionId: v.criterionId,
          finalScore: v.finalScore,
          passed: v.passed,
          consensusLevel: v.passed ? "high" : null,
          flagForReview: v.flagForReview,
          data: v.data,
        }));
    expect(await getRunResultsForCases(store.db, { runId: RUN, caseIds: ["c2", "c10"] })).toEqual(
      want(["c2", "c10"]),
    );
    expect(await getRunResultsForCases(store.db, { runId: RUN, caseIds: [] })).toEqual([]);
    expect(await getRunResultsForCases(store.db, { runId: OTHER_RUN, caseIds: CASES })).toEqual([]);
    // 600 ids: two chunks; c1 in the first, c2 in the second
    const many = ["c1", ...Array.from({ length: 598 }, (_, i) => `x${i}`), "c2"];
    expect(
      (await getRunResultsForCases(store.db, { runId: RUN, caseIds: many })).map((r) => [
        r.caseId,
        r.criterionId,
      ]),
    ).toEqual(want(["c1", "c2"]).map((r) => [r.caseId, r.criterionId]));
  });

  it("getRunSamplesForCases: the current samples of the cases asked for (of one criterion when asked), in id order", async () => {
    const want = (caseIds: string[], criterionId?: string) =>
      current()
        .filter(
          (s) => caseIds.includes(s.caseId) && (criterionId === undefined || s.criterionId === criterionId),
        )
        .map((s) => s.id);
    const got = await getRunSamplesForCases(store.db, { runId: RUN, caseIds: ["c2", "c1"] });
    expect(got.map((s) => s.id)).toEqual(want(["c2", "c1"]));
    const first = got[0];
    const spec = specs.find((s) => s.id === first.id)!;
    expect(first).toMatchObject({
      runId: RUN,
      caseId: spec.caseId,
      criterionId: spec.criterionId,
      judge: spec.judge,
      sampleIndex: spec.sampleIndex,
      score: spec.score,
      error: spec.error,
      costUsd: spec.costUsd,
      supersededAt: null,
      cached: false,
    });
    expect(first.createdAt).toBeInstanceOf(Date);
    expect(
      (await getRunSamplesForCases(store.db, { runId: RUN, caseIds: ["c2"], criterionId: "k0" })).map(
        (s) => s.id,
      ),
    ).toEqual(want(["c2"], "k0"));
    expect(await getRunSamplesForCases(store.db, { runId: RUN, caseIds: [] })).toEqual([]);
    const many = ["c10", ...Array.from({ length: 598 }, (_, i) => `x${i}`), "c2"];
    expect((await getRunSamplesForCases(store.db, { runId: RUN, caseIds: many })).map((s) => s.id)).toEqual(
      want(["c10", "c2"]),
    );
  });
});
