"use client";

import { useRouter } from "next/navigation";
import { type ReactNode, useCallback, useRef, useState } from "react";
import type { Settings } from "@/lib/settings/schema";
import { SettingsForm } from "./settings-form";

/** The judging settings in a native <dialog>: Esc closes it, focus stays inside while open. */
export function SettingsModal({
  initial,
  renderEstimate,
}: {
  initial: Settings;
  renderEstimate?: (draft: Settings) => ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const router = useRouter();
  const [draft, setDraft] = useState(initial);
  const onSaved = useCallback(() => router.refresh(), [router]);
  return (
    <>
      <button
        type="button"
        data-testid="open-settings-modal"
        className="rounded border border-zinc-300 bg-white px-3 py-1.5 text-sm hover:bg-zinc-50"
        onClick={() => ref.current?.showModal()}
      >
        Judge settings
      </button>
      <dialog
        ref={ref}
        data-testid="settings-modal"
        aria-label="Judge settings"
        className="m-auto w-full max-w-3xl rounded-lg p-0 shadow-xl backdrop:bg-black/30"
      >
        <div className="flex items-center justify-between border-b border-zinc-200 px-4 py-2">
          <h2 className="font-semibold">Judge settings</h2>
          <button
            type="button"
            aria-label="Close"
            className="px-2 text-zinc-500"
            onClick={() => ref.current?.close()}
          >
            ×
          </button>
        </div>
        <div className="max-h-[75vh] overflow-y-auto px-4 pt-4">
          {renderEstimate?.(draft)}
          <SettingsForm
            initial={initial}
            sections={["providers", "judging"]}
            onDraftChange={setDraft}
            onSaved={onSaved}
          />
        </div>
      </dialog>
    </>
  );
}
