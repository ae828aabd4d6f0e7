"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { promotePanelConfigAction } from "@/app/actions/promote";
import { EvidenceConfirm } from "@/components/ui/evidence-confirm";
import type { PromotionGuard } from "@/lib/settings/promote-guard";

/**
 * A configuration's promotion: its judges become the criterion's default panel and its N the
 * criterion's N, for `jury eval` and the run form. Weak evidence asks first with the figures in front
 * of the person; the server recomputes them and refuses it unconfirmed too.
 */
export function PromoteConfigButton({
  runId,
  criterionId,
  configId,
  judges,
  n,
  margin,
  guard,
  isDefault,
}: {
  runId: string;
  criterionId: string;
  configId: string;
  judges: string[];
  n: number;
  margin: number;
  guard: PromotionGuard;
  isDefault: boolean;
}) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [confirming, setConfirming] = useState<PromotionGuard | null>(null);
  const promote = (confirmed: string[]) =>
    start(async () => {
      const r = await promotePanelConfigAction({ runId, criterionId, judges, n, margin, confirmed });
      if (r.ok) {
        setConfirming(null);
        setMessage({
          ok: true,
          text: `Default for ${criterionId}: ${r.data.judges.join(", ")} × N=${r.data.n}`,
        });
        router.refresh();
      } else if (r.needsConfirmation) setConfirming(r.needsConfirmation);
      else setMessage({ ok: false, text: r.error });
    });
  return (
    <div className="flex flex-wrap items-center gap-1" data-testid="promote-config">
      {isDefault ? (
        <span className="rounded bg-indigo-100 px-1 text-xs text-indigo-800" data-testid="config-default">
          default for {criterionId}
        </span>
      ) : (
        <button
          type="button"
          disabled={pending}
          className="rounded border border-zinc-300 bg-white px-1.5 py-0.5 text-xs hover:bg-zinc-50 disabled:opacity-50"
          title={`jury eval and the run form judge ${criterionId} with ${judges.join(", ")}, N=${n}. ${guard.figures.join(" · ")}`}
          aria-label={`Use ${configId} as the default for ${criterionId}`}
          data-testid="promote-config-button"
          onClick={() => {
            setMessage(null);
            if (guard.warnings.length) setConfirming(guard);
            else promote([]);
          }}
        >
          Use as default
        </button>
      )}
      {confirming && (
        <EvidenceConfirm
          guard={confirming}
          sets={`the default panel for ${criterionId} to ${judges.join(", ")} and its N to ${n}`}
          confirmLabel="Use it anyway"
          pending={pending}
          onConfirm={promote}
          onCancel={() => setConfirming(null)}
        />
      )}
      {message && (
        <span
          role="status"
          data-testid="promote-config-message"
          className={`text-xs ${message.ok ? "text-emerald-800" : "text-red-700"}`}
        >
          {message.text}
        </span>
      )}
    </div>
  );
}
