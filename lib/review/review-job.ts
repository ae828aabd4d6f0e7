import { randomBytes } from "node:crypto";
import type { Db } from "@/db/client";
import { insertReview } from "@/db/queries/reviews";
import type { JobStatus } from "@/db/schema";
import { enqueueJob, runJob } from "../jobs/runner";
import { plannedCalls, type ReviewOptions, type ReviewOutcome, runReview } from "./run-review";
import { throttleLimit, tryAcquireJudgment } from "./throttle";

/** A review's id, given before it runs: its job and, once it finishes, its stored row share it. */
export function newReviewId(): string {
  return `rev_${randomBytes(5).toString("hex")}`;
}

export type ReviewJobInput = {
  id: string;
  title: string;
  options: ReviewOptions;
  /** who asked for it (a user's name, "local", "<os user> (cli)") */
  createdBy?: string;
  /** a mechanical score given with the review (stored beside the judge's) */
  mechanical?: number;
  /** the caller's own stop (the job's signal aborts too on cancel or a storage failure) */
  signal?: AbortSignal;
  heartbeatMs?: number;
};

export type ReviewJobResult = {
  status: JobStatus;
  /** why it stopped, when it did not finish (the job row says the same) */
  error: string | null;
  /** what the review found (null when it threw); stored only when `stored` */
  outcome: ReviewOutcome | null;
  /** the review's row was written (a cancelled or interrupted review writes none) */
  stored: boolean;
  /** what runReview or the write threw, for a caller that reports errors its own way (the CLI) */
  thrown?: unknown;
};

/** Inserts the review's job (queued) with the calls it plans, so it is listed before it starts. */
export async function enqueueReview(db: Db, id: string, options: ReviewOptions): Promise<void> {
  await enqueueJob(db, { id, kind: "review", total: plannedCalls(options) });
}

/**
 * Whether the judge may be asked: off unless enabled (`offReason` says why
 * not), and at most JUDGE_MAX_PER_HOUR judgments an hour across processes. A failed test needs no
 * judge, so it takes no slot.
 */
export async function judgeAllowedFor(
  db: Db,
  o: { judgeOn: boolean; offReason: string; testsFailed: boolean },
): Promise<ReviewOptions["judgeAllowed"]> {
  if (!o.judgeOn) return { ok: false, status: "not enabled", reason: o.offReason };
  if (o.testsFailed || (await tryAcquireJudgment(db, "review", throttleLimit()))) return { ok: true };
  return {
    ok: false,
    status: "throttled",
    reason: `throttled: ${throttleLimit()} judgments in the last hour (JUDGE_MAX_PER_HOUR)`,
  };
}

/**
 * Runs a review as a job (lib/jobs/runner.ts): claimed with a heartbeat, its calls aborted on
 * cancel, and stored when it finishes. A cancelled or killed review stores no review row: its job
 * says cancelled, or interrupted (recovery marks a dead owner's job), with why.
 */
export async function executeReview(db: Db, input: ReviewJobInput): Promise<ReviewJobResult> {
  const { id, options } = input;
  const planned = plannedCalls(options);
  let outcome: ReviewOutcome | null = null;
  let stored = false;
  let thrown: unknown;
  const r = await runJob(
    db,
    { id, kind: "review", total: planned },
    async (ctx) => {
      let done = 0;
      let errors = 0;
      try {
        outcome = await runReview({
          ...options,
          signal: ctx.signal,
          onCall: (call) => {
            done++;
            if (call.error !== undefined) errors++;
            ctx.report({ done, errors, total: Math.max(planned, done) });
          },
        });
      } catch (err) {
        thrown = err;
        throw err;
      }
      const stop = ctx.stopReason();
      if (stop)
        return stop.kind === "cancelled"
          ? { status: "cancelled", error: "Cancelled: its calls were stopped and nothing was stored." }
          : { status: "interrupted", error: "Stopped before it finished: nothing was stored." };
      try {
        await storeReview(db, input, outcome);
        stored = true;
      } catch (err) {
        thrown = err;
        ctx.failStorage(err);
      }
      return { status: "done" };
    },
    { signal: input.signal, heartbeatMs: input.heartbeatMs },
  );
  return { status: r.status, error: r.error, outcome, stored, ...(thrown === undefined ? {} : { thrown }) };
}

/** The review's row: its verdict, scores, diff and everything the review page shows. */
async function storeReview(db: Db, input: ReviewJobInput, r: ReviewOutcome): Promise<void> {
  const { context } = input.options;
  await insertReview(db, {
    id: input.id,
    title: input.title,
    verdict: r.verdict,
    verdictSource: r.verdictSource,
    score: r.score,
    mechanicalScore: input.mechanical ?? null,
    blendedScore: r.blended,
    diff: context.diff,
    createdBy: input.createdBy ?? null,
    record: {
      context: { ...context, diff: undefined },
      gate: r.gate,
      judgment: r.judgment as unknown as Record<string, unknown> | null,
      samples: r.samples,
      warnings: r.warnings,
      diagnosis: r.diagnosis,
      calls: r.calls,
      judge: r.judge,
      coverage: r.coverage,
      transcript: r.transcript,
      costUsd: r.costUsd,
    },
  });
}
