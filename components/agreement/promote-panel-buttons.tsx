"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { promotePanelAction } from "@/app/actions/promote";
import { EvidenceConfirm } from "@/components/ui/evidence-confirm";
import type { PromotionGuard } from "@/lib/settings/promote-guard";

type Target = "criterion" | "review";

/**
 * A judge row's (or the panel row's) promotion: make its judges the criterion's default panel for
 * `jury eval` and the run form, or the review judges. The figures recorded are this row's. Weak
 * evidence (few labels, κ's interval reaching 0, low coverage) asks first with the figures in front of
 * the person; the server refuses it unconfirmed too.
 */
export function PromotePanelButtons({
  runId,
  criterionId,
  judge,
  judges,
  guard,
  isCriterionDefault,
  isReviewDefault,
}: {
  runId: string;
  criterionId: string;
  /** "panel" or a judge id */
  judge: string;
  /** the judges it would set */
  judges: string[];
  /** this row's figures, and the warnings asked about first */
  guard: PromotionGuard;
  isCriterionDefault: boolean;
  isReviewDefault: boolean;
}) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [confirming, setConfirming] = useState<{ target: Target; guard: PromotionGuard } | null>(null);
  const targetWords = (t: Target) =>
    t === "criterion" ? `the default panel for ${criterionId}` : "the review judges";
  const promote = (target: Target, confirmed: string[]) =>
    start(async () => {
      const r = await promotePanelAction({ runId, criterionId, judge, target, confirmed });
      if (r.ok) {
        setConfirming(null);
        setMessage({
          ok: true,
          text: `${target === "criterion" ? `Default panel for ${criterionId}` : "Review judges"}: ${r.data.judges.join(", ")}`,
        });
        router.refresh();
      } else if (r.needsConfirmation) setConfirming({ target, guard: r.needsConfirmation });
      else setMessage({ ok: false, text: r.error });
    });
  const ask = (target: Target) => {
    setMessage(null);
    if (guard.warnings.length) setConfirming({ target, guard });
    else promote(target, []);
  };
  const list = judges.join(", ");
  const figures = guard.figures.join(" · ");
  const button =
    "rounded border border-zinc-300 bg-white px-1.5 py-0.5 text-xs hover:bg-zinc-50 disabled:opacity-50";
  return (
    <div className="flex flex-wrap items-center gap-1" data-testid={`promote-${judge}`}>
      {isCriterionDefault ? (
        <span className="rounded bg-indigo-100 px-1 text-xs text-indigo-800" data-testid="criterion-default">
          default for {criterionId}
        </span>
      ) : (
        <button
          type="button"
          className={button}
          disabled={pending}
          title={`jury eval without --judges and the run form judge ${criterionId} with ${list}. ${figures}`}
          data-testid="promote-criterion"
          onClick={() => ask("criterion")}
        >
          Default for {criterionId}
        </button>
      )}
      {isReviewDefault ? (
        <span className="rounded bg-indigo-100 px-1 text-xs text-indigo-800" data-testid="review-default">
          review judge{judges.length === 1 ? "" : "s"}
        </span>
      ) : (
        <button
          type="button"
          className={button}
          disabled={pending}
          title={`jury review without --judges or JUDGE_MODEL uses ${list}. ${figures}`}
          data-testid="promote-review"
          onClick={() => ask("review")}
        >
          Use for review
        </button>
      )}
      {confirming && (
        <EvidenceConfirm
          guard={confirming.guard}
          sets={`${targetWords(confirming.target)}: ${list}`}
          pending={pending}
          confirmLabel={`Make it ${targetWords(confirming.target)} anyway`}
          onConfirm={(codes) => promote(confirming.target, codes)}
          onCancel={() => setConfirming(null)}
        />
      )}
      {message && (
        <span
          role="status"
          className={`text-xs ${message.ok ? "text-green-800" : "text-red-700"}`}
          data-testid="promote-panel-message"
        >
          {message.text}
        </span>
      )}
    </div>
  );
}
