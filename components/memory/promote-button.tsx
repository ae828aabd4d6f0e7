"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { promoteExperimentAction } from "@/app/actions/promote";
import { EvidenceConfirm } from "@/components/ui/evidence-confirm";
import type { PromotionGuard } from "@/lib/settings/promote-guard";

export type PromoteInfo = {
  experimentId: string;
  /** "auto" configures the hook, "search" memory search */
  mode: "auto" | "search";
  /** what the memory judge would be set to, in words */
  sets: string;
  /** the figures it rests on and the warnings the page asks about first (none: it is best) */
  guard: PromotionGuard;
  /** the memory judge holds this configuration now, as promoted */
  inUse: boolean;
};

/**
 * A finished configuration's "Use for the hook" (auto mode) or "Use for memory search" (search mode):
 * sets the memory judge and its collection from it and records its figures as the setting's
 * provenance. One the figures do not support (not called best, or it kept nothing) asks first, with
 * the figures in front of the person; the server refuses it unconfirmed too.
 */
export function PromoteButton({ p }: { p: PromoteInfo }) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [confirming, setConfirming] = useState<PromotionGuard | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const what = p.mode === "auto" ? "the hook" : "memory search";

  const promote = (confirmed: string[]) =>
    start(async () => {
      const r = await promoteExperimentAction({ experimentId: p.experimentId, confirmed });
      if (r.ok) {
        setConfirming(null);
        setMessage({ ok: true, text: `Now used by ${what}. ${r.data.reads} ${r.data.provenance}` });
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
          title={`Sets ${p.sets}. ${p.guard.figures.join(" · ")}`}
          className="rounded border border-zinc-300 bg-white px-2 py-0.5 hover:bg-zinc-50 disabled:opacity-50"
          onClick={() => {
            setMessage(null);
            if (p.guard.warnings.length) setConfirming(p.guard);
            else promote([]);
          }}
        >
          {pending && !confirming ? "Saving…" : `Use for ${what}`}
        </button>
      )}
      {confirming && (
        <EvidenceConfirm
          guard={confirming}
          sets={p.sets}
          pending={pending}
          confirmLabel={
            confirming.keptNothing
              ? `Use it for ${what} although it kept nothing`
              : `Use it for ${what} anyway`
          }
          onConfirm={promote}
          onCancel={() => setConfirming(null)}
        />
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
