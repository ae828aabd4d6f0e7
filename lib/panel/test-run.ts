// Tests only: four judges of known quality over 60 cases with people's labels for every verdict:
// "good" and "cheap" (right on most samples), "noise" (any score) and "high" (biased high).
import type { Db } from "@/db/client";
import { setVerdictLabels } from "@/db/queries/labels";
import { getRunTasks, insertRun, recordSamples, setRunStatus } from "@/db/queries/runs";
import { hashString } from "../providers/mock-model";
import { finalizeRun } from "../runs/finalize-run";

export const PANEL_CASES = 60;
export const PANEL_N = 5;
export const PANEL_JUDGES = ["local:good", "local:cheap", "local:noise", "local:high"];
/** USD per million tokens: the noise judge costs a little more than the cheap one */
export const PANEL_PRICES = {
  "local:good": { inputPerMTok: 3, outputPerMTok: 15 },
  "local:cheap": { inputPerMTok: 0.25, outputPerMTok: 2 },
  "local:noise": { inputPerMTok: 0.3, outputPerMTok: 2.4 },
  "local:high": { inputPerMTok: 1, outputPerMTok: 5 },
};

/** The people's label of case i: every other case passes. */
export const goldOf = (i: number) => i % 2 === 0;
const u = (s: string) => (hashString(s) % 1000) / 1000;

/** Judge `model`'s score for case i, sample k (scale 1–10, threshold 6). */
export function panelScoreOf(model: string, i: number, k: number): number {
  const pass = goldOf(i);
  const right = (p: number) => u(`${model}#${i}#${k}`) >= p;
  const honest = (p: number) => (right(p) === pass ? 8 : 3);
  if (model.endsWith("noise")) return 1 + (hashString(`noise#${i}#${k}`) % 10);
  if (model.endsWith("good")) return honest(0.2);
  if (model.endsWith("cheap")) return honest(0.3);
  return Math.min(10, honest(0.15) + 4); // high: 4 points above an honest judge
}

export const panelCaseId = (i: number) => `case${String(i).padStart(2, "0")}`;

/** A finished run of the four judges × N=5 over the 60 cases (no call), every verdict labelled. */
export async function seedPanelRun(db: Db, id = "run_20260301_0000a11e"): Promise<string> {
  const criteria = [
    { id: "correctness", type: "llm" as const, scale: [1, 10] as [number, number], threshold: 6, params: {} },
  ];
  const cases = Array.from({ length: PANEL_CASES }, (_, i) => panelCaseId(i));
  await insertRun(db, {
    id,
    suitePath: "/suites/panel",
    suiteName: "panel",
    options: { judges: PANEL_JUDGES, n: PANEL_N, temperature: 0.8, concurrency: 4, noCache: false },
    cases: cases.map((caseId) => ({ caseId, name: caseId, input: {}, output: "o", criteria })),
    tasks: cases.flatMap((caseId) =>
      PANEL_JUDGES.flatMap((judge) =>
        Array.from({ length: PANEL_N }, (_, k) => ({
          key: `${caseId}/${judge}/${k}`,
          caseId,
          criterionId: "correctness",
          judge,
          sampleIndex: k,
        })),
      ),
    ),
  });
  const tasks = await getRunTasks(db, { runId: id });
  await recordSamples(
    db,
    tasks.map((t) => ({
      sample: {
        taskId: t.id,
        runId: id,
        caseId: t.caseId,
        criterionId: "correctness",
        judge: t.judge,
        sampleIndex: t.sampleIndex,
        score: panelScoreOf(t.judge, cases.indexOf(t.caseId), t.sampleIndex),
        reasoning: "r",
        rawText: "{}",
        latencyMs: 1,
        inputTokens: 400,
        outputTokens: 20,
        costUsd: 0,
        attempts: 1,
        cached: false,
        error: null,
      },
    })),
  );
  await finalizeRun(db, id, { judges: PANEL_JUDGES, n: PANEL_N });
  await setRunStatus(db, { id, status: "done" });
  await setVerdictLabels(
    db,
    cases.map((caseId, i) => ({
      runId: id,
      caseId,
      criterionId: "correctness",
      passed: goldOf(i),
      score: null,
    })),
    { source: "human" },
  );
  return id;
}
