import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listStudyQueries } from "@/db/queries/study";
import type { ExperimentResult } from "@/db/schema";
import { settingsFor, tempDb } from "../testing/fixtures";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { runExperiment } from "./experiment";
import { importStudyFolder } from "./import";
import type { Qrels } from "./ir-metrics";
import {
  type BestCandidate,
  costSummary,
  describePathMix,
  experimentMetrics,
  formatCost,
  MIN_JUDGE_ANSWERED,
  pickBest,
} from "./study-metrics";
import { studyReport } from "./study-report";

const row = (
  queryId: string,
  retrieved: string[],
  path = "judge",
  error: string | null = null,
): ExperimentResult => ({
  experimentId: "e",
  queryId,
  candidates: retrieved.map((m, i) => ({ memoryId: m, score: 10 - i })),
  retrieved,
  path,
  latencyMs: 5,
  inputTokens: 100,
  outputTokens: 10,
  costUsd: 0,
  error,
});

/** q0..q{n-1}: memory "r" relevant, "x" judged not relevant, anything else unjudged. */
const qrelsFor = (n: number): Qrels =>
  new Map(
    Array.from({ length: n }, (_, i) => [
      `q${String(i).padStart(2, "0")}`,
      new Map([
        ["r", 1],
        ["x", 0],
      ]),
    ]),
  );
const ids = (n: number) => Array.from({ length: n }, (_, i) => `q${String(i).padStart(2, "0")}`);
const opts = { topK: 3, kind: "single", depth: 15, convention: "annotated" as const, model: "local:j" };

describe("experiment metrics: twice, with the path mix", () => {
  it("a judge that failed on some queries: its judge-answered precision differs from its all-queries precision", () => {
    // the judge answered q00..q13 keeping only the relevant memory; q14..q19 fell back to BM25's top 2
    const rows = ids(20).map((q, i) =>
      i < 14 ? row(q, ["r"]) : row(q, ["x", "r"], "judge_error", "HTTP 500: scripted failure"),
    );
    const m = experimentMetrics(rows, qrelsFor(20), opts);
    expect(m.pathMix).toMatchObject({ queries: 20, asked: 20, answered: 14 });
    expect(m.pathMix.answeredShare).toBeCloseTo(0.7, 12);
    expect(m.pathMix.errors).toEqual([{ message: "HTTP 500: scripted failure", n: 6 }]);
    expect(describePathMix(m.pathMix)).toBe("judge answered 14 of 20 queries asked (judge_error 6)");
    expect(m.precision).toMatchObject({ n: 20 });
    expect(m.precision.mean).toBeCloseTo((14 + 6 * 0.5) / 20, 12);
    expect(m.judgeAnswered?.precision).toMatchObject({ n: 14, mean: 1 });
    expect(m.judgeAnswered?.precision.low).toBe(1);
    expect(m.precision.mean).not.toBe(m.judgeAnswered?.precision.mean);
  });

  it("n=0 says why", () => {
    const failed = ids(4).map((q) => row(q, ["x"], "judge_error", "timeout"));
    const m = experimentMetrics(failed, qrelsFor(4), opts);
    expect(m.judgeAnswered?.precision).toMatchObject({ n: 0 });
    expect(m.judgeAnswered?.precision.why).toBe(
      "the judge answered no query (judge answered 0 of 4 queries asked (judge_error 4))",
    );
    const kept = experimentMetrics(
      ids(4).map((q) => row(q, [])),
      qrelsFor(4),
      opts,
    );
    expect(kept.precision.why).toBe("nothing was kept for any labelled query");
    const unjudged = experimentMetrics(
      ids(4).map((q) => row(q, ["u"])),
      qrelsFor(4),
      opts,
    );
    expect(unjudged.precision.why).toBe("no retrieved memory is annotated yet");
    const unlabelled = experimentMetrics(
      ids(4).map((q) => row(q, ["r"])),
      new Map(),
      opts,
    );
    expect(unlabelled.precision.why).toBe("no finished query is labelled (4 need annotation)");
    expect(unlabelled.needsAnnotation).toBe(4);
    expect(experimentMetrics([], qrelsFor(4), opts).recall.why).toBe("no query has finished yet");
  });

  it("annotated: precision over judged items, and says on how many it rests; qrels: unjudged count as not relevant", () => {
    const rows = ids(2).map((q) => row(q, ["r", "u"]));
    const annotated = experimentMetrics(rows, qrelsFor(2), opts);
    expect(annotated.precision.mean).toBe(1);
    expect(annotated).toMatchObject({ retrieved: 4, judgedRetrieved: 2, needsAnnotation: 2 });
    const trec = experimentMetrics(rows, qrelsFor(2), { ...opts, convention: "qrels" });
    expect(trec.precision.mean).toBe(0.5);
  });
});

describe("cost: an unpriced model is never $0", () => {
  it("unpriced, priced by the current table, free for BM25", () => {
    const rows = [row("q", ["r"])];
    const unpriced = costSummary(rows, { kind: "single", model: "local:j" }, undefined);
    expect(unpriced).toEqual({ state: "unpriced", model: "local:j", inputTokens: 100, outputTokens: 10 });
    expect(formatCost(unpriced, "perQuery")).toBe("unpriced");
    expect(formatCost(unpriced, "perMonth")).toBe("unpriced");
    const priced = costSummary(
      rows,
      { kind: "single", model: "local:j" },
      { inputPerMTok: 1, outputPerMTok: 2 },
    );
    expect(priced).toMatchObject({ state: "priced", perQuery: 120 / 1e6 });
    expect(formatCost(priced, "perQuery")).toBe("$0.00012");
    expect(formatCost(costSummary(rows, { kind: "bm25" }, undefined), "perQuery")).toBe("$0 (no calls)");
  });
});

describe("best: only with enough judge answers and a paired test", () => {
  const cand = (id: string, rows: ExperimentResult[], kind = "single"): BestCandidate => ({
    id,
    label: id,
    rows,
    topK: 3,
    complete: true,
    metrics: experimentMetrics(rows, qrelsFor(20), { ...opts, kind }),
  });
  const good = ids(20).map((q) => row(q, ["r"]));
  const bad = ids(20).map((q) => row(q, ["x"], "bm25"));

  it("a clear lead with every query answered is best", () => {
    const v = pickBest([cand("judge", good), cand("bm25", bad, "bm25")], qrelsFor(20), "annotated");
    expect(v.best).toBe("judge");
    expect(v.reason).toMatch(/^best precision: judge/);
  });

  it("the top precision from a judge that answered < 90 % is not best", () => {
    // answered 17 of 20 (85 %): the three failures happened to fall back on the relevant memory
    const shaky = ids(20).map((q, i) => (i < 17 ? row(q, ["r"]) : row(q, ["r"], "judge_error", "500")));
    expect(17 / 20).toBeLessThan(MIN_JUDGE_ANSWERED);
    const v = pickBest([cand("shaky", shaky), cand("bm25", bad, "bm25")], qrelsFor(20), "annotated");
    expect(v).toMatchObject({ best: null, leader: "shaky" });
    expect(v.reason).toMatch(/its judge answered only 17 of 20 queries asked \(85 %, below 90 %\)/);
  });

  it("a lead the paired test does not support is not enough evidence", () => {
    const close = ids(20).map((q, i) => row(q, [i < 2 ? "x" : "r"]));
    const closer = ids(20).map((q, i) => row(q, [i < 3 ? "x" : "r"]));
    const v = pickBest([cand("a", close), cand("b", closer)], qrelsFor(20), "annotated");
    expect(v.best).toBeNull();
    expect(v.reason).toMatch(
      /^not enough evidence: a leads b by \+5.0 pts precision over 20 paired queries, paired sign-flip p = 1.000/,
    );
  });

  it("an unfinished configuration is never compared, and one finished configuration is not 'best'", () => {
    const v = pickBest(
      [cand("judge", good), { ...cand("bm25", bad, "bm25"), complete: false }],
      qrelsFor(20),
      "annotated",
    );
    expect(v.best).toBeNull();
    expect(v.reason).toMatch(/only one finished configuration .*\(1 unfinished configuration not compared\)/);
  });
});

describe("against the scripted server: a judge that fails one query in three", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server.close());

  it("shows its path mix, its judge-answered precision differs from its all-queries precision, and it is not best", async () => {
    const { db } = tempDb();
    await importStudyFolder(db, path.resolve(__dirname, "../../examples/memory-study"), "s");
    const queries = listStudyQueries(db, "s");
    const failing = queries.filter((_, i) => i % 3 === 0).map((q) => q.text);
    // keep the first candidate shown; a 500 for every third query (no retry: the memory judge fails fast)
    server.setScript((req) =>
      failing.some((t) => req.text.includes(t))
        ? { status: 500, message: "scripted failure" }
        : { json: { keep: [0] } },
    );
    const settings = settingsFor(server.baseURL);
    const base = { mode: "auto" as const, topK: 3, poolSize: 15, shuffle: false };
    await runExperiment(db, { collection: "s", config: { ...base, kind: "bm25" }, settings });
    const judgeId = await runExperiment(db, {
      collection: "s",
      config: { ...base, kind: "single", model: "local:judge" },
      settings,
    });
    const report = await studyReport(db, "s", settings.prices);
    const judge = report.experiments.find((r) => r.experiment.id === judgeId)!;
    const mix = judge.metrics.pathMix;
    expect(mix.paths.map((p) => p.path).sort()).toEqual(["judge", "judge_error"]);
    expect(mix.paths.find((p) => p.path === "judge_error")?.n).toBe(
      queries.filter((_, i) => i % 3 === 0).length,
    );
    expect(mix.answeredShare).toBeLessThan(MIN_JUDGE_ANSWERED);
    expect(mix.errors[0].message).toMatch(/scripted failure|500/);
    expect(judge.metrics.judgeAnswered?.precision.n).toBeLessThan(judge.metrics.precision.n);
    expect(judge.metrics.judgeAnswered?.precision.mean).not.toBeCloseTo(judge.metrics.precision.mean, 6);
    expect(report.best.best).not.toBe(judgeId);
    expect(report.best.reason).toMatch(/^not enough evidence/);
    // local:judge has no price in settingsFor: unpriced, never $0
    expect(judge.metrics.cost.state).toBe("unpriced");
  });
});
