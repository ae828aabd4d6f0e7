import { notFound } from "next/navigation";
import { connection } from "next/server";
import { DimensionChart } from "@/components/charts/dimension-chart";
import { DiffView } from "@/components/reviews/diff-view";
import { ConsensusBadge } from "@/components/runs/status-badge";
import { Card, PageTitle } from "@/components/ui/card";
import { RawOutput } from "@/components/ui/raw-output";
import { TableHead } from "@/components/ui/table-head";
import { getDb } from "@/db/client";
import { getReview } from "@/db/queries/reviews";
import type { CriterionVerdict } from "@/lib/judging/aggregate";
import type { ReviewContext } from "@/lib/review/assemble";
import { isDiagnosisUnavailable } from "@/lib/review/diagnosis";
import { describeJudge } from "@/lib/review/judge-status";
import { DIMENSIONS, type Judgment } from "@/lib/review/judgment";

type Props = { params: Promise<{ id: string }> };
type StoredJudgment = Judgment & {
  consensus: Record<string, CriterionVerdict>;
  judges: string[];
  n: number;
  mode: string;
};

export default async function ReviewPage({ params }: Props) {
  await connection();
  const { id } = await params;
  if (!/^rev_[0-9a-f]{10}$/.test(id)) notFound();
  const review = await getReview(getDb(), id);
  if (!review) notFound();
  const { record } = review;
  const j = record.judgment as StoredJudgment | null;
  return (
    <div className="space-y-4">
      <PageTitle>
        {review.title}{" "}
        <span data-testid="review-verdict" className="rounded bg-zinc-100 px-2 py-0.5 text-sm">
          {review.verdict} · from the {review.verdictSource}
          {review.score !== null && ` · score ${review.score.toFixed(2)}`}
          {review.blendedScore !== null && ` · blended ${review.blendedScore.toFixed(2)}`}
        </span>
      </PageTitle>
      <p className="-mt-2 text-sm" data-testid="review-judge">
        Judge: {describeJudge({ ...record, verdictSource: review.verdictSource })}
        {review.createdBy && (
          <span className="text-zinc-600" data-testid="review-asked-by">
            {" "}
            · asked for by {review.createdBy}
          </span>
        )}
      </p>
      {record.warnings.length > 0 && (
        <Card title="Warnings">
          <ul className="list-disc pl-5 text-sm text-amber-800">
            {record.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </Card>
      )}
      {record.gate && (
        <Card title="Gate (pass or fail; when in doubt, pass)">
          <p className="text-sm">
            <strong>{record.gate.verdict}</strong> {record.gate.reasoning}
            {record.gate.skipped && <span className="text-zinc-500"> (skipped: {record.gate.skipped})</span>}
          </p>
        </Card>
      )}
      {j ? (
        <div className="grid gap-4 md:grid-cols-2">
          <Card
            title={`Dimensions (${j.judges.length} judge${j.judges.length === 1 ? "" : "s"} × N = ${j.n}, ${j.mode}${record.coverage ? `; ${record.coverage.judges_answered} of ${record.coverage.judges_asked} judges answered, ${record.coverage.samples_answered} of ${record.coverage.samples_asked} samples` : ""})`}
          >
            <DimensionChart
              data={DIMENSIONS.map((d) => ({
                dimension: d,
                score: j.dimensions[d],
                std: j.consensus[d]?.cross_model_std ?? undefined,
                n: j.consensus[d]?.coverage?.judges_answered ?? j.judges.length,
              }))}
            />
            <table className="mt-2 w-full text-sm tabular-nums" data-testid="dimensions-table">
              <tbody>
                {DIMENSIONS.map((d) => (
                  <tr key={d}>
                    <td>{d}</td>
                    <td>{j.dimensions[d].toFixed(2)}</td>
                    <td>
                      <ConsensusBadge
                        level={j.consensus[d]?.consensus_level ?? null}
                        agreement={j.consensus[d]?.agreement}
                      />
                    </td>
                    <td className="text-xs text-zinc-500">
                      {j.consensus[d]?.coverage &&
                        `${j.consensus[d].coverage.judges_answered} of ${j.consensus[d].coverage.judges_asked} judges · ${j.consensus[d].coverage.samples_answered} of ${j.consensus[d].coverage.samples_asked} samples`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Card>
          <Card title={`Issues (${j.issues.length})`}>
            <p className="mb-2 text-sm">{j.summary}</p>
            <ul className="space-y-1 text-sm" data-testid="issues">
              {j.issues.map((i) => (
                <li key={`${i.severity}-${i.description}`}>
                  <span
                    className={`mr-2 rounded px-1 text-xs ${i.severity === "major" ? "bg-red-100 text-red-800" : "bg-zinc-100"}`}
                  >
                    {i.severity}
                  </span>
                  {i.description}
                </li>
              ))}
            </ul>
            <p className="mt-2 text-xs text-zinc-500">confidence: {j.confidence}</p>
          </Card>
        </div>
      ) : (
        <Card title="Scored judgment">
          <p className="text-sm text-zinc-600">
            No scored judgment: {record.warnings.join(" ") || "the judge did not run."}
          </p>
        </Card>
      )}
      {record.diagnosis && (
        <Card
          title={`${isDiagnosisUnavailable(record.diagnosis) ? "Diagnosis" : "Retry feedback"} (from the session transcript)`}
        >
          <p className="text-sm" data-testid="diagnosis">
            {record.diagnosis}
          </p>
          {record.transcript && (
            <p className="mt-1 text-xs text-zinc-500" data-testid="diagnosis-transcript">
              transcript: <code>{record.transcript.path}</code>
              {record.transcript.source === "found" && " (the newest session of the project)"}
            </p>
          )}
        </Card>
      )}
      {record.calls && record.calls.length > 0 && (
        <Card
          title={`Calls (${record.calls.length}) · ${record.costUsd === null || record.costUsd === undefined ? "unpriced" : `$${record.costUsd.toFixed(4)}`}`}
        >
          <table className="w-full text-left text-sm tabular-nums" data-testid="review-calls">
            <TableHead columns={["Step", "Judge", "Tokens in / out", "Cost", "Latency", "Error"]} />
            <tbody>
              {record.calls.map((c, i) => (
                // calls have no id of their own: their order is the record's
                // biome-ignore lint/suspicious/noArrayIndexKey: stable, stored order
                <tr key={i} className="border-t border-zinc-100">
                  <td>
                    {c.step}
                    {c.dimension && ` · ${c.dimension}`}
                    {c.sampleIndex !== undefined && ` #${c.sampleIndex + 1}`}
                  </td>
                  <td>
                    <code className="text-xs">{c.judge}</code>
                  </td>
                  <td>
                    {c.inputTokens} / {c.outputTokens}
                  </td>
                  <td>{c.costUsd === null ? "unpriced" : `$${c.costUsd.toFixed(5)}`}</td>
                  <td>{Math.round(c.latencyMs)} ms</td>
                  <td className="text-xs text-red-700">{c.error ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      )}
      <JudgeInput context={record.context as Partial<ReviewContext>} diff={review.diff} />
      <Card title={`Samples (${record.samples.length})`}>
        <ol className="space-y-2" data-testid="review-samples">
          {record.samples.map((s) => {
            const parsed = s.parsed as { summary?: string; reasoning?: string } | undefined;
            return (
              <li
                key={`${s.judge}-${s.sampleIndex}-${s.dimension ?? ""}`}
                className="rounded border border-zinc-200 p-2 text-sm"
              >
                <div className="text-xs text-zinc-500">
                  <code className="text-zinc-900">{s.judge}</code> · sample {s.sampleIndex + 1}
                  {s.dimension && ` · ${s.dimension}`} · {Math.round(s.latencyMs)} ms ·{" "}
                  {s.inputTokens !== undefined && `${s.inputTokens} in / ${s.outputTokens} out tokens · `}
                  {s.costUsd !== undefined &&
                    `${s.costUsd === null ? "unpriced" : `$${s.costUsd.toFixed(5)}`} · `}
                  {s.valid ? "valid" : "failed (not scored)"}
                </div>
                {s.error && <p className="text-red-700">{s.error}</p>}
                {(parsed?.summary || parsed?.reasoning) && (
                  <p data-testid="review-reasoning">{parsed.summary ?? parsed.reasoning}</p>
                )}
                <RawOutput text={s.raw} />
              </li>
            );
          })}
        </ol>
      </Card>
    </div>
  );
}

/** One part of what the judge saw, collapsible; `open` for the parts read first. */
function Part({
  id,
  title,
  open,
  children,
}: {
  id: string;
  title: string;
  open?: boolean;
  children: React.ReactNode;
}) {
  return (
    <details open={open} className="rounded border border-zinc-200" data-testid={`judge-input-${id}`}>
      <summary className="cursor-pointer px-2 py-1 text-sm font-medium">{title}</summary>
      <div className="border-t border-zinc-200 p-2">{children}</div>
    </details>
  );
}

/** A stored text as it was sent, in a scroll region a keyboard can reach. */
function SentText({ label, text }: { label: string; text: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section aria-label={label} tabIndex={0} className="max-h-96 overflow-auto">
      <pre className="whitespace-pre-wrap text-xs leading-5">{text}</pre>
    </section>
  );
}

/**
 * What the judge saw: the stored context package (the criteria, the test output, the conventions and
 * what was cut) and the diff as sent, truncation marker included. Older reviews may lack parts.
 */
function JudgeInput({ context, diff }: { context: Partial<ReviewContext>; diff: string }) {
  const tests = context.testResults;
  const notes = context.notes ?? [];
  return (
    <Card title="What the judge saw">
      <div className="space-y-2" data-testid="judge-input">
        {notes.length > 0 && (
          <ul className="list-disc pl-5 text-xs text-amber-800" data-testid="judge-input-notes">
            {notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        )}
        <Part id="criteria" title="Acceptance criteria" open>
          {context.criteria ? (
            <SentText label="The acceptance criteria" text={context.criteria} />
          ) : (
            <p className="text-sm text-zinc-600">Not stored with this review.</p>
          )}
        </Part>
        {context.prompt && (
          <Part id="prompt" title="The task prompt">
            <SentText label="The task prompt" text={context.prompt} />
          </Part>
        )}
        <Part id="diff" title={`Diff as sent (${diff.split("\n").length} lines)`} open>
          <DiffView diff={diff} />
        </Part>
        <Part
          id="tests"
          title={
            tests
              ? `Test output (${tests.passed} passed, ${tests.failed} failed)`
              : "Test output (none given)"
          }
        >
          {tests?.output ? (
            <SentText label="The test output" text={tests.output} />
          ) : (
            <p className="text-sm text-zinc-600">
              {tests ? "Only the counts were given, no output." : "No test results were given."}
            </p>
          )}
        </Part>
        {(context.testFiles?.length ?? 0) > 0 && (
          <Part id="test-files" title={`Test files (${context.testFiles?.length})`}>
            {context.testFiles?.map((f) => (
              <div key={f.path}>
                <p className="text-xs font-medium">
                  <code>{f.path}</code>
                </p>
                <SentText label={`Test file ${f.path}`} text={f.content} />
              </div>
            ))}
          </Part>
        )}
        <Part id="conventions" title="Conventions excerpt">
          {context.conventions ? (
            <SentText label="The conventions excerpt" text={context.conventions} />
          ) : (
            <p className="text-sm text-zinc-600">None found or given.</p>
          )}
        </Part>
        {context.lint && (
          <Part id="lint" title="Lint output">
            <SentText label="The lint output" text={context.lint} />
          </Part>
        )}
      </div>
    </Card>
  );
}
