"use client";

import { type ChangeEvent, useState } from "react";
import type { StartReviewState } from "@/app/actions/reviews";
import { LabelledField } from "@/components/ui/labelled-field";

const field = "w-full rounded border border-zinc-300 bg-white px-2 py-1 text-sm";
const label = "block text-xs font-medium text-zinc-700";
const utf8 = new TextDecoder("utf-8", { fatal: true });

type FieldErrors = Record<string, string | undefined>;

type Props = {
  action: (data: FormData) => void;
  pending: boolean;
  state: StartReviewState;
  /** the judges enabled in Settings, and the ones ticked at first */
  available: string[];
  defaultJudges: string[];
  defaultN: number;
  /** the largest diff the server takes (JURY_MAX_FILE_BYTES), in bytes */
  maxBytes: number;
};

/**
 * The review's fields: title and a .diff file, criteria, the diff, test counts and N, test output,
 * judges. Every field is controlled, so a refused form keeps what was typed.
 */
export function ReviewForm({ action, pending, state, available, defaultJudges, defaultN, maxBytes }: Props) {
  const [title, setTitle] = useState("");
  const [criteria, setCriteria] = useState("");
  const [diff, setDiff] = useState("");
  const [testOutput, setTestOutput] = useState("");
  const fe: FieldErrors = state && !state.ok ? state.fieldErrors : {};

  return (
    <form action={action} className="space-y-3" data-testid="review-form">
      <div className="grid gap-3 sm:grid-cols-2">
        <LabelledField id="review-title" label="Title (optional)">
          <input
            id="review-title"
            name="title"
            value={title}
            onChange={(e) => setTitle(e.currentTarget.value)}
            className={field}
            maxLength={200}
          />
          <ErrorLine error={fe.title} />
        </LabelledField>
        <DiffFileField
          maxBytes={maxBytes}
          onRead={(text, name) => {
            setDiff(text);
            setTitle((t) => t || name);
          }}
        />
      </div>
      <LabelledField id="review-criteria" label="Acceptance criteria">
        <textarea
          id="review-criteria"
          name="criteria"
          rows={4}
          value={criteria}
          onChange={(e) => setCriteria(e.currentTarget.value)}
          className={field}
          data-testid="review-criteria"
        />
        <ErrorLine error={fe.criteria} testId="error-criteria" />
      </LabelledField>
      <LabelledField id="review-diff" label="The diff (git diff), pasted">
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
        <ErrorLine error={fe.diff} testId="error-diff" />
      </LabelledField>
      <TestCountFields fe={fe} defaultN={defaultN} />
      <LabelledField id="review-test-output" label="Test output (optional; its first 2,000 lines are kept)">
        <textarea
          id="review-test-output"
          name="testOutput"
          rows={3}
          value={testOutput}
          onChange={(e) => setTestOutput(e.currentTarget.value)}
          className={`${field} font-mono text-xs`}
        />
        <ErrorLine error={fe.testOutput} />
      </LabelledField>
      <JudgeChecks available={available} defaultJudges={defaultJudges} error={fe.judges} />
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
  );
}

/** A field's error under it, when it has one. */
function ErrorLine({ error, testId }: { error: string | undefined; testId?: string }) {
  return error ? (
    <p className="text-xs text-red-600" data-testid={testId}>
      {error}
    </p>
  ) : null;
}

/**
 * A .diff file, read here into the diff box (and its name into an empty title), so it stays through
 * a refused submit like the other fields; too large or not UTF-8, and it says so instead.
 */
function DiffFileField({
  maxBytes,
  onRead,
}: {
  maxBytes: number;
  onRead: (text: string, name: string) => void;
}) {
  const [fileNote, setFileNote] = useState<string | null>(null);
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
      onRead(utf8.decode(await file.arrayBuffer()), file.name);
      setFileNote(`Read ${file.name} into the box.`);
    } catch {
      setFileNote(`${file.name} is not valid UTF-8 text; save it as UTF-8`);
    }
  };
  return (
    <LabelledField id="review-diff-file" label="Upload a .diff file">
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
    </LabelledField>
  );
}

/** Tests passed and failed, N samples per judge, and whether each dimension gets its own call. */
function TestCountFields({ fe, defaultN }: { fe: FieldErrors; defaultN: number }) {
  const [passed, setPassed] = useState("");
  const [failed, setFailed] = useState("");
  const [n, setN] = useState(String(defaultN));
  const [perDimension, setPerDimension] = useState(false);
  return (
    <div className="grid gap-3 sm:grid-cols-4">
      <LabelledField id="review-passed" label="Tests passed (optional)">
        <input
          id="review-passed"
          name="passed"
          inputMode="numeric"
          value={passed}
          onChange={(e) => setPassed(e.currentTarget.value)}
          className={field}
        />
        <ErrorLine error={fe.passed} />
      </LabelledField>
      <LabelledField id="review-failed" label="Tests failed (optional)">
        <input
          id="review-failed"
          name="failed"
          inputMode="numeric"
          value={failed}
          onChange={(e) => setFailed(e.currentTarget.value)}
          className={field}
        />
        <ErrorLine error={fe.failed} testId="error-failed" />
      </LabelledField>
      <LabelledField id="review-n" label="N samples per judge">
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
        <ErrorLine error={fe.n} testId="error-n" />
      </LabelledField>
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
  );
}

/** A box per judge enabled in Settings; none: where to enable one. */
function JudgeChecks({
  available,
  defaultJudges,
  error,
}: {
  available: string[];
  defaultJudges: string[];
  error: string | undefined;
}) {
  const [judges, setJudges] = useState<string[]>(defaultJudges);
  return (
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
      {error && (
        <p className="whitespace-pre-line text-xs text-red-600" data-testid="error-judges">
          {error}
        </p>
      )}
    </fieldset>
  );
}
