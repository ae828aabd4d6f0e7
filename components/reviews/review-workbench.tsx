"use client";

import { type ChangeEvent, useActionState, useMemo, useState } from "react";
import { type StartReviewState, startReview } from "@/app/actions/reviews";
import type { LiveProgress } from "@/lib/jobs/live";
import { queuedReview, ReviewProgress } from "./review-progress";

const field = "w-full rounded border border-zinc-300 bg-white px-2 py-1 text-sm";
const label = "block text-xs font-medium text-zinc-700";
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A review job the page lists: running, or stopped before it was stored (with why). */
export type ReviewJobItem = { id: string; createdAt: string; initial: LiveProgress };

type Props = {
  /** the judges enabled in Settings */
  judges: string[];
  /** the ones ticked at first */
  defaultJudges: string[];
  defaultN: number;
  /** the largest diff the server takes (JURY_MAX_FILE_BYTES), in bytes */
  maxBytes: number;
  jobs: ReviewJobItem[];
};

/**
 * Starts a review from the dashboard: criteria, the diff (pasted, or a .diff file read into the
 * box), test counts and output, judges and N. Every field is controlled, so a refused form keeps
 * what was typed. The started review is followed live below the form; the other review jobs with
 * no stored review (running, or stopped with why) are listed under it.
 */
export function ReviewWorkbench({ judges: available, defaultJudges, defaultN, maxBytes, jobs }: Props) {
  const [state, action, pending] = useActionState<StartReviewState, FormData>(startReview, null);
  const [title, setTitle] = useState("");
  const [criteria, setCriteria] = useState("");
  const [diff, setDiff] = useState("");
  const [fileNote, setFileNote] = useState<string | null>(null);
  const [passed, setPassed] = useState("");
  const [failed, setFailed] = useState("");
  const [testOutput, setTestOutput] = useState("");
  const [judges, setJudges] = useState<string[]>(defaultJudges);
  const [n, setN] = useState(String(defaultN));
  const [perDimension, setPerDimension] = useState(false);
  const started = state?.ok ? state.data : null;
  const startedInitial = useMemo(() => (started ? queuedReview(started.total) : null), [started]);
  const fe = state && !state.ok ? state.fieldErrors : {};

  // the file is read here, into the box, so it stays through a refused submit like the other fields
  const readDiffFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const input = e.currentTarget;
    const file = input.files?.[0];
    input.value = "";
    if (!file) return;
    if (file.size > maxBytes) {
      setFileNote(
        `${file.name} is ${file.size.toLocaleString("en-US")} bytes, over the ${maxBytes.toLocaleString("en-US")}-byte limit`,
      );
      return;
    }
    try {
      setDiff(utf8.decode(await file.arrayBuffer()));
      setTitle((t) => t || file.name);
      setFileNote(`Read ${file.name} into the box.`);
    } catch {
      setFileNote(`${file.name} is not valid UTF-8 text; save it as UTF-8`);
    }
  };

  return (
    <div className="space-y-4">
      <form action={action} className="space-y-3" data-testid="review-form">
        <div className="grid gap-3 sm:grid-cols-2">
          <div>
            <label htmlFor="review-title" className={label}>
              Title (optional)
            </label>
            <input
              id="review-title"
              name="title"
              value={title}
              onChange={(e) => setTitle(e.currentTarget.value)}
              className={field}
              maxLength={200}
            />
            {fe.title && <p className="text-xs text-red-600">{fe.title}</p>}
          </div>
          <div>
            <label htmlFor="review-diff-file" className={label}>
              Upload a .diff file
            </label>
            <input
              id="review-diff-file"
              name="diffFile"
              type="file"
              accept=".diff,.patch,text/x-diff,text/x-patch,text/plain"
              onChange={readDiffFile}
              className="text-sm"
              data-testid="review-diff-file"
            />
            {fileNote && <p className="text-xs text-zinc-600">{fileNote}</p>}
          </div>
        </div>
        <div>
          <label htmlFor="review-criteria" className={label}>
            Acceptance criteria
          </label>
          <textarea
            id="review-criteria"
            name="criteria"
            rows={4}
            value={criteria}
            onChange={(e) => setCriteria(e.currentTarget.value)}
            className={field}
            data-testid="review-criteria"
          />
          {fe.criteria && (
            <p className="text-xs text-red-600" data-testid="error-criteria">
              {fe.criteria}
            </p>
          )}
        </div>
        <div>
          <label htmlFor="review-diff" className={label}>
            The diff (git diff), pasted
          </label>
          <textarea
            id="review-diff"
            name="diff"
            rows={8}
            value={diff}
            onChange={(e) => setDiff(e.currentTarget.value)}
            className={`${field} font-mono text-xs`}
            data-testid="review-diff"
          />
          <p className="text-xs text-zinc-500">
            Judged as the CLI judges <code>--diff</code>: its first 3,000 lines. Up to 1 MB in all from the
            dashboard (the server-action body limit); larger diffs review from the CLI:{" "}
            <code>npx jury review --diff change.diff --criteria criteria.md</code>.
          </p>
          {fe.diff && (
            <p className="text-xs text-red-600" data-testid="error-diff">
              {fe.diff}
            </p>
          )}
        </div>
        <div className="grid gap-3 sm:grid-cols-4">
          <div>
            <label htmlFor="review-passed" className={label}>
              Tests passed (optional)
            </label>
            <input
              id="review-passed"
              name="passed"
              inputMode="numeric"
              value={passed}
              onChange={(e) => setPassed(e.currentTarget.value)}
              className={field}
            />
            {fe.passed && <p className="text-xs text-red-600">{fe.passed}</p>}
          </div>
          <div>
            <label htmlFor="review-failed" className={label}>
              Tests failed (optional)
            </label>
            <input
              id="review-failed"
              name="failed"
              inputMode="numeric"
              value={failed}
              onChange={(e) => setFailed(e.currentTarget.value)}
              className={field}
            />
            {fe.failed && (
              <p className="text-xs text-red-600" data-testid="error-failed">
                {fe.failed}
              </p>
            )}
          </div>
          <div>
            <label htmlFor="review-n" className={label}>
              N samples per judge
            </label>
            <input
              id="review-n"
              name="n"
              type="number"
              min={1}
              max={10}
              value={n}
              onChange={(e) => setN(e.currentTarget.value)}
              className={field}
            />
            {fe.n && (
              <p className="text-xs text-red-600" data-testid="error-n">
                {fe.n}
              </p>
            )}
          </div>
          <label className="flex items-end gap-2 pb-1 text-sm">
            <input
              type="checkbox"
              name="perDimension"
              checked={perDimension}
              onChange={(e) => setPerDimension(e.currentTarget.checked)}
            />
            score each dimension in its own call
          </label>
        </div>
        <div>
          <label htmlFor="review-test-output" className={label}>
            Test output (optional; its first 2,000 lines are kept)
          </label>
          <textarea
            id="review-test-output"
            name="testOutput"
            rows={3}
            value={testOutput}
            onChange={(e) => setTestOutput(e.currentTarget.value)}
            className={`${field} font-mono text-xs`}
          />
          {fe.testOutput && <p className="text-xs text-red-600">{fe.testOutput}</p>}
        </div>
        <fieldset>
          <legend className={label}>Judges</legend>
          {available.length === 0 && (
            <p className="text-xs text-zinc-500">None enabled: enable a provider in Settings.</p>
          )}
          {available.map((j) => (
            <label key={j} className="mr-3 inline-flex items-center gap-1 text-sm">
              <input
                type="checkbox"
                name="judges"
                value={j}
                checked={judges.includes(j)}
                onChange={(e) =>
                  setJudges(e.currentTarget.checked ? [...judges, j] : judges.filter((x) => x !== j))
                }
              />
              <code>{j}</code>
            </label>
          ))}
          {fe.judges && (
            <p className="whitespace-pre-line text-xs text-red-600" data-testid="error-judges">
              {fe.judges}
            </p>
          )}
        </fieldset>
        <div className="flex items-center gap-3">
          <button
            type="submit"
            disabled={pending}
            data-testid="start-review"
            className="rounded bg-indigo-600 px-4 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
          >
            {pending ? "Starting…" : "Review the change"}
          </button>
          {state && !state.ok && (
            <span className="whitespace-pre-line text-sm text-red-700" role="alert">
              {state.error}
            </span>
          )}
        </div>
      </form>
      {started && startedInitial && (
        <div className="rounded border border-indigo-200 bg-indigo-50 p-2" data-testid="started-review">
          <ReviewProgress id={started.reviewId} initial={startedInitial} />
        </div>
      )}
      {jobs.some((j) => j.id !== started?.reviewId) && (
        <div className="space-y-1" data-testid="review-jobs">
          <h3 className="text-xs font-semibold text-zinc-700">
            Reviews running, or stopped before they were stored
          </h3>
          <ul className="space-y-1">
            {jobs
              .filter((j) => j.id !== started?.reviewId)
              .map((j) => (
                <li key={j.id}>
                  <ReviewProgress id={j.id} initial={j.initial} createdAt={j.createdAt} />
                </li>
              ))}
          </ul>
        </div>
      )}
    </div>
  );
}
