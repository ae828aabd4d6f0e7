import { eq } from "drizzle-orm";
import type { CriterionVerdict } from "@/lib/judging/aggregate";
import type { CaseCriterion } from "@/lib/runs/plan-run";
import { all, query, write } from "../op";
import type { NewRun, RunStatus } from "../schema";

/**
 * A small run written row by row through query(), the same on both stores, for the contract tests of
 * the run page's and the live progress's queries (db/queries/run-page, run-live, progress): each
 * expectation is computed in the test from what is written here, never read back from an engine.
 *
 * Run r-1: cases c2, c1, c10 (written out of byte order) × criteria k1 (LLM) and k0 (deterministic)
 * × judges j-a (answers, now and then without a score or with an empty error) and j-b (fails, with
 * several messages, once with a score and an error) × samples 0 and 1; j-c is on the panel and never
 * called. One of j-a's samples was retried: the old one is superseded. Run r-2's samples are written
 * between r-1's, so every query must keep to its own run.
 */

export const RUN = "r-1";
export const OTHER_RUN = "r-2";
export const JUDGES = ["j-a", "j-b", "j-c"];
export const CASES = ["c2", "c1", "c10"];
export const at = (ms: number) => new Date(1_700_000_000_000 + ms);

export const CRITERIA: CaseCriterion[] = [
  {
    id: "k1",
    type: "llm",
    scale: [1, 10],
    threshold: 6,
    params: { prompt: "ä?" },
    panel: { consensus_threshold: 0.5 },
    version: "v2",
  },
  { id: "k0", type: "deterministic", scale: [0, 1], threshold: 1, params: {} },
];

export type SampleSpec = {
  runId: string;
  caseId: string;
  criterionId: string;
  judge: string;
  sampleIndex: number;
  score: number | null;
  error: string | null;
  costUsd: number;
  taskStatus: "done" | "error";
  superseded: boolean;
};

/** The samples in the order they are written (ids follow it). */
export function sampleSpecs(): SampleSpec[] {
  const out: SampleSpec[] = [];
  const scores = [7, 8.5, 3, 10, 1.25];
  const costs = [0.25, 0.5, 0.125, 0];
  let n = 0;
  for (const caseId of CASES)
    for (const c of CRITERIA)
      for (const judge of ["j-a", "j-b"])
        for (const sampleIndex of [0, 1]) {
          const at = `${caseId}/${c.id}/${judge}/${sampleIndex}`;
          const base = { runId: RUN, caseId, criterionId: c.id, judge, sampleIndex, costUsd: costs[n % 4] };
          if (at === "c2/k1/j-a/0")
            // retried: the first answer is kept, superseded, before the current one
            out.push({ ...base, score: 2, error: "old failure", taskStatus: "done", superseded: true });
          if (judge === "j-a") {
            const score = at === "c1/k1/j-a/1" ? null : at === "c10/k0/j-a/0" ? 5 : scores[n % 5];
            const error = at === "c10/k0/j-a/0" ? "" : null;
            out.push({ ...base, score, error, taskStatus: "done", superseded: false });
          } else {
            const late = at === "c1/k0/j-b/1";
            out.push({
              ...base,
              score: late ? 4 : null,
              error: late ? "late" : ["HTTP 500: upstream", "timeout"][n % 2],
              taskStatus: "error",
              superseded: false,
            });
          }
          if (n % 3 === 0)
            out.push({
              runId: OTHER_RUN,
              caseId,
              criterionId: c.id,
              judge: "j-a",
              sampleIndex: n,
              score: 9,
              error: n % 2 ? "other run" : null,
              costUsd: 1,
              taskStatus: "done",
              superseded: false,
            });
          n++;
        }
  return out;
}

/** A sample's answer counts: a score and no error (an empty error is none). */
export const answered = (s: { score: number | null; error: string | null }) =>
  s.score !== null && (s.error ?? "") === "";

type VerdictSpec = {
  caseId: string;
  criterionId: string;
  finalScore: number | null;
  passed: boolean;
  flagForReview: boolean;
  data: Record<string, unknown>;
};

export function verdictSpecs(): VerdictSpec[] {
  const out: VerdictSpec[] = [];
  let n = 0;
  for (const caseId of CASES)
    for (const c of CRITERIA) {
      const data: Record<string, unknown> = { final_score: n, samples: [{ score: 1 }] };
      if (n % 3 !== 2) data.threshold = n % 3 === 0 ? c.threshold : 6.5;
      if (n % 3 === 0) data.coverage = { samples_answered: 3, samples_asked: 4, judges: ["j-a"] };
      if (n % 3 === 1) data.coverage = null;
      if (n % 2 === 0) data.straddles_threshold = n % 4 === 0;
      data.cross_model_std = n % 3 === 1 ? null : 0.1 + 0.2 * n;
      out.push({
        caseId,
        criterionId: c.id,
        finalScore: n % 4 === 3 ? null : 6.25 + n,
        passed: n % 2 === 0,
        flagForReview: n % 3 === 0,
        data,
      });
      n++;
    }
  return out;
}

const OPTIONS: NewRun["options"] = { judges: JUDGES, n: 2, temperature: 0, concurrency: 1, noCache: false };

/** Writes both runs, their cases, tasks, samples and verdicts; returns each sample's id, in order. */
export const seedRuns = query(function* (db) {
  const { runs, runCases, tasks, samples, results } = db.tables;
  yield* write(
    db.insert(runs).values([
      { id: RUN, suitePath: "s/1", suiteName: "one", options: OPTIONS, status: "running", startedAt: at(5) },
      { id: OTHER_RUN, suitePath: "s/2", suiteName: "two", options: OPTIONS, status: "running" },
    ]),
  );
  for (const caseId of CASES)
    yield* write(
      db.insert(runCases).values({
        runId: RUN,
        caseId,
        name: `Case ${caseId} é`,
        input: { q: caseId, nested: { n: 1 } },
        output: `out ${caseId}`,
        criteria: CRITERIA,
      }),
    );
  const taskIds = new Map<string, number>();
  const ids: number[] = [];
  for (const s of sampleSpecs()) {
    const key = `${s.caseId}/${s.criterionId}/${s.judge}/${s.sampleIndex}`;
    let taskId = taskIds.get(`${s.runId}:${key}`);
    if (taskId === undefined) {
      const [t] = yield* all(
        db
          .insert(tasks)
          .values({
            runId: s.runId,
            key,
            caseId: s.caseId,
            criterionId: s.criterionId,
            judge: s.judge,
            sampleIndex: s.sampleIndex,
            status: s.taskStatus,
          })
          .returning({ id: tasks.id }),
      );
      taskId = t.id;
      taskIds.set(`${s.runId}:${key}`, taskId);
    }
    const [written] = yield* all(
      db
        .insert(samples)
        .values({
          taskId,
          runId: s.runId,
          caseId: s.caseId,
          criterionId: s.criterionId,
          judge: s.judge,
          sampleIndex: s.sampleIndex,
          score: s.score,
          error: s.error,
          costUsd: s.costUsd,
          supersededAt: s.superseded ? at(100) : null,
          supersededReason: s.superseded ? "retried" : null,
        })
        .returning({ id: samples.id }),
    );
    ids.push(written.id);
  }
  for (const v of verdictSpecs())
    yield* write(
      db.insert(results).values({
        runId: RUN,
        caseId: v.caseId,
        criterionId: v.criterionId,
        finalScore: v.finalScore,
        passed: v.passed,
        flagForReview: v.flagForReview,
        consensusLevel: v.passed ? "high" : null,
        data: v.data as unknown as CriterionVerdict,
      }),
    );
  return ids;
});

/** Sets a run's status (a finished one makes the triggers write run_totals). */
export const setStatus = query(function* (db, id: string, status: RunStatus) {
  const { runs } = db.tables;
  yield* write(db.update(runs).set({ status }).where(eq(runs.id, id)));
});
