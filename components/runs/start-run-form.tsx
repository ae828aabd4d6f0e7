"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, startTransition, useActionState, useEffect, useRef, useState } from "react";
import { type StartRunState, startRun } from "@/app/actions/runs";
import { LabelledField } from "@/components/ui/labelled-field";
import type { SuiteSummary } from "@/lib/runs/estimate";
import type { FormStart } from "@/lib/runs/form-memory";
import { defaultFormJudges } from "@/lib/settings/criteria-panels";
import { enabledJudges } from "@/lib/settings/providers";
import type { Settings } from "@/lib/settings/schema";
import { EstimateTable } from "./estimate-table";

type Props = {
  suites: SuiteSummary[];
  /** the suite picked, kept by the workbench (its Settings modal estimates it too) */
  suiteDir: string;
  onSuiteDir: (dir: string) => void;
  /** the judges ticked at first (the last run's, less those that failed it) and those left unticked, with why */
  start: Pick<FormStart, "judges" | "unticked">;
  settings: Settings;
  latencyMsByJudge: Record<string, number>;
};

/**
 * The suite, N and judges, the estimate of what they cost, and Start run. A started run opens its
 * page; a refused one puts focus on the first field that failed, else on the message.
 */
export function StartRunForm({ suites, suiteDir, onSuiteDir, start, settings, latencyMsByJudge }: Props) {
  const router = useRouter();
  const [judges, setJudges] = useState<string[]>(start.judges);
  const [n, setN] = useState<number>(settings.judging.samples);
  const [batch, setBatch] = useState(false);
  const [state, action, pending] = useActionState<StartRunState, FormData>(startRun, null);
  const suite = suites.find((s) => s.dir === suiteDir);
  const formRef = useRef<HTMLFormElement>(null);
  const alertRef = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    if (!state) return;
    if (state.ok) {
      router.push(`/runs/${state.data.runId}`);
      return;
    }
    // the first field that failed, in the form's order; else the message itself
    const first = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (first) first.focus();
    else alertRef.current?.focus();
  }, [state, router]);
  // Settings saved in the modal arrive as new props: follow them. Keyed on their content, not the
  // object, so a re-render that hands over equal settings (after a failed start) keeps what was typed.
  // The first render keeps what the form remembered (the last run's judges).
  const settingsKey = JSON.stringify(settings);
  const seenSettings = useRef(settingsKey);
  // biome-ignore lint/correctness/useExhaustiveDependencies: settingsKey stands for settings' content
  useEffect(() => {
    if (seenSettings.current === settingsKey) return;
    seenSettings.current = settingsKey;
    setN(settings.judging.samples);
    const broken = new Set(start.unticked.map((u) => u.judge));
    setJudges(defaultFormJudges(settings).filter((j) => !broken.has(j)));
  }, [settingsKey]);

  /**
   * Submitted by hand, not as `<form action>`: React resets a form after its action, which puts the
   * select and checkboxes back to how the page first drew them while the state keeps the edit. Here
   * nothing resets: what is shown is what was submitted and what the next submit sends.
   */
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    startTransition(() => action(data));
  };

  const fe = state && !state.ok ? state.fieldErrors : {};
  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate className="space-y-3" data-testid="start-run-form">
      <div className="grid gap-3 sm:grid-cols-3">
        <SuiteField suites={suites} value={suiteDir} onChange={onSuiteDir} error={fe.suiteDir} />
        <SamplesField value={n} onChange={setN} error={fe.n} />
        <JudgesFieldset
          available={enabledJudges(settings)}
          unticked={start.unticked}
          value={judges}
          onChange={setJudges}
          error={fe.judges ?? Object.entries(fe).find(([k]) => k.startsWith("judges."))?.[1]}
        />
      </div>
      <EstimateTable
        suite={suite}
        judges={judges}
        n={n}
        prices={settings.prices}
        concurrency={settings.judging.concurrency}
        latencyMsByJudge={latencyMsByJudge}
        temperature={settings.judging.temperature}
        mode={{ promptCaching: settings.judging.promptCaching, batch }}
      />
      <label className="flex items-center gap-2 text-sm" htmlFor="batch">
        <input
          id="batch"
          name="batch"
          type="checkbox"
          checked={batch}
          onChange={(e) => setBatch(e.currentTarget.checked)}
          data-testid="run-batch"
        />
        Batch: send the OpenAI and Anthropic judges' calls through their batch APIs (half price, results
        within 24 h; other judges run live)
      </label>
      <div className="flex items-center gap-3">
        <button
          type="submit"
          disabled={pending || !suite || Boolean(suite.error)}
          data-testid="start-run"
          className="rounded bg-indigo-600 px-4 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
        >
          {pending ? "Starting…" : "Start run"}
        </button>
        {state && !state.ok && (
          <span
            ref={alertRef}
            tabIndex={-1}
            className="whitespace-pre-line text-sm text-red-700 focus:outline-none"
            role="alert"
          >
            {state.error}
          </span>
        )}
      </div>
      {suites
        .filter((s) => s.error)
        .map((s) => (
          <p key={s.dir} className="text-xs text-red-700">
            {s.error}
          </p>
        ))}
    </form>
  );
}

/** A field's error under it, named for aria-describedby, when it has one. */
function ErrorLine({ name, error }: { name: string; error: string | undefined }) {
  return error ? (
    <p id={`error-${name}`} className="text-xs text-red-700" data-testid={`error-${name}`}>
      {error}
    </p>
  ) : null;
}

/** The attributes that tie a control to its error for screen readers. */
const invalid = (name: string, error: string | undefined) => ({
  "aria-invalid": error ? true : undefined,
  "aria-describedby": error ? `error-${name}` : undefined,
});

function SuiteField({
  suites,
  value,
  onChange,
  error,
}: {
  suites: SuiteSummary[];
  value: string;
  onChange: (dir: string) => void;
  error: string | undefined;
}) {
  return (
    <LabelledField id="suiteDir" label="Suite">
      <select
        id="suiteDir"
        name="suiteDir"
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
        {...invalid("suiteDir", error)}
        className="w-full rounded border border-zinc-300 bg-white px-2 py-1 text-sm"
      >
        {suites.map((s) => (
          <option key={s.dir} value={s.dir} disabled={Boolean(s.error)}>
            {s.name} {s.error ? "(broken: see below)" : `(${s.cases} cases)`}
          </option>
        ))}
      </select>
      <ErrorLine name="suiteDir" error={error} />
    </LabelledField>
  );
}

/** N samples per judge; cleared, it holds NaN (the estimate shows nothing, the server says why). */
function SamplesField({
  value,
  onChange,
  error,
}: {
  value: number;
  onChange: (n: number) => void;
  error: string | undefined;
}) {
  return (
    <LabelledField id="n" label="N samples per judge">
      <input
        id="n"
        name="n"
        type="number"
        min={1}
        max={10}
        {...invalid("n", error)}
        value={Number.isFinite(value) ? value : ""}
        onChange={(e) => onChange(e.currentTarget.value === "" ? Number.NaN : Number(e.currentTarget.value))}
        className="w-full rounded border border-zinc-300 px-2 py-1 text-sm"
      />
      <ErrorLine name="n" error={error} />
    </LabelledField>
  );
}

/** A box per judge enabled in Settings (a mock judge is marked as not a model). */
function JudgesFieldset({
  available,
  unticked,
  value,
  onChange,
  error,
}: {
  available: string[];
  unticked: FormStart["unticked"];
  value: string[];
  onChange: (judges: string[]) => void;
  error: string | undefined;
}) {
  return (
    <fieldset aria-describedby={error ? "error-judges" : undefined}>
      <legend className="block text-xs font-medium text-zinc-700">Judges</legend>
      {available.length === 0 && <p className="text-xs text-zinc-600">None enabled: open Judge settings.</p>}
      {available.map((j) => (
        <label key={j} className="mr-3 inline-flex items-center gap-1 text-sm">
          <input
            type="checkbox"
            name="judges"
            value={j}
            checked={value.includes(j)}
            {...invalid("judges", error)}
            onChange={(e) => onChange(e.currentTarget.checked ? [...value, j] : value.filter((x) => x !== j))}
          />
          <code>{j}</code>
          {j.startsWith("mock:") && (
            <span className="rounded bg-amber-100 px-1 text-xs text-amber-800">not a model</span>
          )}
        </label>
      ))}
      {unticked.length > 0 && (
        <ul className="mt-1 text-xs text-orange-800" data-testid="unticked-judges">
          {unticked.map((u) => (
            <li key={u.judge}>
              <code>{u.judge}</code> left unticked: {u.reason}
            </li>
          ))}
        </ul>
      )}
      <ErrorLine name="judges" error={error} />
    </fieldset>
  );
}
