/**
 * What the judge did for a review, in one line: its status, and for the mechanical paths that the
 * verdict is the tests'. The CLI prints it and the review page shows it.
 */
export function describeJudge(r: {
  judge?: { status: string; reason?: string; error?: string };
  coverage?: {
    judges_answered: number;
    judges_asked: number;
    samples_answered: number;
    samples_asked: number;
  };
  verdictSource: string;
}): string {
  const j = r.judge;
  // a review stored before the judge's status was recorded
  if (!j)
    return r.verdictSource === "tests"
      ? "mechanical verdict from the tests"
      : `the ${r.verdictSource}'s verdict`;
  switch (j.status) {
    case "not enabled":
      return `not enabled (${j.reason}); mechanical verdict from the tests`;
    case "throttled":
      return `skipped, ${j.reason}; mechanical verdict from the tests`;
    case "failed":
      return `failed (${j.error ?? "no answer"}); fell back to the mechanical verdict from the tests`;
    case "gate only":
      return `gate only: the gate's verdict stands; the scored judgment failed (${j.error ?? "no answer"})${coverageOf(r.coverage)}`;
    case "not asked":
      return `not asked (${j.reason ?? "nothing to judge"}); mechanical verdict from the tests`;
    default:
      return `answered${coverageOf(r.coverage)}${j.error ? ` (${j.error})` : ""}`;
  }
}

/** ": 1 of 2 judges answered, 3 of 4 samples" over the scored judgment's calls; "" when none were asked. */
function coverageOf(c: Parameters<typeof describeJudge>[0]["coverage"]): string {
  return c?.samples_asked
    ? `: ${c.judges_answered} of ${c.judges_asked} judges answered, ${c.samples_answered} of ${c.samples_asked} samples`
    : "";
}
