"use client";

import { type FormEvent, startTransition, useActionState, useEffect, useRef, useState } from "react";
import { type SaveSettingsState, saveSettings } from "@/app/actions/settings";
import type { Settings } from "@/lib/settings/schema";
import { DefaultsSection } from "./defaults-section";
import { JudgingSection } from "./judging-section";
import { MemoryJudgeSection } from "./memory-judge-section";
import { PriceSection } from "./price-section";
import { ProviderSection } from "./provider-section";
import { updateAt } from "./update-at";

export type SettingsSection = "providers" | "judging" | "memoryJudge" | "defaults" | "prices";

type Props = {
  initial: Settings;
  sections?: SettingsSection[];
  /** called on every edit, so a caller can show estimates that follow the form */
  onDraftChange?: (draft: Settings) => void;
  onSaved?: () => void;
  /** names of the `JURY_*_API_KEY` variables that are set, for "sends $JURY_FOO_API_KEY (set) to …" */
  presentKeys?: readonly string[];
  /** what in the stored settings did not validate, shown at the fields until the next save */
  storedProblems?: Record<string, string>;
};

export function SettingsForm({
  initial,
  sections = ["providers", "judging", "memoryJudge", "defaults", "prices"],
  onDraftChange,
  onSaved,
  presentKeys,
  storedProblems = {},
}: Props) {
  const [draft, setDraft] = useState<Settings>(initial);
  const [state, action, pending] = useActionState<SaveSettingsState, FormData>(saveSettings, null);
  const [dirty, setDirty] = useState(false);

  const formRef = useRef<HTMLFormElement>(null);
  const statusRef = useRef<HTMLOutputElement>(null);

  useEffect(() => {
    if (!state) return;
    if (state.ok) {
      setDirty(false);
      onSaved?.();
      return;
    }
    // the first field that failed, in the order the form shows them; else the message itself
    const first = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (first) {
      first.focus();
      first.scrollIntoView({ block: "center" });
    } else statusRef.current?.focus();
  }, [state, onSaved]);

  /**
   * Submitted by hand, not as `<form action>`: React resets a form after its action, and a reset puts
   * every checkbox and select back to how the page first drew it while the draft (what the next save
   * sends) keeps the edit: shown unticked, saved ticked. Here nothing resets; the draft is the truth.
   */
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    startTransition(() => action(data));
  };

  const set = (path: string, v: unknown) => {
    const next = updateAt(draft, path, v);
    setDraft(next);
    setDirty(true);
    onDraftChange?.(next);
  };
  const fieldErrors = state ? (state.ok ? {} : state.fieldErrors) : storedProblems;
  const nStored = Object.keys(storedProblems).length;
  const err = (path: string) => fieldErrors[path];

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate className="space-y-6" data-testid="settings-form">
      {!state && nStored > 0 && (
        <p role="alert" data-testid="settings-stored-problems" className="text-sm text-amber-800">
          The stored settings have {nStored} value{nStored === 1 ? "" : "s"} this version does not accept
          (shown at the field{nStored === 1 ? "" : "s"}); they are not used. Save to replace them.
        </p>
      )}
      <input type="hidden" name="payload" value={JSON.stringify(draft)} />
      {sections.includes("providers") && (
        <ProviderSection
          value={draft}
          set={set}
          err={err}
          showEndpoints={sections.length > 2}
          presentKeys={presentKeys}
        />
      )}
      {sections.includes("judging") && <JudgingSection value={draft} set={set} err={err} />}
      {sections.includes("memoryJudge") && <MemoryJudgeSection value={draft} set={set} err={err} />}
      {sections.includes("defaults") && <DefaultsSection value={draft} set={set} err={err} />}
      {sections.includes("prices") && <PriceSection value={draft} set={set} err={err} />}
      <div className="sticky bottom-0 z-10 flex flex-wrap items-center gap-x-3 gap-y-1 border-t border-zinc-200 bg-white py-3">
        <button
          type="submit"
          disabled={pending}
          data-testid="settings-save"
          className="rounded bg-indigo-600 px-4 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
        >
          {pending ? "Saving…" : "Save settings"}
        </button>
        <output
          ref={statusRef}
          tabIndex={-1}
          data-testid="settings-status"
          className="text-sm focus:outline-none"
          aria-live="polite"
        >
          {state?.ok && !dirty && <span className="text-green-700">Saved.</span>}
          {state && !state.ok && <span className="text-red-700">{state.error}</span>}
          {dirty && !pending && !(state && !state.ok) && (
            <span className="text-zinc-600">Unsaved changes</span>
          )}
        </output>
      </div>
    </form>
  );
}
