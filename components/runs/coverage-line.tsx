import { type Coverage, coverageText } from "@/lib/judging/aggregate";

/** "1 of 2 judges answered · 10 of 18 samples (8 failed)": what a figure rests on. */
export function CoverageLine({ coverage, testId }: { coverage: Coverage; testId?: string }) {
  const partial =
    coverage.judges_answered < coverage.judges_asked || coverage.samples_answered < coverage.samples_asked;
  return (
    <span data-testid={testId} className={partial ? "text-orange-800" : "text-zinc-600"}>
      {coverageText(coverage)}
    </span>
  );
}
