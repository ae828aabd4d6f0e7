"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useId, useState, useTransition } from "react";
import { type LabelValue, setLabel, undoLabel } from "@/app/actions/labels";

export type LabelButtonsProps = {
  runId: string;
  caseId: string;
  criterionId: string;
  /** the criterion's scale: a score is a whole point of it */
  scale: [number, number];
  /** the label the cell has now (null: none) */
  initial: LabelValue | null;
  /**
   * true (default): the keys y (pass), n (fail) and u (undo) work anywhere on the page, except while
   * typing in a field. Give false where several cells are on one page.
   */
  hotkeys?: boolean;
  /** who labels, kept with the label (the dashboard has no accounts) */
  labeller?: string;
};

const typing = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));

/**
 * A person's label on one verdict of a run: Pass / Fail (aria-pressed says which is set), a score on
 * the criterion's scale, Clear, and Undo (the run's newest label change). Keyboard: y, n, u. Every
 * change goes through the setLabel / undoLabel server actions, which keep it in the label history.
 */
export function LabelButtons({
  runId,
  caseId,
  criterionId,
  scale,
  initial,
  hotkeys = true,
  labeller,
}: LabelButtonsProps) {
  const router = useRouter();
  const [label, setLabelState] = useState<LabelValue | null>(initial);
  const [score, setScore] = useState(
    initial?.score === null || initial?.score === undefined ? "" : String(initial.score),
  );
  const [status, setStatus] = useState<{ text: string; error?: boolean } | null>(null);
  const [pending, start] = useTransition();
  const scoreId = useId();

  useEffect(() => {
    setLabelState(initial);
    setScore(initial?.score === null || initial?.score === undefined ? "" : String(initial.score));
  }, [initial]);

  const save = useCallback(
    (passed: boolean | null, scoreText: string) =>
      start(async () => {
        const s = scoreText.trim() === "" ? null : Number(scoreText);
        const r = await setLabel({
          runId,
          caseId,
          criterionId,
          passed,
          score: passed === null ? null : s,
          labeller,
        });
        if (!r.ok) {
          setStatus({ text: Object.values(r.fieldErrors)[0] ?? r.error, error: true });
          return;
        }
        setLabelState(r.data.label);
        setStatus({
          text:
            r.data.label === null
              ? "Label cleared"
              : `Labelled ${r.data.label.passed ? "pass" : "fail"}${r.data.label.score === null ? "" : ` (score ${r.data.label.score})`}${r.data.changed ? "" : " (unchanged)"}`,
        });
        router.refresh();
      }),
    [runId, caseId, criterionId, labeller, router],
  );

  const undo = useCallback(
    () =>
      start(async () => {
        const r = await undoLabel({ runId, labeller });
        if (!r.ok) {
          setStatus({ text: r.error, error: true });
          return;
        }
        if (!r.data) {
          setStatus({ text: "Nothing to undo" });
          return;
        }
        const { caseId: c, criterionId: k, restored } = r.data;
        if (c === caseId && k === criterionId) {
          setLabelState(restored);
          setScore(restored?.score === null || restored?.score === undefined ? "" : String(restored.score));
        }
        setStatus({
          text: `Undone: ${c} × ${k} is back to ${restored === null ? "no label" : restored.passed ? "pass" : "fail"}`,
        });
        router.refresh();
      }),
    [runId, caseId, criterionId, labeller, router],
  );

  useEffect(() => {
    if (!hotkeys) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || pending) return;
      const key = e.key.toLowerCase();
      if (key === "y") save(true, score);
      else if (key === "n") save(false, score);
      else if (key === "u") undo();
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [hotkeys, pending, save, undo, score]);

  const button = (pressed: boolean, tone: string) =>
    `rounded border px-3 py-1 text-sm disabled:opacity-50 ${pressed ? tone : "border-zinc-300 bg-white hover:bg-zinc-50"}`;
  return (
    <fieldset className="flex flex-wrap items-center gap-2" data-testid="label-buttons" aria-busy={pending}>
      <legend className="sr-only">
        Your label for {caseId} × {criterionId}
      </legend>
      <button
        type="button"
        aria-pressed={label?.passed === true}
        aria-keyshortcuts={hotkeys ? "y" : undefined}
        data-testid="label-pass"
        disabled={pending}
        onClick={() => save(true, score)}
        className={button(label?.passed === true, "border-green-600 bg-green-50 text-green-900")}
      >
        Pass{hotkeys && <kbd className="ml-1 text-xs text-zinc-500">y</kbd>}
      </button>
      <button
        type="button"
        aria-pressed={label?.passed === false}
        aria-keyshortcuts={hotkeys ? "n" : undefined}
        data-testid="label-fail"
        disabled={pending}
        onClick={() => save(false, score)}
        className={button(label?.passed === false, "border-red-600 bg-red-50 text-red-900")}
      >
        Fail{hotkeys && <kbd className="ml-1 text-xs text-zinc-500">n</kbd>}
      </button>
      <label htmlFor={scoreId} className="text-sm text-zinc-700">
        Score
      </label>
      <input
        id={scoreId}
        type="number"
        inputMode="numeric"
        min={scale[0]}
        max={scale[1]}
        step={1}
        value={score}
        data-testid="label-score"
        aria-describedby={`${scoreId}-hint`}
        onChange={(e) => setScore(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && label) save(label.passed, score);
        }}
        onBlur={() => {
          if (label && score !== (label.score === null ? "" : String(label.score))) save(label.passed, score);
        }}
        className="w-16 rounded border border-zinc-300 px-2 py-1 text-sm"
      />
      <span id={`${scoreId}-hint`} className="text-xs text-zinc-500">
        {scale[0]}–{scale[1]}, optional{label ? "" : "; pick pass or fail first"}
      </span>
      <button
        type="button"
        data-testid="label-clear"
        disabled={pending || label === null}
        onClick={() => save(null, "")}
        className="rounded border border-zinc-300 px-2 py-1 text-sm hover:bg-zinc-50 disabled:opacity-40"
      >
        Clear
      </button>
      <button
        type="button"
        data-testid="label-undo"
        aria-keyshortcuts={hotkeys ? "u" : undefined}
        disabled={pending}
        onClick={undo}
        title="undo the newest label change of this run"
        className="rounded border border-zinc-300 px-2 py-1 text-sm hover:bg-zinc-50 disabled:opacity-40"
      >
        Undo{hotkeys && <kbd className="ml-1 text-xs text-zinc-500">u</kbd>}
      </button>
      <output
        aria-live="polite"
        data-testid="label-status"
        className={`text-xs ${status?.error ? "text-red-700" : "text-zinc-600"}`}
      >
        {status?.text ?? ""}
      </output>
    </fieldset>
  );
}
