"use client";

import { useRouter } from "next/navigation";
import { type ReactNode, useCallback, useRef, useState } from "react";
import { ScrollTable } from "@/components/ui/scroll-table";
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
      {/* fits a 390 px phone: the dialog is at most the viewport, its body scrolls, the save bar sticks */}
      <dialog
        ref={ref}
        data-testid="settings-modal"
        aria-labelledby="settings-modal-title"
        className="m-auto h-fit max-h-[calc(100dvh-1rem)] w-[calc(100vw-1rem)] max-w-3xl flex-col overflow-hidden rounded-lg p-0 shadow-xl backdrop:bg-black/30 open:flex"
      >
        <div className="flex shrink-0 items-center justify-between border-b border-zinc-200 px-4 py-2">
          <h2 id="settings-modal-title" className="font-semibold">
            Judge settings
          </h2>
          <button
            type="button"
            aria-label="Close"
            className="rounded px-2 text-lg text-zinc-600 hover:bg-zinc-100"
            onClick={() => ref.current?.close()}
          >
            ×
          </button>
        </div>
        <div
          className="min-h-0 flex-1 overflow-y-auto overscroll-contain px-4 pt-4"
          data-testid="settings-modal-body"
        >
          {renderEstimate && (
            <ScrollTable label="Estimate" className="mb-4">
              {renderEstimate(draft)}
            </ScrollTable>
          )}
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
