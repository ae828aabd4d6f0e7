import { describe, expect, it } from "vitest";
import { createRun } from "@/lib/runs/plan-run";
import { loadSuite } from "@/lib/suites/load-suite";
import { tempDb, testRegistry, testSuite } from "@/lib/testing/fixtures";
import { getFailedJudges, getJudgesAnswered } from "./run-live";
import { getRunTasks, recordSamples } from "./runs";

describe("a run's judges that answered, and those that failed it", () => {
  it("a judge with no answered sample and a failure is failed, with its first error; a judge not yet called is not", async () => {
    const { db } = tempDb();
    const { registry } = testRegistry();
    const judges = ["local:ok", "local:down", "local:later"];
    const runId = await createRun(db, loadSuite(testSuite(2)), registry, {
      judges,
      n: 1,
      temperature: 0,
      concurrency: 1,
      noCache: false,
    });
    const tasks = getRunTasks(db, { runId }).filter((t) => t.judge !== "local:later");
    recordSamples(
      db,
      tasks.map((t) => ({
        sample: {
          taskId: t.id,
          runId,
          caseId: t.caseId,
          criterionId: t.criterionId,
          judge: t.judge,
          sampleIndex: t.sampleIndex,
          score: t.judge === "local:down" ? null : 7,
          reasoning: null,
          rawText: null,
          latencyMs: 1,
          inputTokens: 1,
          outputTokens: 1,
          costUsd: 0,
          attempts: 1,
          cached: false,
          error: t.judge === "local:down" ? "The local judge needs JURY_LOCAL_BASE_URL" : null,
        },
      })),
    );
    expect(getJudgesAnswered(db, { runId, judges })).toBe(1);
    expect(getFailedJudges(db, { runId, judges })).toEqual([
      { judge: "local:down", message: "The local judge needs JURY_LOCAL_BASE_URL" },
    ]);
  });
});
