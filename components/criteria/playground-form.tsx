"use client";

import Link from "next/link";
import { type FormEvent, startTransition, useActionState, useEffect, useRef, useState } from "react";
import { type TryCriterionState, tryCriterionAction } from "@/app/actions/criteria";
import { FieldError } from "@/components/settings/fields";
import { LabelledField } from "@/components/ui/labelled-field";
import { PlaygroundResultView } from "./playground-result";

const box =
  "w-full min-w-0 rounded border border-zinc-300 bg-white px-2 py-1 text-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200 aria-[invalid=true]:border-red-500";

/** A control's error for screen readers: invalid, and described by the error under it. */
const ariaError = (name: string, error: string | undefined) => ({
  "aria-invalid": Boolean(error),
  "aria-describedby": error ? `${name}-error` : undefined,
});

type Props = {
  criterionId: string;
  type: "llm" | "deterministic";
  /** the judges Settings enables, `provider:model` */
  judges: string[];
  defaultN: number;
  /** a deterministic criterion's default parameters, as JSON */
  defaultParams?: string;
  /** whoever looks may change Settings (an admin): else no link there, only who can */
  canEditSettings: boolean;
};

/**
 * Try a criterion on one input without a run: pick judges and N, type the input and the output,
 * see every sample and the aggregate. What was typed stays after an error (the form is submitted by
 * hand, never reset), the error sits under its field and the first such field takes focus.
 */
export function PlaygroundForm({
  criterionId,
  type,
  judges,
  defaultN,
  defaultParams,
  canEditSettings,
}: Props) {
  const [state, action, pending] = useActionState<TryCriterionState, FormData>(tryCriterionAction, null);
  const [picked, setPicked] = useState<string[]>(() => judges.slice(0, 3));
  const [n, setN] = useState(String(defaultN));
  const [fresh, setFresh] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const statusRef = useRef<HTMLParagraphElement>(null);
  const llm = type === "llm";

  useEffect(() => {
    if (!state || state.ok) return;
    const first = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    (first ?? statusRef.current)?.focus();
  }, [state]);

  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    startTransition(() => action(data));
  };
  const errors = state && !state.ok ? state.fieldErrors : {};

  return (
    <div className="space-y-4">
      <form ref={formRef} onSubmit={onSubmit} noValidate className="space-y-3" data-testid="playground-form">
        <input type="hidden" name="criterionId" value={criterionId} />
        {llm && (
          <JudgePicks
            judges={judges}
            picked={picked}
            onPick={setPicked}
            error={errors.judges}
            canEditSettings={canEditSettings}
          />
        )}
        <div className="grid gap-3 sm:grid-cols-4">
          {llm && (
            <LabelledField id="playground-n" label="N samples per judge (1–10)">
              <input
                id="playground-n"
                name="n"
                type="number"
                inputMode="numeric"
                step={1}
                className={box}
                value={n}
                onChange={(e) => setN(e.currentTarget.value)}
                {...ariaError("n", errors.n)}
              />
              <FieldError id="n" error={errors.n} />
            </LabelledField>
          )}
          {!llm && <input type="hidden" name="n" value="1" />}
          <label className="inline-flex items-center gap-2 self-end pb-1 text-sm sm:col-span-3">
            <input
              type="checkbox"
              name="fresh"
              className="h-4 w-4 accent-indigo-600"
              checked={fresh}
              onChange={(e) => setFresh(e.currentTarget.checked)}
              disabled={!llm}
            />
            call the judges afresh (skip cached answers)
          </label>
        </div>
        <CaseFields llm={llm} defaultParams={defaultParams} errors={errors} />
        <div className="flex flex-wrap items-center gap-3">
          <button
            type="submit"
            disabled={pending}
            data-testid="playground-try"
            className="rounded bg-indigo-600 px-4 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
          >
            {pending ? "Judging…" : llm ? "Try it" : "Run the check"}
          </button>
          <p
            ref={statusRef}
            tabIndex={-1}
            aria-live="polite"
            data-testid="playground-status"
            className="text-sm focus:outline-none"
          >
            {state && !state.ok && <span className="text-red-700">{state.error}</span>}
            {pending && (
              <span className="text-zinc-600">asking the judges; nothing is stored but the cache</span>
            )}
          </p>
        </div>
      </form>
      {state?.ok && <PlaygroundResultView result={state.data} />}
    </div>
  );
}

/**
 * What the criterion judges: the prompt, a reference, context and the output; a deterministic
 * criterion's parameters too. Each box keeps what was typed.
 */
function CaseFields({
  llm,
  defaultParams,
  errors,
}: {
  llm: boolean;
  defaultParams?: string;
  errors: Record<string, string | undefined>;
}) {
  return (
    <div className="grid gap-3 md:grid-cols-2">
      <TextArea name="prompt" label="Input: the prompt the output answers" rows={3} error={errors.prompt} />
      <TextArea name="reference" label="Reference answer (optional)" rows={3} error={errors.reference} />
      <TextArea
        name="context"
        label="Context (optional: documents the output should rest on)"
        rows={3}
        error={errors.context}
      />
      <TextArea name="output" label="Output to judge" rows={3} error={errors.output} />
      {!llm && (
        <TextArea
          name="params"
          label="Parameters (JSON object; blank: the definition's)"
          initial={defaultParams ?? ""}
          rows={3}
          error={errors.params}
          mono
        />
      )}
    </div>
  );
}

/** A box per judge Settings enables (the first carries the group's error), or where to enable one. */
function JudgePicks({
  judges,
  picked,
  onPick,
  error,
  canEditSettings,
}: {
  canEditSettings: boolean;
  judges: string[];
  picked: string[];
  onPick: (update: (picked: string[]) => string[]) => void;
  error?: string;
}) {
  return (
    <fieldset>
      <legend className="mb-1 text-xs font-medium text-zinc-700">Judges (enabled in Settings)</legend>
      {judges.length === 0 ? (
        <p className="text-sm text-zinc-600" data-testid="playground-no-judges">
          {canEditSettings ? (
            <>
              No judge is enabled: enable a provider and its models in{" "}
              <Link href="/settings" className="text-indigo-700 underline">
                Settings
              </Link>
              .
            </>
          ) : (
            "No judge is enabled: an admin enables a provider and its models in Settings."
          )}
        </p>
      ) : (
        <div className="flex flex-wrap gap-x-4 gap-y-1">
          {judges.map((j, i) => (
            <label key={j} className="inline-flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                name="judges"
                value={j}
                className="h-4 w-4 accent-indigo-600"
                checked={picked.includes(j)}
                // the first box carries the group's error, so focus lands on the group
                {...(i === 0 ? ariaError("judges", error) : {})}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  onPick((p) => (on ? [...p, j] : p.filter((x) => x !== j)));
                }}
              />
              <code className="text-xs">{j}</code>
            </label>
          ))}
        </div>
      )}
      <FieldError id="judges" error={error} />
    </fieldset>
  );
}

function TextArea({
  name,
  label,
  initial = "",
  rows,
  error,
  mono,
}: {
  name: string;
  label: string;
  initial?: string;
  rows: number;
  error?: string;
  mono?: boolean;
}) {
  const [value, setValue] = useState(initial);
  const id = `playground-${name}`;
  return (
    <LabelledField id={id} label={label}>
      <textarea
        id={id}
        name={name}
        rows={rows}
        className={`${box} ${mono ? "font-mono text-xs" : ""}`}
        value={value}
        {...ariaError(name, error)}
        onChange={(e) => setValue(e.currentTarget.value)}
      />
      <FieldError id={name} error={error} />
    </LabelledField>
  );
}
