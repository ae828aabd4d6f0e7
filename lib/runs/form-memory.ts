import { errorKind } from "./coverage";

/**
 * What the run form starts with: the last run's suite and judges (the form remembers them across
 * runs), less any judge that answered none of its samples in that run (a missing key, a model that
 * is down), which is left unticked with the reason shown beside it. Pure: the runs page reads the
 * last run (db/queries/runs.ts getLastRunForm) and hands it over.
 */

/** The newest run as the form needs it: its suite, judges, and the judges that failed every sample. */
export type LastRunForm = {
  runId: string;
  suiteDir: string;
  judges: string[];
  /** judges with no answered sample in that run, with their first error message */
  failed: { judge: string; message: string }[];
};

export type FormStart = {
  suiteDir: string;
  judges: string[];
  /** judges offered but left unticked, and why */
  unticked: { judge: string; reason: string }[];
};

export function rememberedForm({
  suites,
  offered,
  defaults,
  last,
}: {
  /** the usable suites' folders, in the order the form lists them */
  suites: readonly string[];
  /** the judges Settings enable (the form's boxes) */
  offered: readonly string[];
  /** the judges ticked when there is nothing to remember */
  defaults: readonly string[];
  last: LastRunForm | null;
}): FormStart {
  const suiteDir = last && suites.includes(last.suiteDir) ? last.suiteDir : (suites[0] ?? "");
  const broken = new Map((last?.failed ?? []).map((f) => [f.judge, errorKind(f.message)]));
  const usable = (js: readonly string[]) => js.filter((j) => offered.includes(j) && !broken.has(j));
  const fromLast = last ? usable(last.judges) : [];
  const judges = fromLast.length ? fromLast : usable(defaults);
  const unticked = offered
    .filter((j) => broken.has(j))
    .map((judge) => ({
      judge,
      reason: `every sample failed in the last run (${last?.runId}): ${broken.get(judge)}`,
    }));
  return { suiteDir, judges, unticked };
}
