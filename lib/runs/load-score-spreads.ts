import type { Db } from "@/db/client";
import { getCellJudgeStats, getRunCaseIndex } from "@/db/queries/run-page";
import { type CriterionSpread, scoreSpreads } from "./score-spreads";

/** A run's score spreads (lib/runs/score-spreads.ts) from its per cell × judge SQL aggregates. */
export async function loadScoreSpreads(
  db: Db,
  run: { id: string; options: { judges: string[]; n: number } },
): Promise<CriterionSpread[]> {
  return scoreSpreads({
    cases: await getRunCaseIndex(db, { runId: run.id }),
    cells: await getCellJudgeStats(db, { runId: run.id }),
    judges: run.options.judges,
    n: run.options.n,
  });
}
