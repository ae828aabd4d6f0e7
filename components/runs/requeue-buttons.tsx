"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { resampleItem, retryFailedSamples } from "@/app/actions/runs";

type Result = { ok: true; data: { requeued: number } } | { ok: false; error: string };

function useRequeue() {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const run = (fn: () => Promise<Result>, done: (n: number) => string) =>
    start(async () => {
      const r = await fn();
      setMessage(r.ok ? { ok: true, text: done(r.data.requeued) } : { ok: false, text: r.error });
      // the page's live progress takes over: it polls while the run is queued or running
      if (r.ok) router.refresh();
    });
  return { pending, message, run };
}

function Message({ message }: { message: { ok: boolean; text: string } | null }) {
  if (!message) return null;
  return (
    <span role="status" className={`text-xs ${message.ok ? "text-zinc-700" : "text-red-700"}`}>
      {message.text}
    </span>
  );
}

const button =
  "rounded border border-zinc-300 bg-white px-2 py-0.5 text-xs font-medium text-zinc-900 hover:bg-zinc-50 disabled:opacity-60";

/** Retries the run's failed samples through the job runner; the failed ones are kept, marked "retried". */
export function RetryFailedButton({
  runId,
  failed,
  disabled,
}: {
  runId: string;
  failed: number;
  disabled?: boolean;
}) {
  const { pending, message, run } = useRequeue();
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <button
        type="button"
        className={button}
        data-testid="retry-failed"
        disabled={pending || disabled || failed === 0}
        onClick={() =>
          run(
            () => retryFailedSamples(runId),
            (n) => `${n} sample${n === 1 ? "" : "s"} queued again.`,
          )
        }
      >
        {pending ? "Queuing…" : `Retry ${failed} failed sample${failed === 1 ? "" : "s"}`}
      </button>
      <Message message={message} />
    </span>
  );
}

/** New samples for one case × criterion, its judges asked anew; the old samples are kept, marked "resampled". */
export function ResampleButton({
  runId,
  caseId,
  criterionId,
  disabled,
}: {
  runId: string;
  caseId: string;
  criterionId: string;
  disabled?: boolean;
}) {
  const { pending, message, run } = useRequeue();
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <button
        type="button"
        className={button}
        data-testid="resample-item"
        disabled={pending || disabled}
        title="ask this item's judges again, past the response cache; the current samples are kept, marked re-sampled"
        onClick={() =>
          run(
            () => resampleItem(runId, caseId, criterionId),
            (n) => `${n} new sample${n === 1 ? "" : "s"} asked for.`,
          )
        }
      >
        {pending ? "Queuing…" : "Re-sample this item"}
      </button>
      <Message message={message} />
    </span>
  );
}
