// Tests only: a finished run with known judge scores, to label and measure.
import type { Db } from "@/db/client";
import { getRunTasks, insertRun, recordSample, setRunStatus } from "@/db/queries/runs";
import { finalizeRun } from "@/lib/runs/finalize-run";

export const SCORES = {
  "local:a": [8, 7, 3, 2, 9, 5, 6, 4],
  "local:b": [7, 4, 2, 3, 8, 7, 7, 2],
} as const;
export const CASES = SCORES["local:a"].map((_, i) => `c${i + 1}`);

/** A finished run: 8 cases × one criterion (scale 1–10, threshold 6) × two judges, one sample each. */
export async function seedRun(db: Db, id = "run_20260101_0000abcd"): Promise<string> {
  const criteria = [
    { id: "helpful", type: "llm" as const, scale: [1, 10] as [number, number], threshold: 6, params: {} },
  ];
  const judges = Object.keys(SCORES);
  await insertRun(db, {
    id,
    suitePath: "/suites/x",
    suiteName: "x",
    options: { judges, n: 1, temperature: 0, concurrency: 1, noCache: false },
    cases: CASES.map((caseId) => ({ caseId, name: caseId, input: {}, output: "o", criteria })),
    tasks: CASES.flatMap((caseId) =>
      judges.map((judge) => ({
        key: `${caseId}/${judge}`,
        caseId,
        criterionId: "helpful",
        judge,
        sampleIndex: 0,
      })),
    ),
  });
  for (const t of await getRunTasks(db, { runId: id }))
    await recordSample(db, {
      taskId: t.id,
      runId: id,
      caseId: t.caseId,
      criterionId: "helpful",
      judge: t.judge,
      sampleIndex: 0,
      score: SCORES[t.judge as keyof typeof SCORES][CASES.indexOf(t.caseId)],
      reasoning: "r",
      rawText: "{}",
      latencyMs: 1,
      inputTokens: 1,
      outputTokens: 1,
      costUsd: 0,
      attempts: 1,
      cached: false,
      error: null,
    });
  await finalizeRun(db, id, { judges, n: 1 });
  await setRunStatus(db, { id, status: "done" });
  return id;
}
