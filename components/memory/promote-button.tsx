"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { promoteExperimentAction } from "@/app/actions/promote";

export type PromoteInfo = {
  experimentId: string;
  /** "auto" configures the hook, "search" memory search */
  mode: "auto" | "search";
  /** what the memory judge would be set to, in words */
  sets: string;
  /** why the study does not call it best (the page asks before using it); null when it is best */
  notBest: string | null;
  /** the memory judge holds this configuration now, as promoted */
  inUse: boolean;
};

/**
 * A finished configuration's "Use for the hook" (auto mode) or "Use for memory search" (search mode):
 * sets the memory judge from it and records its figures as the setting's provenance. One the study
 * does not call best asks first, saying why.
 */
export function PromoteButton({ p }: { p: PromoteInfo }) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [confirming, setConfirming] = useState<string | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const reasonId = useId();
  const what = p.mode === "auto" ? "the hook" : "memory search";

  const promote = (acknowledgeNotBest: boolean) =>
    start(async () => {
      const r = await promoteExperimentAction({ experimentId: p.experimentId, acknowledgeNotBest });
      if (r.ok) {
        setConfirming(null);
        setMessage({ ok: true, text: `Now used by ${what}: ${r.data.provenance}` });
        router.refresh();
      } else if (r.needsConfirmation) setConfirming(r.needsConfirmation);
      else setMessage({ ok: false, text: r.error });
    });

  return (
    <div className="mt-1 text-xs" data-testid="promote">
      {p.inUse ? (
        <span className="rounded bg-indigo-100 px-1 font-medium text-indigo-800" data-testid="promote-in-use">
          used by {what}
        </span>
      ) : (
        <button
          type="button"
          disabled={pending}
          data-testid="promote-button"
          title={`Sets the memory judge: ${p.sets}`}
          className="rounded border border-zinc-300 bg-white px-2 py-0.5 hover:bg-zinc-50 disabled:opacity-50"
          onClick={() => {
            setMessage(null);
            if (p.notBest) setConfirming(p.notBest);
            else promote(false);
          }}
        >
          {pending && !confirming ? "Saving…" : `Use for ${what}`}
        </button>
      )}
      {confirming && (
        <div
          role="alertdialog"
          aria-labelledby={`${reasonId}-title`}
          aria-describedby={reasonId}
          className="mt-1 rounded border border-amber-300 bg-amber-50 p-2 text-amber-900"
          data-testid="promote-confirm"
        >
          <p id={`${reasonId}-title`} className="font-medium">
            Not enough evidence that this configuration is best
          </p>
          <p id={reasonId} data-testid="promote-reason">
            {confirming}
          </p>
          <p className="mt-1 text-zinc-700">Sets the memory judge: {p.sets}.</p>
          <div className="mt-1 flex gap-2">
            <button
              type="button"
              disabled={pending}
              data-testid="promote-confirm-yes"
              className="rounded bg-amber-700 px-2 py-0.5 font-medium text-white hover:bg-amber-800 disabled:opacity-50"
              onClick={() => promote(true)}
            >
              {pending ? "Saving…" : `Use it for ${what} anyway`}
            </button>
            <button
              type="button"
              data-testid="promote-confirm-no"
              className="rounded border border-zinc-300 bg-white px-2 py-0.5"
              onClick={() => setConfirming(null)}
            >
              Cancel
            </button>
          </div>
        </div>
      )}
      {message && (
        <p
          role="status"
          data-testid="promote-message"
          className={`mt-1 ${message.ok ? "text-green-800" : "text-red-700"}`}
        >
          {message.text}
        </p>
      )}
    </div>
  );
}
