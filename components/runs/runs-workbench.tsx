"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, startTransition, useActionState, useEffect, useRef, useState } from "react";
import { type StartRunState, startRun } from "@/app/actions/runs";
import { SettingsModal } from "@/components/settings/settings-modal";
import type { SuiteSummary } from "@/lib/runs/estimate";
import { defaultFormJudges } from "@/lib/settings/criteria-panels";
import { enabledJudges } from "@/lib/settings/providers";
import type { Settings } from "@/lib/settings/schema";
import { EstimateTable } from "./estimate-table";

type Props = { suites: SuiteSummary[]; settings: Settings; latencyMsByJudge: Record<string, number> };

export function RunsWorkbench({ suites, settings, latencyMsByJudge }: Props) {
  const router = useRouter();
  const usable = suites.filter((s) => !s.error);
  const [suiteDir, setSuiteDir] = useState(usable[0]?.dir ?? "");
  const judgesAvailable = enabledJudges(settings);
  const [judges, setJudges] = useState<string[]>(() => defaultFormJudges(settings));
  const [n, setN] = useState<number>(settings.judging.samples);
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
  const settingsKey = JSON.stringify(settings);
  // biome-ignore lint/correctness/useExhaustiveDependencies: settingsKey stands for settings' content
  useEffect(() => {
    setN(settings.judging.samples);
    setJudges(defaultFormJudges(settings));
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
  const judgesError = fe.judges ?? Object.entries(fe).find(([k]) => k.startsWith("judges."))?.[1];
  return (
    <div className="space-y-3">
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-semibold">Start a run</h2>
        <SettingsModal
          initial={settings}
          renderEstimate={(draft) => (
            <EstimateTable
              suite={suite}
              judges={enabledJudges(draft)}
              n={draft.judging.samples}
              prices={draft.prices}
              concurrency={draft.judging.concurrency}
              latencyMsByJudge={latencyMsByJudge}
              temperature={draft.judging.temperature}
            />
          )}
        />
      </div>
      {suites.length === 0 ? (
        <p className="text-sm text-zinc-600">
          No suites found. Put suite folders (suite.json + cases/) under <code>examples/suites</code> or set{" "}
          <code>JURY_SUITES_DIR</code>.
        </p>
      ) : (
        <form ref={formRef} onSubmit={onSubmit} noValidate className="space-y-3" data-testid="start-run-form">
          <div className="grid gap-3 sm:grid-cols-3">
            <div>
              <label htmlFor="suiteDir" className="block text-xs font-medium text-zinc-700">
                Suite
              </label>
              <select
                id="suiteDir"
                name="suiteDir"
                value={suiteDir}
                onChange={(e) => setSuiteDir(e.currentTarget.value)}
                aria-invalid={fe.suiteDir ? true : undefined}
                aria-describedby={fe.suiteDir ? "error-suiteDir" : undefined}
                className="w-full rounded border border-zinc-300 bg-white px-2 py-1 text-sm"
              >
                {suites.map((s) => (
                  <option key={s.dir} value={s.dir} disabled={Boolean(s.error)}>
                    {s.name} {s.error ? "(broken: see below)" : `(${s.cases} cases)`}
                  </option>
                ))}
              </select>
              {fe.suiteDir && (
                <p id="error-suiteDir" className="text-xs text-red-700" data-testid="error-suiteDir">
                  {fe.suiteDir}
                </p>
              )}
            </div>
            <div>
              <label htmlFor="n" className="block text-xs font-medium text-zinc-700">
                N samples per judge
              </label>
              <input
                id="n"
                name="n"
                type="number"
                min={1}
                max={10}
                aria-invalid={fe.n ? true : undefined}
                aria-describedby={fe.n ? "error-n" : undefined}
                value={Number.isFinite(n) ? n : ""}
                onChange={(e) =>
                  setN(e.currentTarget.value === "" ? Number.NaN : Number(e.currentTarget.value))
                }
                className="w-full rounded border border-zinc-300 px-2 py-1 text-sm"
              />
              {fe.n && (
                <p id="error-n" className="text-xs text-red-700" data-testid="error-n">
                  {fe.n}
                </p>
              )}
            </div>
            <fieldset aria-describedby={judgesError ? "error-judges" : undefined}>
              <legend className="block text-xs font-medium text-zinc-700">Judges</legend>
              {judgesAvailable.length === 0 && (
                <p className="text-xs text-zinc-600">None enabled: open Judge settings.</p>
              )}
              {judgesAvailable.map((j) => (
                <label key={j} className="mr-3 inline-flex items-center gap-1 text-sm">
                  <input
                    type="checkbox"
                    name="judges"
                    value={j}
                    checked={judges.includes(j)}
                    aria-invalid={judgesError ? true : undefined}
                    aria-describedby={judgesError ? "error-judges" : undefined}
                    onChange={(e) =>
                      setJudges(e.currentTarget.checked ? [...judges, j] : judges.filter((x) => x !== j))
                    }
                  />
                  <code>{j}</code>
                  {j.startsWith("mock:") && (
                    <span className="rounded bg-amber-100 px-1 text-xs text-amber-800">not a model</span>
                  )}
                </label>
              ))}
              {judgesError && (
                <p id="error-judges" className="text-xs text-red-700" data-testid="error-judges">
                  {judgesError}
                </p>
              )}
            </fieldset>
          </div>
          <EstimateTable
            suite={suite}
            judges={judges}
            n={n}
            prices={settings.prices}
            concurrency={settings.judging.concurrency}
            latencyMsByJudge={latencyMsByJudge}
            temperature={settings.judging.temperature}
          />
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
      )}
    </div>
  );
}
