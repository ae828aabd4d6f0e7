"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { promotePanelAction } from "@/app/actions/promote";

/**
 * A judge row's (or the panel row's) promotion: make its judges the criterion's default panel for
 * `jury eval` and the run form, or the review judges. The figures recorded are this row's.
 */
export function PromotePanelButtons({
  runId,
  criterionId,
  judge,
  judges,
  isCriterionDefault,
  isReviewDefault,
}: {
  runId: string;
  criterionId: string;
  /** "panel" or a judge id */
  judge: string;
  /** the judges it would set */
  judges: string[];
  isCriterionDefault: boolean;
  isReviewDefault: boolean;
}) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const promote = (target: "criterion" | "review") =>
    start(async () => {
      const r = await promotePanelAction({ runId, criterionId, judge, target });
      if (r.ok) {
        setMessage({
          ok: true,
          text: `${target === "criterion" ? `Default panel for ${criterionId}` : "Review judges"}: ${r.data.judges.join(", ")}`,
        });
        router.refresh();
      } else setMessage({ ok: false, text: r.error });
    });
  const list = judges.join(", ");
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
          title={`jury eval without --judges and the run form judge ${criterionId} with ${list}`}
          data-testid="promote-criterion"
          onClick={() => promote("criterion")}
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
          title={`jury review without --judges or JUDGE_MODEL uses ${list}`}
          data-testid="promote-review"
          onClick={() => promote("review")}
        >
          Use for review
        </button>
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
