"use client";

import { useId } from "react";
import type { PromotionGuard } from "@/lib/settings/promote-guard";

/**
 * The question a promotion asks when its figures do not support it: each warning, then the figures
 * themselves (with their intervals and n), then what it would set; confirming sends the warnings'
 * codes, which the server checks against the guard it recomputes.
 */
export function EvidenceConfirm({
  guard,
  sets,
  confirmLabel,
  pending,
  onConfirm,
  onCancel,
}: {
  guard: PromotionGuard;
  /** what the promotion would set, in words */
  sets: string;
  confirmLabel: string;
  pending: boolean;
  onConfirm: (codes: string[]) => void;
  onCancel: () => void;
}) {
  const id = useId();
  const title = guard.keptNothing
    ? "This configuration kept nothing"
    : guard.warnings.some((w) => w.code === "not_best")
      ? "Not enough evidence that this configuration is best"
      : "The evidence for this is weak";
  return (
    <div
      role="alertdialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-reason`}
      data-testid="promote-confirm"
      data-kept-nothing={guard.keptNothing ? "true" : undefined}
      className={`mt-1 rounded border p-2 text-xs ${guard.keptNothing ? "border-red-300 bg-red-50 text-red-900" : "border-amber-300 bg-amber-50 text-amber-900"}`}
    >
      <p id={`${id}-title`} className="font-medium">
        {title}
      </p>
      <ul id={`${id}-reason`} data-testid="promote-reason" className="list-disc pl-4">
        {guard.warnings.map((w) => (
          <li key={w.code} data-code={w.code}>
            {w.text}
          </li>
        ))}
      </ul>
      <p className="mt-1 text-zinc-800" data-testid="promote-figures">
        Figures: {guard.figures.join(" · ")}
      </p>
      <p className="mt-1 text-zinc-700">Sets {sets}.</p>
      <div className="mt-1 flex flex-wrap gap-2">
        <button
          type="button"
          disabled={pending}
          data-testid="promote-confirm-yes"
          className={`rounded px-2 py-0.5 font-medium text-white disabled:opacity-50 ${guard.keptNothing ? "bg-red-700 hover:bg-red-800" : "bg-amber-700 hover:bg-amber-800"}`}
          onClick={() => onConfirm(guard.warnings.map((w) => w.code))}
        >
          {pending ? "Saving…" : confirmLabel}
        </button>
        <button
          type="button"
          data-testid="promote-confirm-no"
          className="rounded border border-zinc-300 bg-white px-2 py-0.5 text-zinc-800"
          onClick={onCancel}
        >
          Cancel
        </button>
      </div>
    </div>
  );
}
