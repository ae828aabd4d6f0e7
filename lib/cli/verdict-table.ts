/**
 * The verdict table `jury eval` prints at the end of a run, and `jury runs show` for a stored run:
 * one row per case × criterion (score, threshold, pass/FAIL, judges and samples answered, consensus,
 * review flags). Plain strings only, so both commands print the same thing.
 */

type Coverage = {
  judges_asked: number;
  judges_answered: number;
  samples_asked: number;
  samples_answered: number;
  samples_failed: number;
};

/** The fields of a stored result the table shows (older rows may lack coverage and agreement). */
export type VerdictRow = {
  caseId: string;
  criterionId: string;
  finalScore: number | null;
  passed: boolean;
  consensusLevel: string | null;
  flagForReview: boolean;
  data: {
    threshold: number;
    error?: string;
    straddles_threshold?: boolean;
    criterion_type?: string;
    coverage?: Coverage;
    agreement?: string;
  };
};

/** `done_with_failures` → `done with failures`. */
export const statusLabel = (s: string): string => s.replaceAll("_", " ");

/** Rows in the order of the cases, each as aligned text; then the summary line. */
export function formatVerdictTable(
  runId: string,
  status: string,
  cases: readonly { caseId: string }[],
  results: readonly VerdictRow[],
): string {
  const rows = [
    ["case", "criterion", "score", "threshold", "result", "judges", "samples", "consensus", "review"],
  ];
  for (const c of cases) {
    for (const r of results.filter((x) => x.caseId === c.caseId)) {
      const d = r.data;
      const cov = d.coverage;
      rows.push([
        c.caseId,
        r.criterionId,
        r.finalScore === null ? "—" : r.finalScore.toFixed(2),
        String(d.threshold),
        d.error ? `FAIL (${d.error})` : r.passed ? "pass" : "FAIL",
        cov && d.criterion_type === "llm" ? `${cov.judges_answered} of ${cov.judges_asked}` : "",
        cov
          ? `${cov.samples_answered} of ${cov.samples_asked}${cov.samples_failed ? ` (${cov.samples_failed} failed)` : ""}`
          : "",
        d.agreement === "deterministic" ? "" : (d.agreement ?? r.consensusLevel ?? "—"),
        [r.flagForReview ? "flag" : "", d.straddles_threshold ? "straddles" : ""].filter(Boolean).join(","),
      ]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]))
      .join("  ")
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  const passed = results.filter((r) => r.passed).length;
  return `${lines.join("\n")}\n\nrun ${runId} ${statusLabel(status)}: ${passed} of ${results.length} case × criterion verdicts passed\n`;
}
