"use client";

import { type ReactNode, useEffect, useRef } from "react";

export type FieldProps = { id: string; label: string; error?: string; hint?: ReactNode };

const inputClass =
  "w-full min-w-0 rounded border border-zinc-300 bg-white px-2 py-1 text-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200 aria-[invalid=true]:border-red-500";

export function FieldError({ id, error }: { id: string; error?: string }) {
  if (!error) return null;
  return (
    <p id={`${id}-error`} role="alert" data-testid={`error-${id}`} className="mt-1 text-xs text-red-600">
      {error}
    </p>
  );
}

/** A label above its control, then the hint and the field's error under it. */
function Labelled({ id, label, error, hint, children }: FieldProps & { children: ReactNode }) {
  return (
    <div>
      <label htmlFor={id} className="block text-xs font-medium text-zinc-700">
        {label}
      </label>
      {children}
      {hint && <p className="mt-1 text-xs text-zinc-600">{hint}</p>}
      <FieldError id={id} error={error} />
    </div>
  );
}

/** The attributes every text-like input here shares: name, style, and its error for screen readers. */
const inputProps = (id: string, error?: string) => ({
  id,
  name: id,
  className: inputClass,
  "aria-invalid": Boolean(error),
  "aria-describedby": error ? `${id}-error` : undefined,
});

export function NumberField({
  value,
  onChange,
  step,
  min,
  max,
  ...field
}: FieldProps & { value: number; onChange: (v: number) => void; step?: number; min?: number; max?: number }) {
  return (
    <Labelled {...field}>
      <input
        {...inputProps(field.id, field.error)}
        type="number"
        inputMode="decimal"
        value={Number.isFinite(value) ? value : ""}
        step={step ?? "any"}
        min={min}
        max={max}
        onChange={(e) => onChange(e.currentTarget.value === "" ? Number.NaN : Number(e.currentTarget.value))}
      />
    </Labelled>
  );
}

export function TextField({
  value,
  onChange,
  placeholder,
  ...field
}: FieldProps & { value: string; onChange: (v: string) => void; placeholder?: string }) {
  return (
    <Labelled {...field}>
      <input
        {...inputProps(field.id, field.error)}
        type="text"
        value={value}
        placeholder={placeholder}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
    </Labelled>
  );
}

/**
 * A checkbox bound to the draft. The form never resets its controls (settings-form.tsx submits
 * without a form action), so what is shown ticked is what the draft, and the save, hold.
 */
export function Toggle({
  id,
  label,
  checked,
  onChange,
  error,
}: {
  id: string;
  label: ReactNode;
  checked: boolean;
  onChange: (v: boolean) => void;
  error?: string;
}) {
  return (
    <label htmlFor={id} className="inline-flex items-center gap-2 text-sm">
      <input
        id={id}
        name={id}
        type="checkbox"
        className="h-4 w-4 shrink-0 accent-indigo-600"
        checked={checked}
        aria-invalid={Boolean(error)}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      {label}
    </label>
  );
}

export function SelectField<T extends string>({
  id,
  label,
  value,
  options,
  onChange,
}: {
  id: string;
  label: string;
  value: T;
  options: readonly T[];
  onChange: (v: T) => void;
}) {
  return (
    <Labelled id={id} label={label}>
      <select
        id={id}
        name={id}
        className={inputClass}
        value={value}
        onChange={(e) => onChange(e.currentTarget.value as T)}
      >
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </Labelled>
  );
}

/**
 * A list of model ids, one input each, with add and remove. "+ add model" puts the focus in the new
 * field, so what is typed next goes there; a field left blank is refused at save, naming it.
 */
export function ModelList({
  id,
  models,
  errors,
  onChange,
}: {
  id: string;
  models: string[];
  errors: (path: string) => string | undefined;
  onChange: (v: string[]) => void;
}) {
  const focusRow = useFocusAfterRender();
  return (
    <div className="space-y-1">
      {models.map((m, i) => {
        const fid = `${id}.${i}`;
        const error = errors(`${id}.${i}`);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
          <div key={i}>
            <div className="flex gap-1">
              <input
                id={fid}
                aria-label={`Model id ${i + 1}`}
                className={inputClass}
                value={m}
                aria-invalid={Boolean(error)}
                aria-describedby={error ? `${fid}-error` : undefined}
                onChange={(e) => onChange(models.map((x, j) => (j === i ? e.currentTarget.value : x)))}
              />
              <button
                type="button"
                className="rounded px-2 text-sm text-zinc-600 hover:bg-zinc-100"
                aria-label={`Remove model ${m || i + 1}`}
                onClick={() => onChange(models.filter((_, j) => j !== i))}
              >
                ×
              </button>
            </div>
            <FieldError id={fid} error={error} />
          </div>
        );
      })}
      <button
        type="button"
        data-testid={`${id}-add`}
        className="text-xs text-indigo-700 hover:underline"
        onClick={() => {
          focusRow(`${id}.${models.length}`);
          onChange([...models, ""]);
        }}
      >
        + add model
      </button>
    </div>
  );
}

/**
 * Focuses the element with the id given, once the render that adds it is done: for a button that adds
 * a field ("+ add model", "+ add endpoint"), so the next keystrokes go into it.
 */
export function useFocusAfterRender(): (id: string) => void {
  const pending = useRef<string | null>(null);
  useEffect(() => {
    if (pending.current === null) return;
    const el = document.getElementById(pending.current);
    if (el) {
      el.focus();
      pending.current = null;
    }
  });
  return (id: string) => {
    pending.current = id;
  };
}
