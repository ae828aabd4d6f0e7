import type { Db } from "@/db/client";
import { getCellJudgeStats, getRunCaseIndex } from "@/db/queries/run-page";
import { type CriterionSpread, scoreSpreads } from "./score-spreads";

/** A run's score spreads (lib/runs/score-spreads.ts) from its per cell × judge SQL aggregates. */
export function loadScoreSpreads(
  db: Db,
  run: { id: string; options: { judges: string[]; n: number } },
): CriterionSpread[] {
  return scoreSpreads({
    cases: getRunCaseIndex(db, { runId: run.id }),
    cells: getCellJudgeStats(db, { runId: run.id }),
    judges: run.options.judges,
    n: run.options.n,
  });
}
